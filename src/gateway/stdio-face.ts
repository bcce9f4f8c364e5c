import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { PassthroughSource } from '../core/index.ts';
import type { Gateway } from './gateway.ts';
import type { GatewayEndpoint } from './endpoints.ts';
import type { GatewayIdentity } from './gateway-session.ts';
import { createGatewayServer } from './mcp-server.ts';
import { StdioListen } from './stdio-listen.ts';

const STDIO_SESSION = 'stdio';

/**
 * The gateway over this process's stdin/stdout, for clients that spawn their
 * servers (Claude Desktop, Cursor, IDEs): one connection, one session, one
 * run, acting for the configured identity. The session's run completes when
 * the client closes stdin. Nothing but MCP messages may go to stdout.
 */
export function serveGatewayStdio(
  gateway: Gateway,
  /** `endpoint`: the virtual server served (`--endpoint`, `gateway.identity.endpoint`); absent: the plain one. */
  as: { identity: GatewayIdentity; endpoint?: GatewayEndpoint | undefined },
  passthrough: PassthroughSource | undefined,
): { close(reason: string): Promise<void>; closed: Promise<string> } {
  const { identity, endpoint } = as;
  // A 2026-07-28 client's subscriptions/listen is prepared and told per stream by the gateway (stdio-listen.ts).
  const transport = new StdioListen({
    inner: new StdioServerTransport(),
    gateway,
    passthrough,
    call: { identity, endpoint, sessionKey: () => STDIO_SESSION },
  });
  const handle = serveStdio(
    () =>
      createGatewayServer(
        gateway,
        { transport: 'stdio', identity, persistent: true, sessionKey: () => STDIO_SESSION, endpoint },
        passthrough,
      ),
    {
      transport,
      onerror: (error) => gateway.options.onError?.(`gateway (MCP over stdio): ${error.message}`),
    },
  );
  const closed = new Promise<string>((resolve) => {
    process.stdin.once('end', () => resolve('the client closed stdin'));
    process.stdin.once('close', () => resolve('the client closed stdin'));
  });
  return {
    closed,
    close: async (reason) => {
      // A store that is unavailable at this moment must not keep the stop from closing the connection.
      await gateway
        .endSession(STDIO_SESSION, reason)
        .catch((error: unknown) =>
          gateway.options.onError?.(`gateway session ${STDIO_SESSION} did not end cleanly: ${String(error)}`),
        );
      await handle.close();
    },
  };
}
