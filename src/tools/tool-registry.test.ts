import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOOL_NAME_PATTERN, type CallToolRequest, type ToolResult, type ToolSource, type ToolSpec } from '../core/index.ts';
import { ToolRegistry, sanitizeToolName } from './tool-registry.ts';

function source(server: string, names: string[]): ToolSource & { calls: CallToolRequest[] } {
  const calls: CallToolRequest[] = [];
  return {
    name: server,
    calls,
    listTools: async () =>
      names.map((n): ToolSpec => ({ name: n, description: '', inputSchema: { type: 'object' }, origin: { kind: 'mcp', server, tool: n } })),
    callTool: async (req): Promise<ToolResult> => {
      calls.push(req);
      return { ok: true, content: [{ type: 'text', text: `${server}:${req.name}` }] };
    },
    close: async () => undefined,
  };
}

describe('ToolRegistry', () => {
  it('prefixes colliding names with the server name and routes calls to the right server under its own name', async () => {
    const a = source('alpha', ['search', 'only_a']);
    const b = source('beta', ['search', 'fs.read']);
    const registry = new ToolRegistry([a, b]);
    const names = (await registry.listTools()).map((t) => t.name).sort();
    assert.deepEqual(names, ['alpha_search', 'beta_search', 'fs_read', 'only_a']);
    const result = await registry.callTool({ name: 'beta_search', arguments: {} });
    assert.deepEqual(result.content, [{ type: 'text', text: 'beta:search' }]);
    await registry.callTool({ name: 'fs_read', arguments: { p: 1 } });
    assert.deepEqual(b.calls.map((c) => c.name), ['search', 'fs.read']);
    assert.equal(a.calls.length, 0);
  });

  it('answers an unknown name with tool_not_found instead of throwing', async () => {
    const result = await new ToolRegistry([source('s', ['x'])]).callTool({ name: 'y', arguments: {} });
    assert.equal(result.ok, false);
    assert.equal(result.error?.code, 'tool_not_found');
  });

  it('keeps names unique even when prefixing collides again', async () => {
    const registry = new ToolRegistry([source('s', ['t']), source('s', ['t']), source('s', ['s_t'])]);
    const names = (await registry.listTools()).map((t) => t.name);
    assert.equal(new Set(names).size, names.length, names.join(','));
    for (const n of names) assert.match(n, TOOL_NAME_PATTERN);
  });
});

describe('sanitizeToolName', () => {
  it('always yields a name every model API accepts', () => {
    for (const raw of ['ok_name', 'with space', 'dots.and/slashes', 'ünïcode', '', '---', 'x'.repeat(100), 'a:b']) {
      assert.match(sanitizeToolName(raw), TOOL_NAME_PATTERN, raw);
    }
    assert.equal(sanitizeToolName('get-sum'), 'get-sum');
    assert.equal(sanitizeToolName('fs.read'), 'fs_read');
  });
});
