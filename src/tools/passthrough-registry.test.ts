import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EVERYTHING_SERVER } from '../../test/support/processes.ts';
import { ToolgateError, type JsonObject, type PassthroughSource, type ToolSource } from '../core/index.ts';
import { McpToolSource } from './mcp/mcp-tool-source.ts';
import { SERVER_META_KEY, ToolRegistry } from './tool-registry.ts';

const fixture = (name: string): string => fileURLToPath(new URL(`../../test/fixtures/mcp/${name}`, import.meta.url));

/**
 * server-everything, a paginated server sharing a prompt name with it, a server without resources or prompts, and one
 * that cannot start.
 */
function realSources(): ToolSource[] {
  return [
    new McpToolSource({
      name: 'everything',
      server: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] },
    }),
    new McpToolSource({
      name: 'paged',
      server: { command: process.execPath, args: [fixture('paginated-resources-server.ts')] },
    }),
    new McpToolSource({ name: 'meta', server: { command: process.execPath, args: [fixture('meta-echo-server.ts')] } }),
    new McpToolSource({ name: 'ghost', server: { command: 'definitely-not-a-command-xyz' }, connectTimeoutMs: 3000 }),
  ];
}

const serverOf = (item: JsonObject): unknown => (item['_meta'] as JsonObject | undefined)?.[SERVER_META_KEY];

function rejectsWith(code: string, pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof ToolgateError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

describe('ToolRegistry passthrough over real MCP servers', () => {
  const registry = new ToolRegistry(realSources(), { retry: false });
  after(() => registry.close());

  it('reads a listed resource before anything was listed, from the server that lists it', async () => {
    const result = await registry.passthrough.readResource('paged://doc/1');
    assert.deepEqual(result, {
      contents: [{ uri: 'paged://doc/1', mimeType: 'text/plain', text: 'doc 1 from the paged server' }],
    });
  });

  it('lists every resource of the servers that are up, URIs unchanged, each tagged with its server', async () => {
    const resources = await registry.passthrough.listResources();
    assert.deepEqual(
      registry.health().map((h) => [h.name, h.state]),
      [
        ['everything', 'up'],
        ['paged', 'up'],
        ['meta', 'up'],
        ['ghost', 'down'],
      ],
    );
    const byServer = Map.groupBy(resources, serverOf);
    assert.deepEqual([...byServer.keys()], ['everything', 'paged']);
    assert.equal(byServer.get('paged')?.length, 5);
    assert.ok((byServer.get('everything')?.length ?? 0) > 1);
    assert.ok(resources.some((r) => r['uri'] === 'demo://resource/static/document/architecture.md'));
    const doc0 = resources.find((r) => r['uri'] === 'paged://doc/0');
    assert.deepEqual(
      doc0?.['_meta'],
      { 'example/origin': 'fixture', [SERVER_META_KEY]: 'paged' },
      'the _meta a resource had is kept',
    );
  });

  it('lists every resource template, tagged', async () => {
    const templates = await registry.passthrough.listResourceTemplates();
    assert.deepEqual(
      templates.map((t) => [serverOf(t), t['uriTemplate']]),
      [
        ['everything', 'demo://resource/dynamic/text/{resourceId}'],
        ['everything', 'demo://resource/dynamic/blob/{resourceId}'],
        ['paged', 'paged://item/{id}'],
        ['paged', 'paged://note/{id}'],
        ['paged', 'paged://log/{id}'],
      ],
    );
  });

  it('routes reads: listed URIs to their server, others to the first server with resources that has them', async () => {
    const doc = await registry.passthrough.readResource('demo://resource/static/document/features.md');
    assert.match(JSON.stringify(doc), /features\.md/);
    // Made from a template: everything is asked first and has no such resource, then paged answers.
    const item = await registry.passthrough.readResource('paged://note/42');
    assert.deepEqual(item, {
      contents: [{ uri: 'paged://note/42', mimeType: 'text/plain', text: 'note 42 from the paged server' }],
    });
    const text = await registry.passthrough.readResource('demo://resource/dynamic/text/5');
    assert.match(JSON.stringify(text), /Resource 5: This is a plaintext resource/);
  });

  it(
    'asks only the servers the caller accepts: a listed URI ' +
      'or one made from a template of another server is not found',
    async () => {
      const onlyEverything = { servers: (name: string) => name === 'everything' };
      await assert.rejects(
        registry.passthrough.readResource('paged://doc/1', onlyEverything),
        rejectsWith('not_found', /^no MCP server has resource "paged:\/\/doc\/1" \(tried everything\)/),
      );
      await assert.rejects(
        registry.passthrough.readResource('paged://note/42', onlyEverything),
        rejectsWith('not_found', /\(tried everything\)/),
      );
      const text = await registry.passthrough.readResource('demo://resource/dynamic/text/5', onlyEverything);
      assert.match(JSON.stringify(text), /Resource 5: This is a plaintext resource/);
      await assert.rejects(
        registry.passthrough.readResource('demo://resource/dynamic/text/5', { servers: () => false }),
        rejectsWith('not_found', /no server that is up \(and open to you\) offers resources/),
      );
    },
  );

  it('a URI no server has rejects not_found listing the servers tried and what each said', async () => {
    await assert.rejects(
      registry.passthrough.readResource('nowhere://x'),
      rejectsWith(
        'not_found',
        new RegExp(
          String.raw`^no MCP server has resource "nowhere:\/\/x" \(tried everything,` +
            String.raw` paged\): .*"everything": .*not found.*; .*"paged": .*not found`,
        ),
      ),
    );
  });

  it(
    'prefixes a prompt name two servers share with the server ' +
      'name and routes each to its server under its own name',
    async () => {
      const prompts = await registry.passthrough.listPrompts();
      assert.deepEqual(
        prompts.map((p) => [p['name'], serverOf(p)]),
        [
          ['everything_simple-prompt', 'everything'],
          ['args-prompt', 'everything'],
          ['completable-prompt', 'everything'],
          ['resource-prompt', 'everything'],
          ['paged_simple-prompt', 'paged'],
          ['summarize', 'paged'],
          ['paged-only', 'paged'],
        ],
      );
      const paged = await registry.passthrough.getPrompt('paged_simple-prompt');
      assert.deepEqual(paged, {
        messages: [{ role: 'user', content: { type: 'text', text: 'simple-prompt from the paged server' } }],
      });
      const everything = await registry.passthrough.getPrompt('everything_simple-prompt');
      assert.doesNotMatch(JSON.stringify(everything), /paged server/);
      assert.ok(Array.isArray(everything['messages']));
      const args = await registry.passthrough.getPrompt('args-prompt', { city: 'Lyon' });
      assert.match(JSON.stringify(args), /What's weather in Lyon\?/);
    },
  );

  it('an unknown prompt name rejects not_found naming the known prompts', async () => {
    await assert.rejects(
      registry.passthrough.getPrompt('simple-prompt'),
      rejectsWith(
        'not_found',
        /no prompt named "simple-prompt" \(known prompts: everything_simple-prompt, args-prompt, .*paged-only\)/,
      ),
    );
  });
});

/** An in-process source with resources and prompts; `fail` makes its listings reject, as a server gone away does. */
function fake(name: string, items: { uris?: string[]; prompts?: string[] }, fail = { value: false }): ToolSource {
  const reject = (): Promise<never> =>
    Promise.reject(new ToolgateError('tool_unavailable', `MCP server "${name}" went away`));
  const passthrough: PassthroughSource = {
    listResources: async () => (fail.value ? reject() : (items.uris ?? []).map((uri) => ({ uri, name: uri }))),
    listResourceTemplates: async () => (fail.value ? reject() : []),
    readResource: async (uri) => ({ contents: [{ uri, text: `${name}:${uri}` }] }),
    listPrompts: async () => (fail.value ? reject() : (items.prompts ?? []).map((p) => ({ name: p }))),
    getPrompt: async (prompt) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `${name}:${prompt}` } }],
    }),
  };
  return {
    name,
    passthrough,
    listTools: async () => [],
    callTool: async () => ({ ok: true, content: [] }),
    close: async () => undefined,
  };
}

describe('ToolRegistry passthrough: a source that fails to list', () => {
  it('is left out of resource listings without breaking them', async () => {
    const registry = new ToolRegistry(
      [fake('a', { uris: ['x://1'] }), fake('b', { uris: ['y://1'] }, { value: true }), fake('c', { uris: ['z://1'] })],
      { retry: false },
    );
    assert.deepEqual(
      (await registry.passthrough.listResources()).map((r) => [r['uri'], serverOf(r)]),
      [
        ['x://1', 'a'],
        ['z://1', 'c'],
      ],
    );
    assert.deepEqual(await registry.passthrough.readResource('z://1'), {
      contents: [{ uri: 'z://1', text: 'c:z://1' }],
    });
  });

  it("keeps the other servers' prompt names while it is away, and is not offered", async () => {
    const failing = { value: false };
    const registry = new ToolRegistry(
      [fake('a', { prompts: ['review'] }), fake('b', { prompts: ['review', 'plan'] }, failing)],
      { retry: false },
    );
    assert.deepEqual(
      (await registry.passthrough.listPrompts()).map((p) => p['name']),
      ['a_review', 'b_review', 'plan'],
    );
    failing.value = true;
    assert.deepEqual(
      (await registry.passthrough.listPrompts()).map((p) => p['name']),
      ['a_review'],
    );
    const result = await registry.passthrough.getPrompt('a_review');
    assert.match(JSON.stringify(result), /a:review/);
    await assert.rejects(registry.passthrough.getPrompt('plan'), rejectsWith('not_found', /known prompts: a_review\)/));
  });
});
