// A TCP proxy a test controls, put between a process and a server (PostgreSQL)
// to play the network or the server going away: `cut` drops every connection
// and refuses new ones (the port stops listening: ECONNREFUSED), `restore`
// listens again on the same port; `dropOnNextWrite` leaves the open connections
// looking alive until their client sends on them, then resets them (a pooled
// connection the server ended while it sat idle), and lets new ones through.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The port the proxy listens on (the same one after a restore). */
  port: number;
  /** Connections accepted so far. */
  accepted: () => number;
  /** Drops every open connection and stops listening. */
  cut(): Promise<void>;
  /**
   * The connections open now are reset the moment their client sends on them (nothing
   * reaches the server); connections made afterwards pass as usual.
   */
  dropOnNextWrite(): void;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  /** Each open connection's client side, with its upstream. */
  const pairs = new Map<Socket, Socket>();
  let accepted = 0;
  let server: Server | undefined;
  let port = 0;

  const listen = async (): Promise<void> => {
    const next = createServer((client) => {
      accepted += 1;
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        // A reset on one side ends the other: what a broken network looks like to both.
        socket.on('error', () => undefined);
      }
      pairs.set(client, upstream);
      client.on('close', () => pairs.delete(client));
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        next.off('error', reject);
        resolve();
      });
    });
    const address = next.address();
    port = typeof address === 'object' && address !== null ? address.port : port;
    server = next;
  };

  const stop = async (): Promise<void> => {
    const current = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (current !== undefined) await new Promise<void>((resolve) => current.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    accepted: () => accepted,
    cut: stop,
    dropOnNextWrite: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        client.once('data', () => {
          client.resetAndDestroy();
          upstream.destroy();
        });
        // Unpiped, the stream was paused: a 'data' listener alone would not hear it.
        client.resume();
      }
    },
    restore: listen,
    close: stop,
  };
}

/** The same database URL, through the proxy. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}
