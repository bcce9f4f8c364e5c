import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { ToolgateError } from '../../core/errors.ts';
import { DEFAULT_MAX_SCRIPT_BYTES, loadScript, type LoadScriptOptions } from './load-script.ts';
import { formatPath, parseScript } from './script-schema.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolgate-script-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, content: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, content);
  return file;
}

async function loadError(file: string, options: LoadScriptOptions = {}): Promise<ToolgateError> {
  try {
    // A read that never ends fails the test instead of hanging it.
    await Promise.race([
      loadScript(file, options),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`loading ${file} still runs after 2 s`)), 2_000).unref(),
      ),
    ]);
  } catch (error) {
    assert.ok(error instanceof ToolgateError, String(error));
    return error;
  }
  assert.fail(`expected ${file} to be rejected`);
}

describe('loadScript', () => {
  it('loads a valid script', async () => {
    const file = await write(
      'ok.json',
      JSON.stringify({
        description: 'demo',
        turns: [
          {
            text: 'hi',
            toolCalls: [{ name: 'f', arguments: '{broken' }],
            delayMs: 0,
            usage: { promptTokens: 1, completionTokens: 2 },
          },
          {},
        ],
      }),
    );
    const script = await loadScript(file);
    assert.equal(script.turns.length, 2);
    assert.equal(script.turns[0]?.toolCalls?.[0]?.arguments, '{broken');
  });

  it('names the file and the bad path', async () => {
    const file = await write(
      'bad-args.json',
      JSON.stringify({
        turns: [{ text: 'a' }, { text: 'b' }, { toolCalls: [{ name: 'f', arguments: { area: 'DE' } }] }],
      }),
    );
    const error = await loadError(file);
    assert.equal(error.code, 'config_invalid');
    assert.ok(error.message.includes(file), error.message);
    assert.match(error.message, /turns\[2\]\.toolCalls\[0\]\.arguments must be a string/);
  });

  it('reports missing fields, wrong types and unknown keys together', async () => {
    const file = await write(
      'many.json',
      JSON.stringify({ turns: [{ toolcalls: [] }, { toolCalls: [{ arguments: '{}' }], delayMs: -1 }, 'text'] }),
    );
    const { message, details } = await loadError(file);
    assert.match(message, /turns\[0\] has an unknown key \(did you mean "toolCalls"\?/);
    assert.match(message, /turns\[1\]\.toolCalls\[0\]\.name is missing \(expected a string\)/);
    assert.match(message, /turns\[1\]\.delayMs must be >= 0/);
    assert.match(message, /turns\[2\] must be an object/);
    assert.equal((details?.['problems'] as string[]).length, 4);
  });

  it('rejects a file that is not JSON, naming it', async () => {
    const file = await write('broken.json', '{ "turns": [ }');
    const error = await loadError(file);
    assert.equal(error.code, 'config_invalid');
    assert.match(error.message, /broken\.json is not valid JSON/);
  });

  it('rejects a missing file as a usage error', async () => {
    const error = await loadError(join(dir, 'nope.json'));
    assert.equal(error.code, 'usage');
    assert.match(error.message, /cannot read scripted model script .*nope\.json.*ENOENT/);
  });

  it('parseScript: a script without turns', () => {
    assert.throws(
      () => parseScript({}, 'inline'),
      (e: unknown) => e instanceof ToolgateError && /inline: turns is missing \(expected an array\)/.test(e.message),
    );
  });

  it('formatPath', () => {
    assert.equal(formatPath(['turns', 2, 'toolCalls', 0, 'arguments']), 'turns[2].toolCalls[0].arguments');
    assert.equal(formatPath([]), 'the script');
  });
});

const SECRET = 'root:x:0:0:SECRET-7f3a';

describe('loadScript: files that are not scripts', () => {
  it(
    'refuses /dev/zero promptly as a usage error naming only the path',
    { skip: !existsSync('/dev/zero') },
    async () => {
      const error = await loadError('/dev/zero');
      assert.equal(error.code, 'usage');
      assert.equal(
        error.message,
        'scripted model script /dev/zero is not a regular file ' +
          '(it is a character device); give the path of a JSON script',
      );
    },
  );

  it('refuses a FIFO without waiting for a writer', { skip: process.platform === 'win32' }, async (t) => {
    const fifo = join(dir, 'pipe.json');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      t.skip('mkfifo is not available');
      return;
    }
    try {
      const error = await loadError(fifo);
      assert.equal(error.code, 'usage');
      assert.match(error.message, /pipe\.json is not a regular file \(it is a FIFO\)/);
    } finally {
      // Frees a reader stuck opening the FIFO, so a failing run still ends.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader was waiting
      }
    }
  });

  it('refuses a directory', async () => {
    const sub = join(dir, 'scripts.json');
    await mkdir(sub);
    const error = await loadError(sub);
    assert.equal(error.code, 'usage');
    assert.match(error.message, /scripts\.json is not a regular file \(it is a directory\)/);
  });

  it('refuses a valid script larger than maxBytes, and one over the 4 MiB default', async () => {
    const small = await write('small.json', JSON.stringify({ description: 'x'.repeat(150), turns: [{ text: 'hi' }] }));
    assert.equal((await loadScript(small, { maxBytes: 1_000 })).turns.length, 1);
    const tight = await loadError(small, { maxBytes: 100 });
    assert.equal(tight.code, 'usage');
    assert.match(tight.message, /small\.json is larger than 100 bytes \(maxBytes\)/);

    const prefix = '{"turns":[],"description":"';
    const big = await write('big.json', `${prefix}${'a'.repeat(DEFAULT_MAX_SCRIPT_BYTES - prefix.length - 2)}"}`);
    assert.equal((await loadScript(big)).turns.length, 0, 'exactly the default size loads');
    await writeFile(big, `${prefix}${'a'.repeat(DEFAULT_MAX_SCRIPT_BYTES - prefix.length - 1)}"}`);
    const error = await loadError(big);
    assert.equal(error.code, 'usage');
    assert.match(error.message, /big\.json is larger than 4194304 bytes \(maxBytes\)/);
    assert.ok(!error.message.includes('aaaa'));
  });

  it(
    'reads at most maxBytes + 1 bytes of a file that reports its size as 0',
    { skip: !existsSync('/proc/self/status') },
    async () => {
      const error = await loadError('/proc/self/status', { maxBytes: 8 });
      assert.equal(error.code, 'usage');
      assert.match(error.message, /\/proc\/self\/status is larger than 8 bytes/);
    },
  );
});

describe('loadScript: errors never quote the file', () => {
  it('text that is not JSON: the position, never the content', async () => {
    const file = await write('passwd', `${SECRET}\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n`);
    const error = await loadError(file);
    assert.equal(error.code, 'config_invalid');
    assert.match(error.message, /passwd is not valid JSON: unexpected character at line 1, column 1 \(position 0\)/);
    for (const word of ['root', 'SECRET', 'daemon', 'nologin']) assert.ok(!error.message.includes(word), error.message);

    const inside = await loadError(await write('inside.json', `{"turns": [\n  {"text": "ok"},\n  ${SECRET}\n]}`));
    assert.match(inside.message, /unexpected character at line 3, column 3 \(position 32\)/);
    assert.ok(!inside.message.includes('root') && !inside.message.includes('SECRET'), inside.message);
  });

  it(
    '/proc/self/environ: the error quotes none of the environment',
    { skip: !existsSync('/proc/self/environ') },
    async () => {
      const environ = readFileSync('/proc/self/environ', 'utf8');
      const error = await loadError('/proc/self/environ');
      const values = environ
        .split('\0')
        .map((entry) => entry.slice(entry.indexOf('=') + 1))
        .filter((v) => v.length >= 8);
      for (const value of [environ.slice(0, 8), ...values])
        if (value.length > 0) assert.ok(!error.message.includes(value), 'the message quotes the environment');
    },
  );

  it('secrets in unknown keys and wrong-typed values are not quoted', async () => {
    const file = await write(
      'keys.json',
      JSON.stringify({
        turns: [{ text: 5, [SECRET]: SECRET, usage: { promptTokens: 1.5, completionTokens: SECRET } }],
        [`${SECRET}-2`]: SECRET,
      }),
    );
    const error = await loadError(file);
    assert.match(error.message, /turns\[0\]\.text must be a string/);
    assert.match(error.message, /turns\[0\]\.usage\.promptTokens must be an integer/);
    assert.match(error.message, /turns\[0\]\.usage\.completionTokens must be a number/);
    assert.match(
      error.message,
      /turns\[0\] has an unknown key \(allowed: text, reasoning, error, toolCalls, finishReason, usage, delayMs\)/,
    );
    assert.ok(!error.message.includes('SECRET') && !JSON.stringify(error.details).includes('SECRET'), error.message);
  });

  it('property: parseScript quotes no string of its input', () => {
    const secret = fc.string({ maxLength: 6 }).map((s) => `SECRET${s}`);
    const key = fc.oneof(
      fc.constantFrom(
        'description',
        'turns',
        'text',
        'toolCalls',
        'finishReason',
        'usage',
        'delayMs',
        'id',
        'name',
        'arguments',
        'promptTokens',
        'completionTokens',
      ),
      secret,
    );
    const { value } = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        secret,
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      ),
    }));
    const script = fc.oneof(
      value,
      fc.dictionary(key, value, { maxKeys: 3 }).map((extra) => ({ ...extra, turns: [extra, extra] })),
    );
    fc.assert(
      fc.property(script, (input) => {
        try {
          parseScript(input, 'inline');
        } catch (error) {
          assert.ok(error instanceof ToolgateError);
          assert.ok(!error.message.includes('SECRET'), error.message);
          assert.ok(!JSON.stringify(error.details).includes('SECRET'));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('lists at most 20 problems', () => {
    const error = (() => {
      try {
        parseScript({ turns: Array.from({ length: 100 }, () => 'x') }, 'inline');
      } catch (e) {
        return e as ToolgateError;
      }
      assert.fail('expected an error');
    })();
    assert.equal((error.details?.['problems'] as string[]).length, 20);
    assert.match(error.message, /turns\[19\] must be an object; and 80 more problems$/);
  });
});
