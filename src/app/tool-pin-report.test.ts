import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, type ToolSource, type ToolSpec } from '../core/index.ts';
import { checkToolPins } from '../gateway/tool-pins.ts';
import { acceptTools, toolPinReport } from './tool-pin-report.ts';
import { Toolgate } from './toolgate.ts';

function spec(server: string, tool: string, description: string, kind: 'mcp' | 'local' = 'mcp'): ToolSpec {
  return { name: `${server}_${tool}`, description, inputSchema: { type: 'object' }, origin: { kind, server, tool } };
}

/** A source whose listing the test changes between calls. */
function source(name: string, tools: () => ToolSpec[]): ToolSource {
  return {
    name,
    listTools: async () => tools(),
    callTool: async () => ({ ok: true, content: [] }) as never,
    close: async () => undefined,
  };
}

async function setUp(): Promise<{ toolgate: Toolgate; tools: ToolSpec[] }> {
  const tools = [
    spec('crm', 'list_orders', 'Lists orders'),
    spec('crm', 'get_order', 'Reads one order'),
    spec('app', 'lookup', 'Local', 'local'),
  ];
  const toolgate = new Toolgate({ tools: [source('crm', () => tools)], toolRetry: false });
  return { toolgate, tools };
}

describe('toolPinReport and acceptTools', () => {
  it('reports MCP tools as new without pinning them, then pinned once the gateway saw them', async () => {
    const { toolgate, tools } = await setUp();
    try {
      assert.deepEqual(
        (await toolPinReport(toolgate)).map((s) => [s.name, s.status]),
        [
          ['crm_list_orders', 'new'],
          ['crm_get_order', 'new'],
        ],
      );
      assert.deepEqual(await toolgate.store.listToolPins(), []);
      await checkToolPins(toolgate.store, tools, () => '2025-01-01T00:00:00.000Z');
      const report = await toolPinReport(toolgate);
      assert.deepEqual(
        report.map((s) => [s.status, s.pinnedAt, s.acceptedBy]),
        [
          ['pinned', '2025-01-01T00:00:00.000Z', 'first-seen'],
          ['pinned', '2025-01-01T00:00:00.000Z', 'first-seen'],
        ],
      );
    } finally {
      await toolgate.close();
    }
  });

  it('accepts a changed tool by its listed name or server/tool; all takes every changed and new one', async () => {
    const { toolgate, tools } = await setUp();
    try {
      await checkToolPins(toolgate.store, tools, () => '2025-01-01T00:00:00.000Z');
      tools[0] = spec('crm', 'list_orders', 'Lists orders, and more');
      tools[1] = spec('crm', 'get_order', 'Reads one order, and more');
      const changed = await toolPinReport(toolgate);
      assert.deepEqual(
        changed.map((s) => s.changes),
        [
          ['description changed: "Lists orders" → "Lists orders, and more"'],
          ['description changed: "Reads one order" → "Reads one order, and more"'],
        ],
      );

      const [first] = await acceptTools(toolgate, ['crm/list_orders'], 'alice');
      assert.equal(first?.status, 'pinned');
      assert.equal(first?.acceptedBy, 'alice');
      assert.deepEqual(first?.changes, ['description changed: "Lists orders" → "Lists orders, and more"']);
      assert.deepEqual(
        (await toolPinReport(toolgate)).map((s) => s.status),
        ['pinned', 'changed'],
      );

      const rest = await acceptTools(toolgate, 'all', 'bob');
      assert.deepEqual(
        rest.map((s) => [s.name, s.acceptedBy]),
        [['crm_get_order', 'bob']],
      );
      assert.deepEqual(await acceptTools(toolgate, 'all', 'bob'), []);
      assert.deepEqual(
        (await toolgate.store.listToolPins()).map((p) => [p.tool, p.acceptedBy]),
        [
          ['get_order', 'bob'],
          ['list_orders', 'alice'],
        ],
      );
    } finally {
      await toolgate.close();
    }
  });

  it('refuses an unknown name, listing the known ones, and accepts nothing then', async () => {
    const { toolgate } = await setUp();
    try {
      await assert.rejects(acceptTools(toolgate, ['crm_list_orders', 'crm_lst_orders'], 'alice'), (error: unknown) => {
        assert.ok(error instanceof ToolgateError);
        assert.equal(error.code, 'usage');
        assert.match(
          error.message,
          new RegExp(
            String.raw`unknown tool "crm_lst_orders" — did you mean "crm_list` +
              String.raw`_orders"\? Known tools: crm_list_orders, crm_get_order`,
          ),
        );
        return true;
      });
      assert.deepEqual(await toolgate.store.listToolPins(), []);
    } finally {
      await toolgate.close();
    }
  });
});
