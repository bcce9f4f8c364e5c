// MCP servers as ToolSources: real server processes on the official SDK (the
// contract server over stdio), and servers that are down in each way one can be.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpToolSource } from '../../src/tools/mcp/mcp-tool-source.ts';
import { CONTRACT_TOOL_NAMES, contractMcpSource, crashingMcpSource } from '../support/contract-tools.ts';
import { freePort } from '../support/processes.ts';
import { call, toolSourceContract } from './tool-source.contract.ts';

toolSourceContract('ToolSource contract: McpToolSource (stdio)', {
  open: async () => ({
    source: contractMcpSource({ name: 'contract' }),
    tools: CONTRACT_TOOL_NAMES,
    crashCode: 'tool_unavailable',
  }),
  down: {
    'the server dies before the handshake': async () => ({
      source: crashingMcpSource('crm'),
      server: 'crm',
      tool: 'echo',
    }),
    'nothing listens at its URL': async () => {
      const url = `http://127.0.0.1:${await freePort()}/mcp`;
      return { source: new McpToolSource({ name: 'remote', server: { url } }), server: 'remote', tool: 'echo' };
    },
    'the server exits and cannot start again': async () => {
      const dir = mkdtempSync(join(tmpdir(), 'toolgate-contract-'));
      const source = contractMcpSource({ name: 'contract', startOnce: join(dir, 'started') });
      // Up once, then gone: the call in flight may have happened; what comes after never leaves.
      await call(source, { name: 'crash', arguments: {} });
      return {
        source,
        server: 'contract',
        tool: 'echo',
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
});
