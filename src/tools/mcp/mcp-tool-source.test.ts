import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVERYTHING_SERVER, startEverythingHttp, type StartedProcess } from '../../../test/support/processes.ts';
import { McpToolSource } from './mcp-tool-source.ts';

function everythingStdio(): McpToolSource {
  return new McpToolSource({
    name: 'everything',
    server: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] },
  });
}

describe('McpToolSource over stdio (official server-everything)', () => {
  const source = everythingStdio();
  after(() => source.close());

  it('lists tools with schemas, annotations and origin', async () => {
    const tools = await source.listTools();
    const sum = tools.find((t) => t.name === 'get-sum');
    assert.ok(sum, `get-sum missing from ${tools.map((t) => t.name).join(', ')}`);
    assert.deepEqual(sum.origin, { kind: 'mcp', server: 'everything', tool: 'get-sum' });
    assert.equal(sum.annotations?.readOnlyHint, true);
    assert.deepEqual(sum.inputSchema['required'], ['a', 'b']);
    assert.ok(tools.length >= 10);
  });

  it('calls a tool and maps text content', async () => {
    const result = await source.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
    assert.equal(result.ok, true);
    assert.deepEqual(result.content, [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }]);
  });

  it('maps structured content and images', async () => {
    const structured = await source.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } });
    assert.equal(structured.ok, true);
    assert.equal(typeof structured.structuredContent, 'object');
    assert.ok(structured.structuredContent !== null && 'temperature' in (structured.structuredContent as object));
    const image = await source.callTool({ name: 'get-tiny-image', arguments: {} });
    assert.ok(image.content.some((c) => c.type === 'image' && c.mimeType === 'image/png' && c.data.length > 10));
  });

  it('turns a server-side error into ok:false with the server message', async () => {
    const result = await source.callTool({ name: 'get-sum', arguments: { a: 'x' } });
    assert.equal(result.ok, false);
    assert.equal(result.error?.code, 'tool_error');
    assert.match(result.error?.message ?? '', /expected number/);
  });

  it('times out a slow call as tool_timeout and keeps working afterwards', async () => {
    const slow = await source.callTool({
      name: 'trigger-long-running-operation',
      arguments: { duration: 5, steps: 5 },
      timeoutMs: 300,
    });
    assert.equal(slow.ok, false);
    assert.equal(slow.error?.code, 'tool_timeout');
    assert.match(slow.error?.message ?? '', /300 ms/);
    const next = await source.callTool({ name: 'echo', arguments: { message: 'still here' } });
    assert.equal(next.ok, true);
    assert.match(JSON.stringify(next.content), /still here/);
  });

  it('an aborted call resolves as cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await source.callTool({
      name: 'trigger-long-running-operation',
      arguments: { duration: 5, steps: 5 },
      signal: controller.signal,
    });
    assert.equal(result.error?.code, 'cancelled');
  });
});

describe('McpToolSource over Streamable HTTP (official server-everything)', () => {
  let server: StartedProcess & { url: string };
  let source: McpToolSource;
  before(async () => {
    server = await startEverythingHttp();
    source = new McpToolSource({ name: 'everything-http', server: { url: server.url } });
  });
  after(async () => {
    await source.close();
    await server.stop();
  });

  it('lists and calls tools', async () => {
    const tools = await source.listTools();
    assert.ok(tools.some((t) => t.name === 'echo'));
    const result = await source.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }]);
  });

  it('reports an unreachable server as tool_unavailable, never throwing', async () => {
    const dead = new McpToolSource({ name: 'dead', server: { url: 'http://127.0.0.1:1/mcp' }, connectTimeoutMs: 2000 });
    const result = await dead.callTool({ name: 'x', arguments: {} });
    assert.equal(result.ok, false);
    assert.equal(result.error?.code, 'tool_unavailable');
    assert.match(result.error?.message ?? '', /could not start MCP server "dead" \(http:\/\/127\.0\.0\.1:1\/mcp\)/);
    await assert.rejects(dead.listTools(), /dead/);
    await dead.close();
  });
});

describe('McpToolSource start failures', () => {
  it('a command that does not exist is a clear tool_unavailable', async () => {
    const bad = new McpToolSource({
      name: 'ghost',
      server: { command: 'definitely-not-a-command-xyz' },
      connectTimeoutMs: 3000,
    });
    const result = await bad.callTool({ name: 'x', arguments: {} });
    assert.equal(result.error?.code, 'tool_unavailable');
    assert.match(result.error?.message ?? '', /ghost.*definitely-not-a-command-xyz/);
    await bad.close();
  });
});

describe('McpToolSource pagination', () => {
  it('lists every page of a paginated tools/list', async () => {
    const server = new URL('../../../test/fixtures/mcp/paginated-server.ts', import.meta.url).pathname;
    const source = new McpToolSource({ name: 'paged', server: { command: process.execPath, args: [server] } });
    try {
      const tools = await source.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        Array.from({ length: 8 }, (_, i) => `tool_${i}`),
      );
      const result = await source.callTool({ name: 'tool_7', arguments: {} });
      assert.deepEqual(result.content, [{ type: 'text', text: 'tool_7 called' }]);
    } finally {
      await source.close();
    }
  });
});
