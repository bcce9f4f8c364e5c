// The registry as a ToolSource: an MCP server (a real process) and tools defined in
// code behind one name space. Both offer the contract tools, so every name is
// prefixed with its server's; the roles are spread over both sources. Down, one
// source fails alone: the others keep serving and `listing()` names the one down.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LocalToolSource } from '../../src/tools/local/local-tool-source.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';
import { contractLocalTools, contractMcpSource, crashingMcpSource } from '../support/contract-tools.ts';
import { call, toolSourceContract } from './tool-source.contract.ts';

function local(): LocalToolSource {
  return new LocalToolSource({ name: 'local', tools: contractLocalTools() });
}

toolSourceContract('ToolSource contract: ToolRegistry (an MCP server and tools in code)', {
  open: async () => ({
    source: new ToolRegistry([contractMcpSource({ name: 'remote' }), local()], { retry: false }),
    tools: {
      echo: 'remote_echo',
      reportError: 'local_report_error',
      throws: 'remote_throw',
      slow: 'local_slow',
      crash: 'remote_crash',
    },
    crashCode: 'tool_unavailable',
  }),
  down: {
    'one MCP server dies before the handshake': async () => ({
      source: new ToolRegistry([crashingMcpSource('crm'), local()], { retry: false }),
      server: 'crm',
      alive: 'echo',
    }),
    'one MCP server exits and cannot start again': async () => {
      const dir = mkdtempSync(join(tmpdir(), 'toolgate-contract-'));
      const source = new ToolRegistry(
        [contractMcpSource({ name: 'remote', startOnce: join(dir, 'started') }), local()],
        { retry: false },
      );
      await call(source, { name: 'remote_crash', arguments: {} });
      return {
        source,
        server: 'remote',
        tool: 'remote_echo',
        alive: 'local_echo',
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
});

describe('ToolRegistry over real sources', () => {
  it('a call routes to its source under the tool name that source knows', async () => {
    const registry = new ToolRegistry([contractMcpSource({ name: 'remote' }), local()], { retry: false });
    try {
      const specs = await registry.listTools();
      assert.deepEqual(
        specs.filter((s) => s.name.endsWith('_echo')).map((s) => [s.name, s.origin]),
        [
          ['remote_echo', { kind: 'mcp', server: 'remote', tool: 'echo' }],
          ['local_echo', { kind: 'local', server: 'local', tool: 'echo' }],
        ],
      );
      const [remote, inCode] = await Promise.all([
        call(registry, { name: 'remote_echo', arguments: { text: 'from the server' } }),
        call(registry, { name: 'local_echo', arguments: { text: 'from code' } }),
      ]);
      assert.deepEqual(
        [remote.content, inCode.content],
        [[{ type: 'text', text: 'from the server' }], [{ type: 'text', text: 'from code' }]],
      );
    } finally {
      await registry.close();
    }
  });

  it('a server that crashed in a call is started again by the next one: it was never reported down', async () => {
    const registry = new ToolRegistry([contractMcpSource({ name: 'remote' }), local()], { retry: false });
    try {
      const crashed = await call(registry, { name: 'remote_crash', arguments: {} });
      assert.equal(crashed.error?.code, 'tool_unavailable');
      const again = await call(registry, { name: 'remote_echo', arguments: { text: 'restarted' } });
      assert.equal(again.ok, true, JSON.stringify(again.error));
      assert.deepEqual((await registry.listing()).unavailable, []);
      assert.deepEqual(
        registry.health().map((h) => [h.name, h.state]),
        [
          ['remote', 'up'],
          ['local', 'up'],
        ],
      );
    } finally {
      await registry.close();
    }
  });
});
