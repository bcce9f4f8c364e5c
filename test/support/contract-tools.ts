// The tools of the ToolSource contract (test/contract/tool-source.contract.ts) in
// each kind of source: the contract MCP server over stdio, and the same tools
// defined in code.
import { fileURLToPath } from 'node:url';
import { McpToolSource } from '../../src/tools/mcp/mcp-tool-source.ts';
import { defineTool, type LocalTool } from '../../src/tools/local/define-tool.ts';
import { WITH_COMPILE_CACHE } from './processes.ts';

export const CONTRACT_SERVER = fileURLToPath(new URL('../fixtures/mcp/contract-server.ts', import.meta.url));
export const CRASH_AT_START = fileURLToPath(new URL('../fixtures/mcp/crash-at-start.ts', import.meta.url));

/** For servers that must start on a loaded machine, and fail fast when they cannot. */
const CONNECT_TIMEOUT_MS = 15_000;

/** The contract server as an MCP source; `startOnce`: a file that makes its second start fail. */
export function contractMcpSource(options: { name: string; startOnce?: string }): McpToolSource {
  const once = options.startOnce === undefined ? [] : ['--start-once', options.startOnce];
  return new McpToolSource({
    name: options.name,
    server: { command: process.execPath, args: [WITH_COMPILE_CACHE, CONTRACT_SERVER, ...once] },
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  });
}

/** A server that dies before the handshake, saying why on stderr. */
export function crashingMcpSource(name: string): McpToolSource {
  return new McpToolSource({
    name,
    server: { command: process.execPath, args: [CRASH_AT_START] },
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  });
}

const textInput = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const noInput = { type: 'object', properties: {} };

/** The contract server's tools, defined in code. `crash`: its promise rejects with something that is not an Error. */
export function contractLocalTools(): LocalTool[] {
  return [
    defineTool({
      name: 'echo',
      description: 'Answers with its text.',
      inputSchema: textInput,
      effect: 'read',
      execute: (args) => String(args['text']),
    }),
    defineTool({
      name: 'report_error',
      description: 'Always reports a failure.',
      inputSchema: noInput,
      effect: 'read',
      execute: () => ({ content: [{ type: 'text', text: 'the order book is closed' }], isError: true }),
    }),
    defineTool({
      name: 'throw',
      description: 'Its code throws.',
      inputSchema: noInput,
      effect: 'read',
      execute: () => {
        throw new Error('out of paper');
      },
    }),
    defineTool({
      name: 'slow',
      description: 'Answers late, whatever its signal says.',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
      effect: 'read',
      execute: async (args) => {
        const ms = typeof args['ms'] === 'number' ? args['ms'] : 30_000;
        // Unref'd: a call abandoned by its timeout does not keep the test process alive.
        await new Promise((resolve) => setTimeout(resolve, ms).unref());
        return 'finally';
      },
    }),
    defineTool({
      name: 'crash',
      description: 'Dies mid-call.',
      inputSchema: noInput,
      effect: 'read',
      execute: () => Promise.reject(undefined),
    }),
    defineTool({
      name: 'record',
      description: 'Records a note.',
      inputSchema: textInput,
      effect: 'write',
      execute: (args) => `recorded ${String(args['text'])}`,
    }),
  ];
}

export const CONTRACT_TOOL_NAMES = {
  echo: 'echo',
  reportError: 'report_error',
  throws: 'throw',
  slow: 'slow',
  crash: 'crash',
} as const;
