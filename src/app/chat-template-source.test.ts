import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_MAX_TEMPLATE_FILE_BYTES, loadChatTemplate } from './chat-template-source.ts';

const TEMPLATE = '{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}';

/** GGUF v3 bytes: header, metadata key/values, no tensors (the format spec, written out by hand). */
function ggufBytes(metadata: [string, string | number | string[]][]): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const u64 = (n: number): Buffer => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const str = (s: string): Buffer => {
    const bytes = Buffer.from(s, 'utf8');
    return Buffer.concat([u64(bytes.length), bytes]);
  };
  parts.push(Buffer.from('GGUF', 'ascii'), u32(3), u64(0), u64(metadata.length));
  for (const [key, value] of metadata) {
    parts.push(str(key));
    if (typeof value === 'string') parts.push(u32(8), str(value));
    else if (typeof value === 'number') parts.push(u32(4), u32(value));
    else parts.push(u32(9), u32(8), u64(value.length), ...value.map(str));
  }
  return Buffer.concat(parts);
}

describe('loadChatTemplate', () => {
  let dir: string;
  let server: Server;
  let baseUrl: string;
  const answers = new Map<string, { status: number; body: string; delayMs?: number }>();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolgate-template-'));
    server = createServer((req, res) => {
      const answer = answers.get(req.url ?? '') ?? { status: 404, body: 'not found' };
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body);
      }, answer.delayMs ?? 0);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a .jinja file, relative to cwd', async () => {
    await writeFile(join(dir, 'model.jinja'), TEMPLATE);
    assert.deepEqual(await loadChatTemplate('model.jinja', { cwd: dir }), {
      ok: true,
      template: TEMPLATE,
      origin: 'model.jinja',
    });
  });

  it('says when the file is missing or empty', async () => {
    assert.deepEqual(await loadChatTemplate('nope.jinja', { cwd: dir }), {
      ok: false,
      reason: 'chat template file not found: nope.jinja',
    });
    await writeFile(join(dir, 'empty.jinja'), ' \n');
    assert.deepEqual(await loadChatTemplate('empty.jinja', { cwd: dir }), {
      ok: false,
      reason: 'empty.jinja is empty',
    });
  });

  it('reads chat_template and the special tokens (strings or {content}) of a tokenizer_config.json', async () => {
    await writeFile(
      join(dir, 'tokenizer_config.json'),
      JSON.stringify({ chat_template: TEMPLATE, bos_token: '<s>', eos_token: { content: '</s>', lstrip: false } }),
    );
    assert.deepEqual(await loadChatTemplate('tokenizer_config.json', { cwd: dir }), {
      ok: true,
      template: TEMPLATE,
      origin: 'tokenizer_config.json',
      bosToken: '<s>',
      eosToken: '</s>',
    });
  });

  it('picks tool_use from a named list, else default, or the one asked for', async () => {
    const list = [
      { name: 'default', template: 'D' },
      { name: 'tool_use', template: 'T' },
      { name: 'rag', template: 'R' },
    ];
    await writeFile(join(dir, 'named.json'), JSON.stringify({ chat_template: list }));
    assert.deepEqual(await loadChatTemplate('named.json', { cwd: dir }), {
      ok: true,
      template: 'T',
      origin: 'named.json (tool_use)',
    });
    assert.deepEqual(await loadChatTemplate('named.json', { cwd: dir, templateName: 'rag' }), {
      ok: true,
      template: 'R',
      origin: 'named.json (rag)',
    });
    await writeFile(join(dir, 'default-only.json'), JSON.stringify({ chat_template: [list[0]] }));
    assert.deepEqual(await loadChatTemplate('default-only.json', { cwd: dir }), {
      ok: true,
      template: 'D',
      origin: 'default-only.json (default)',
    });
    assert.deepEqual(await loadChatTemplate('named.json', { cwd: dir, templateName: 'chat' }), {
      ok: false,
      reason: 'named.json: no chat template named "chat" (it has: default, tool_use, rag)',
    });
  });

  it('says when the JSON is broken or has no chat_template', async () => {
    await writeFile(join(dir, 'broken.json'), '{"chat_template": ');
    const broken = await loadChatTemplate('broken.json', { cwd: dir });
    assert.equal(broken.ok, false);
    if (!broken.ok) assert.match(broken.reason, /^broken\.json is not valid JSON: /);
    await writeFile(join(dir, 'config.json'), JSON.stringify({ model_type: 'llama' }));
    const missing = await loadChatTemplate('config.json', { cwd: dir });
    assert.equal(missing.ok, false);
    if (!missing.ok) assert.match(missing.reason, /^config\.json has no chat_template key/);
  });

  it('reads tokenizer.chat_template (tool_use first) and the special tokens from GGUF metadata', async () => {
    await writeFile(
      join(dir, 'model.gguf'),
      ggufBytes([
        ['general.architecture', 'llama'],
        ['tokenizer.ggml.tokens', ['<unk>', '<s>', '</s>']],
        ['tokenizer.ggml.bos_token_id', 1],
        ['tokenizer.ggml.eos_token_id', 2],
        ['tokenizer.chat_template', TEMPLATE],
        ['tokenizer.chat_template.tool_use', `${TEMPLATE}{# tools #}`],
      ]),
    );
    assert.deepEqual(await loadChatTemplate('model.gguf', { cwd: dir }), {
      ok: true,
      template: `${TEMPLATE}{# tools #}`,
      origin: 'model.gguf (tokenizer.chat_template.tool_use)',
      bosToken: '<s>',
      eosToken: '</s>',
    });
  });

  it('says when a GGUF file has no chat template, or is not GGUF', async () => {
    await writeFile(join(dir, 'bare.gguf'), ggufBytes([['general.architecture', 'llama']]));
    const bare = await loadChatTemplate('bare.gguf', { cwd: dir });
    assert.equal(bare.ok, false);
    if (!bare.ok) assert.match(bare.reason, /bare\.gguf has no tokenizer\.chat_template metadata/);
    await writeFile(join(dir, 'fake.gguf'), 'not a gguf file at all');
    const fake = await loadChatTemplate('fake.gguf', { cwd: dir });
    assert.equal(fake.ok, false);
    if (!fake.ok) assert.match(fake.reason, /fake\.gguf could not be read as GGUF/);
  });

  it('asks the server: GET {base}/props, with /v1 dropped from the base URL', async () => {
    answers.set('/props', {
      status: 200,
      body: JSON.stringify({ chat_template: TEMPLATE, bos_token: '<s>', eos_token: '</s>', total_slots: 1 }),
    });
    assert.deepEqual(await loadChatTemplate('server', { cwd: dir, baseUrl: `${baseUrl}/v1/` }), {
      ok: true,
      template: TEMPLATE,
      origin: `${baseUrl}/props`,
      bosToken: '<s>',
      eosToken: '</s>',
    });
  });

  it('says what the server got wrong: 404, not JSON, no chat_template, too slow, no base URL', async () => {
    answers.delete('/props');
    assert.deepEqual(await loadChatTemplate('server', { cwd: dir, baseUrl }), {
      ok: false,
      reason:
        `GET ${baseUrl}/props answered 404 (the server does ` +
        `not publish its chat template; llama.cpp's server does)`,
    });
    answers.set('/props', { status: 200, body: '<html>' });
    assert.deepEqual(await loadChatTemplate('server', { cwd: dir, baseUrl }), {
      ok: false,
      reason: `GET ${baseUrl}/props did not answer JSON`,
    });
    answers.set('/props', { status: 200, body: '{"total_slots": 1}' });
    assert.deepEqual(await loadChatTemplate('server', { cwd: dir, baseUrl }), {
      ok: false,
      reason: `GET ${baseUrl}/props answered without a chat_template`,
    });
    answers.set('/props', { status: 200, body: '{}', delayMs: 2000 });
    assert.deepEqual(await loadChatTemplate('server', { cwd: dir, baseUrl, timeoutMs: 100 }), {
      ok: false,
      reason: `GET ${baseUrl}/props timed out after 100 ms`,
    });
    assert.deepEqual(await loadChatTemplate('server', { cwd: dir }), {
      ok: false,
      reason: 'the chat template source "server" needs the model\'s base URL',
    });
  });

  it('stops reading an answer larger than any /props answer', async () => {
    answers.set('/props', {
      status: 200,
      body: `{"chat_template": "${'x'.repeat(DEFAULT_MAX_TEMPLATE_FILE_BYTES + 1)}"}`,
    });
    assert.deepEqual(await loadChatTemplate('server', { cwd: dir, baseUrl }), {
      ok: false,
      reason:
        `GET ${baseUrl}/props answered more than ${DEFAULT_MAX_TEMPLATE_FILE_BYTES} ` +
        `bytes (a /props answer with a chat template is far smaller)`,
    });
  });
});
