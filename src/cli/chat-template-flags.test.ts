// --chat-template for `run` and `parse`, and `parse --explain`, through the CLI's own entry point.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { checkConfiguredFormats } from '../app/call-formats.ts';
import { main } from './main.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-chat-template-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const TEMPLATES = fileURLToPath(new URL('../../test/fixtures/templates/', import.meta.url));
const QWEN3 = join(TEMPLATES, 'Qwen-Qwen3-0.6B.jinja');

async function cli(argv: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { TOOLGATE_HOME: join(dir, 'home') },
    cwd: dir,
    ...(stdin === undefined
      ? {}
      : {
          stdin: (async function* () {
            yield Buffer.from(stdin);
          })() as unknown as NodeJS.ReadStream,
        }),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('toolgate parse --chat-template', () => {
  it('--explain prints the derived format in words, then the format as JSON', async () => {
    const result = await cli(['parse', '--chat-template', QWEN3, '--explain']);
    assert.equal(result.code, 0, result.stderr);
    const at = result.stdout.indexOf('\n{');
    assert.ok(at > 0, 'words first, then JSON');
    const format = JSON.parse(result.stdout.slice(at + 1)) as { id: string; origin?: string; call: { begin: string } };
    assert.match(format.id, /^template:/);
    assert.equal(format.call.begin, '<tool_call>');
    // Ready to paste into parsing.formats: the config's checker takes it as it is.
    assert.equal(format.origin, undefined);
    assert.equal(checkConfiguredFormats([format])[0]?.call.begin, '<tool_call>');
  });

  it('parses with the derived format added', async () => {
    const reply = join(dir, 'reply.txt');
    writeFileSync(
      reply,
      'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    );
    const result = await cli(['parse', '--chat-template', QWEN3, '--tools', 'get_weather', reply]);
    assert.equal(result.code, 0, result.stderr);
    const parsed = JSON.parse(result.stdout) as { calls: { name: string; arguments: unknown }[] };
    assert.deepEqual(
      parsed.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Paris' }]],
    );
  });

  it(
    'a template that cannot be analysed: --explain exits 1 ' +
      'with the reason; parsing goes on with the built-in formats',
    async () => {
      const plain = join(dir, 'plain.jinja');
      writeFileSync(plain, '{% for m in messages %}{{ m.content }}{% endfor %}');
      const explain = await cli(['parse', '--chat-template', plain, '--explain']);
      assert.equal(explain.code, 1);
      assert.match(explain.stderr, /^toolgate: the chat template .*could not be/);
      const parsed = await cli(
        ['parse', '--chat-template', plain, '--tools', 'a'],
        '<tool_call>{"name": "a", "arguments": {}}</tool_call>',
      );
      assert.equal(parsed.code, 0, parsed.stderr);
      assert.match(parsed.stderr, /⚠ .*built-in formats only/);
      assert.equal((JSON.parse(parsed.stdout) as { calls: unknown[] }).calls.length, 1);
    },
  );

  it('--explain needs --chat-template, and parses nothing', async () => {
    assert.equal((await cli(['parse', '--explain'])).code, 2);
    assert.equal((await cli(['parse', '--chat-template', QWEN3, '--explain', 'reply.txt'])).code, 2);
  });
});

describe('toolgate run --chat-template', () => {
  it('a template that cannot be used is a warning on stderr, and the run completes', async () => {
    const script = join(dir, 'script.json');
    writeFileSync(script, JSON.stringify({ turns: [{ text: 'Hello.' }] }));
    const result = await cli([
      'run',
      'hi',
      '--model',
      `scripted:${script}`,
      '--chat-template',
      './missing.jinja',
      '--store',
      'memory:',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Hello\./);
    assert.match(result.stderr, /⚠ the chat template of scripted:.*missing\.jinja.*built-in formats only/);
  });
});
