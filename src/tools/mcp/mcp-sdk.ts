/*
 * The MCP SDK, loaded when the first server is connected rather than at
 * start: it is the largest thing toolgate imports, and a run, `--help` or a
 * server without MCP servers never needs it.
 */
import type * as McpClient from '@modelcontextprotocol/client';
import type * as McpStdio from '@modelcontextprotocol/client/stdio';

export type McpClientModule = typeof McpClient;
export type McpStdioModule = typeof McpStdio;

export interface McpSdk {
  client: McpClientModule;
  stdio: McpStdioModule;
}

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([import('@modelcontextprotocol/client'), import('@modelcontextprotocol/client/stdio')]).then(
    ([client, stdio]) => ({ client, stdio }),
  );
  return loading;
}
