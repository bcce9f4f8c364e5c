import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EVERYTHING_SERVER } from '../../../test/support/processes.ts';
import { ToolgateError, type ErrorCode } from '../../core/index.ts';
import { McpToolSource } from './mcp-tool-source.ts';

const fixture = (name: string): string => fileURLToPath(new URL(`../../../test/fixtures/mcp/${name}`, import.meta.url));
const EVERYTHING_DOCS = new URL(
  '../../../node_modules/@modelcontextprotocol/server-everything/dist/docs/',
  import.meta.url,
);

function rejectsWith(code: ErrorCode, pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof ToolgateError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

describe('McpToolSource passthrough: server-everything over stdio', () => {
  const source = new McpToolSource({
    name: 'everything',
    server: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] },
  });
  after(() => source.close());

  it('lists its resources as the server sent them', async () => {
    const resources = await source.passthrough.listResources();
    assert.ok(resources.length > 1, JSON.stringify(resources));
    const doc = resources.find((r) => r['uri'] === 'demo://resource/static/document/architecture.md');
    assert.deepEqual(doc, {
      name: 'architecture.md',
      uri: 'demo://resource/static/document/architecture.md',
      description: 'Static document file exposed from /docs: architecture.md',
      mimeType: 'text/markdown',
    });
  });

  it('lists its resource templates', async () => {
    const templates = await source.passthrough.listResourceTemplates();
    assert.deepEqual(templates.map((t) => t['uriTemplate']).sort(), [
      'demo://resource/dynamic/blob/{resourceId}',
      'demo://resource/dynamic/text/{resourceId}',
    ]);
  });

  it('reads a listed resource and one made from a template', async () => {
    const result = await source.passthrough.readResource('demo://resource/static/document/architecture.md');
    assert.deepEqual(result, {
      contents: [
        {
          uri: 'demo://resource/static/document/architecture.md',
          mimeType: 'text/markdown',
          text: readFileSync(new URL('architecture.md', EVERYTHING_DOCS), 'utf8'),
        },
      ],
    });
    const dynamic = await source.passthrough.readResource('demo://resource/dynamic/text/3');
    assert.match(JSON.stringify(dynamic), /Resource 3: This is a plaintext resource created at/);
  });

  it('an unknown URI rejects not_found, naming the server and carrying its message', async () => {
    await assert.rejects(
      source.passthrough.readResource('demo://nope'),
      rejectsWith('not_found', /MCP server "everything": .*Resource demo:\/\/nope not found/),
    );
  });

  it('lists prompts and gets one with arguments', async () => {
    const prompts = await source.passthrough.listPrompts();
    assert.deepEqual(prompts.map((p) => p['name']).sort(), [
      'args-prompt',
      'completable-prompt',
      'resource-prompt',
      'simple-prompt',
    ]);
    const result = await source.passthrough.getPrompt('args-prompt', { city: 'Paris', state: 'TX' });
    assert.deepEqual(result, {
      messages: [{ role: 'user', content: { type: 'text', text: "What's weather in Paris, TX?" } }],
    });
  });

  it('a prompt that does not exist is not_found; arguments the server refuses are invalid_arguments', async () => {
    await assert.rejects(
      source.passthrough.getPrompt('nope'),
      rejectsWith('not_found', /get prompt "nope" from MCP server "everything": .*Prompt nope not found/),
    );
    await assert.rejects(
      source.passthrough.getPrompt('args-prompt', {}),
      rejectsWith('invalid_arguments', /MCP server "everything": .*city/),
    );
  });

  it('an aborted request rejects as cancelled', async () => {
    await assert.rejects(
      source.passthrough.listResources({ signal: AbortSignal.abort() }),
      rejectsWith('cancelled', /everything/),
    );
  });
});

describe('McpToolSource passthrough: paginated lists', () => {
  const source = new McpToolSource({
    name: 'paged',
    server: { command: process.execPath, args: [fixture('paginated-resources-server.ts')] },
  });
  after(() => source.close());

  it("collects every page of resources, templates and prompts, keeping each item's _meta", async () => {
    const resources = await source.passthrough.listResources();
    assert.deepEqual(
      resources.map((r) => r['uri']),
      Array.from({ length: 5 }, (_, i) => `paged://doc/${i}`),
    );
    assert.deepEqual(resources[0]?.['_meta'], { 'example/origin': 'fixture' });
    assert.deepEqual(
      (await source.passthrough.listResourceTemplates()).map((t) => t['uriTemplate']),
      ['paged://item/{id}', 'paged://note/{id}', 'paged://log/{id}'],
    );
    assert.deepEqual(
      (await source.passthrough.listPrompts()).map((p) => p['name']),
      ['simple-prompt', 'summarize', 'paged-only'],
    );
  });

  it('reads a resource and gets a prompt', async () => {
    assert.deepEqual(await source.passthrough.readResource('paged://item/7'), {
      contents: [{ uri: 'paged://item/7', mimeType: 'text/plain', text: 'item 7 from the paged server' }],
    });
    assert.deepEqual(await source.passthrough.getPrompt('summarize', { topic: 'tides' }), {
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarise tides' } }],
    });
    await assert.rejects(
      source.passthrough.readResource('paged://doc/9'),
      rejectsWith('not_found', /"paged".*paged:\/\/doc\/9/),
    );
  });
});

describe('McpToolSource passthrough: servers without resources or prompts, or unreachable', () => {
  it('a server that offers neither lists none, and reading or getting rejects not_found naming it', async () => {
    const source = new McpToolSource({
      name: 'meta-echo',
      server: { command: process.execPath, args: [fixture('meta-echo-server.ts')] },
    });
    try {
      assert.deepEqual(await source.passthrough.listResources(), []);
      assert.deepEqual(await source.passthrough.listResourceTemplates(), []);
      assert.deepEqual(await source.passthrough.listPrompts(), []);
      await assert.rejects(
        source.passthrough.readResource('demo://x'),
        rejectsWith('not_found', /MCP server "meta-echo": it does not offer resources/),
      );
      await assert.rejects(
        source.passthrough.getPrompt('p'),
        rejectsWith('not_found', /MCP server "meta-echo": it does not offer prompts/),
      );
      // Its tools still work on the same connection.
      assert.deepEqual(
        (await source.listTools()).map((t) => t.name),
        ['echoMeta'],
      );
    } finally {
      await source.close();
    }
  });

  it('a server that cannot be started rejects tool_unavailable, naming it', async () => {
    const source = new McpToolSource({
      name: 'ghost',
      server: { command: 'definitely-not-a-command-xyz' },
      connectTimeoutMs: 3000,
    });
    try {
      await assert.rejects(
        source.passthrough.listResources(),
        rejectsWith('tool_unavailable', /ghost.*definitely-not-a-command-xyz/),
      );
      await assert.rejects(source.passthrough.getPrompt('p'), rejectsWith('tool_unavailable', /ghost/));
    } finally {
      await source.close();
    }
  });
});
