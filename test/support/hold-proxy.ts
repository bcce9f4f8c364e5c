// An HTTP proxy in front of a real MCP server that holds back the requests a
// test names (a tool call) until the test lets them through: "a write longer
// than the lease" then lasts exactly as long as the test needs, however slowly
// a loaded machine starts the processes around it — no delay to guess.
import { request as httpRequest, createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldProxy {
  /** The proxy's URL: the target's, with the proxy's host and port. */
  url: string;
  /** How many matching requests arrived so far (held or let through). */
  matched(): number;
  /**
   * Lets every held request through, and the ones that arrive later. A held
   * request is sent on even when its client has gone meanwhile: the server
   * gets it as it would have got a request already on the wire.
   */
  release(): void;
  close(): Promise<void>;
}

/** Forwards everything to `target` (http://host:port/path); holds POST bodies that `hold` matches until release(). */
export async function startHoldProxy(options: { target: string; hold: (body: string) => boolean }): Promise<HoldProxy> {
  const target = new URL(options.target);
  let matched = 0;
  let released = false;
  const waiting: (() => void)[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (options.hold(body.toString('utf8'))) {
        matched += 1;
        if (!released) await new Promise<void>((resolve) => waiting.push(resolve));
      }
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          if (res.destroyed) {
            answer.resume();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => {
        // An answer streamed (SSE) to a client that left: stop reading it.
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    matched: () => matched,
    release: () => {
      released = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
