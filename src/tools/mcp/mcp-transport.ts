import type { Transport } from '@modelcontextprotocol/client';
import { BoundedReadBuffer } from './bounded-read-buffer.ts';
import { boundedFetch } from './bounded-fetch.ts';
import type { McpServerConfig } from './mcp-server-config.ts';
import type { McpSdk } from './mcp-sdk.ts';
import { readLimits } from './read-limits.ts';
import { serverEnvironment } from './server-environment.ts';
import { StdioWatch } from './stdio-watch.ts';

export interface McpTransportOptions {
  server: McpServerConfig;
  /** The largest result kept (see readLimits). */
  maxResultBytes: number;
  /** Receives a stdio server's stderr, line by line. */
  onStderr?: ((line: string) => void) | undefined;
}

/**
 * The SDK transport for one server, reading every answer within bounds: a
 * Streamable HTTP transport over boundedFetch, or a stdio one with the
 * bounded read buffer and a watch on what the process shows of itself.
 */
export function createMcpTransport(
  sdk: McpSdk,
  options: McpTransportOptions,
): { transport: Transport; watch?: StdioWatch } {
  const { server } = options;
  const limits = readLimits(options.maxResultBytes);
  let transport: Transport | undefined;
  // What was dropped (a message of the server that answers nothing and is too large) goes where transport errors go.
  const onError = (error: Error): void => transport?.onerror?.(error);
  if ('url' in server) {
    transport = new sdk.client.StreamableHTTPClientTransport(new URL(server.url), {
      fetch: boundedFetch({ limits, onError }),
      ...(server.headers === undefined ? {} : { requestInit: { headers: server.headers } }),
    });
    return { transport };
  }
  const stdio = new sdk.stdio.StdioClientTransport({
    command: server.command,
    args: server.args ?? [],
    env: serverEnvironment({
      parent: process.env,
      sdkDefaults: sdk.stdio.getDefaultEnvironment(),
      inheritEnv: server.inheritEnv,
      env: server.env,
    }),
    stderr: 'pipe',
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
  });
  transport = stdio;
  useReadBuffer(stdio, new BoundedReadBuffer({ limits, deserialize: sdk.client.deserializeMessage, onError }));
  return { transport: stdio, watch: new StdioWatch(stdio, options.onStderr) };
}

/**
 * The SDK's stdio transport reads through its private `_readBuffer`
 * (append, readMessage, clear); the bounded one takes its place. Should a
 * later SDK read otherwise, its own buffer stays (whole messages up to 10 MB,
 * then it drops the connection), and the tests of the bounded reads fail.
 */
function useReadBuffer(transport: object, buffer: BoundedReadBuffer): void {
  const current: unknown = Reflect.get(transport, '_readBuffer');
  const fits =
    typeof current === 'object' &&
    current !== null &&
    ['append', 'readMessage', 'clear'].every((method) => typeof Reflect.get(current, method) === 'function');
  if (fits) Reflect.set(transport, '_readBuffer', buffer);
}
