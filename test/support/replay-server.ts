// Serves staged HTTP answers in order, byte for byte — recorded wire fixtures
// for the model-adapter contract suite — and records every request, when it
// came, and whether the client went away before the answer was complete.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { send } from './mock-http.ts';

export interface StagedAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  /** Write the body in pieces of this many bytes (default: all at once). */
  chunkSize?: number;
  /** Pause between pieces. */
  chunkDelayMs?: number;
  /** Stop after this many bytes and keep the connection open until the client leaves (a stalled stream). */
  holdAfterBytes?: number;
  /** Wait this long after the last byte before ending the response (a server slow to close its stream). */
  endDelayMs?: number;
}

export interface ReplayedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request arrived. */
  at: number;
  disconnected: boolean;
  /**
   * Which TCP connection carried it (1, 2, … in the order they were opened): the same number means a reused connection.
   */
  connection: number;
}

export interface ReplayServer {
  url: string;
  requests: ReplayedRequest[];
  stage(...answers: StagedAnswer[]): void;
  remaining(): number;
  close(): Promise<void>;
}

export async function startReplayServer(): Promise<ReplayServer> {
  const queue: StagedAnswer[] = [];
  const requests: ReplayedRequest[] = [];

  const connections = new WeakMap<object, number>();
  let opened = 0;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const record: ReplayedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(parts).toString('utf8'),
        at: Date.now(),
        disconnected: false,
        connection: connections.get(req.socket) ?? 0,
      };
      requests.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.disconnected = true;
      });
      const answer = queue.shift();
      if (answer === undefined) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('replay server: nothing staged for this request');
        return;
      }
      void serve(res, answer);
    });
  });

  const serve = async (res: ServerResponse, answer: StagedAnswer): Promise<void> => {
    const bytes = new TextEncoder().encode(answer.body);
    const limit = answer.holdAfterBytes ?? bytes.byteLength;
    res.writeHead(answer.status ?? 200, answer.headers ?? {});
    const size = answer.chunkSize ?? bytes.byteLength;
    for (let at = 0; at < limit; at += size) {
      if (!(await send(res, bytes.subarray(at, Math.min(at + size, limit))))) return;
      if (answer.chunkDelayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, answer.chunkDelayMs));
    }
    if (answer.holdAfterBytes !== undefined) return;
    if (answer.endDelayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, answer.endDelayMs));
    res.end();
  };

  server.on('connection', (socket) => connections.set(socket, ++opened));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stage: (...answers) => void queue.push(...answers),
    remaining: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
