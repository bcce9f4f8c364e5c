// What the scriptable model mocks share: writes that respect back-pressure and
// stop once the client has gone, waits that close() can cancel, and answers
// written byte for byte in chunks.
import type { ServerResponse } from 'node:http';

/** Timers a mock starts while answering, all cleared by its close(). */
export class MockTimers {
  readonly #timers = new Set<NodeJS.Timeout>();

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, ms);
      this.#timers.add(timer);
    });
  }

  clear(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

/** Writes one piece, waiting while the socket is full; false once the client has gone away. */
export async function send(res: ServerResponse, data: string | Uint8Array): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(data)) {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
  return !res.destroyed;
}

/** Exact bytes in pieces of `chunkSize` (a turn of the event loop between pieces), then the end. */
export async function sendRaw(res: ServerResponse, raw: string, chunkSize: number | undefined): Promise<void> {
  const bytes = Buffer.from(raw, 'utf8');
  const size = Math.max(1, chunkSize ?? bytes.length);
  for (let i = 0; i < bytes.length; i += size) {
    if (!(await send(res, bytes.subarray(i, i + size)))) return;
    if (size < bytes.length) await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
}
