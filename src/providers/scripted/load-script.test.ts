import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { loadScript } from './load-script.ts';
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

async function loadError(file: string): Promise<ToolgateError> {
  try {
    await loadScript(file);
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
      JSON.stringify({ description: 'demo', turns: [{ text: 'hi', toolCalls: [{ name: 'f', arguments: '{broken' }], delayMs: 0, usage: { promptTokens: 1, completionTokens: 2 } }, {}] }),
    );
    const script = await loadScript(file);
    assert.equal(script.turns.length, 2);
    assert.equal(script.turns[0]?.toolCalls?.[0]?.arguments, '{broken');
  });

  it('names the file and the bad path', async () => {
    const file = await write(
      'bad-args.json',
      JSON.stringify({ turns: [{ text: 'a' }, { text: 'b' }, { toolCalls: [{ name: 'f', arguments: { area: 'DE' } }] }] }),
    );
    const error = await loadError(file);
    assert.equal(error.code, 'config_invalid');
    assert.ok(error.message.includes(file), error.message);
    assert.match(error.message, /turns\[2\]\.toolCalls\[0\]\.arguments must be a string/);
  });

  it('reports missing fields, wrong types and unknown keys together', async () => {
    const file = await write('many.json', JSON.stringify({ turns: [{ toolcalls: [] }, { toolCalls: [{ arguments: '{}' }], delayMs: -1 }, 'text'] }));
    const { message, details } = await loadError(file);
    assert.match(message, /turns\[0\] has unknown key "toolcalls"/);
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
    assert.throws(() => parseScript({}, 'inline'), (e: unknown) => e instanceof ToolgateError && /inline: turns is missing \(expected an array\)/.test(e.message));
  });

  it('formatPath', () => {
    assert.equal(formatPath(['turns', 2, 'toolCalls', 0, 'arguments']), 'turns[2].toolCalls[0].arguments');
    assert.equal(formatPath([]), 'the script');
  });
});
