import type { ServerResponse } from 'node:http';
import { SSE_HEADERS } from '../sse-writer.ts';

/**
 * OpenAI's streaming wire format on one response: `data: <json>` events, `: keep-alive`
 * comments while nothing else is sent (a held approval, a slow tool), and
 * `data: [DONE]` at the end. Writes wait for the socket to drain, so a slow
 * reader holds back the run's events (they stay in the store), not memory.
 */
export class ChunkStream {
  readonly #res: ServerResponse;
  readonly #heartbeatMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { res: ServerResponse; heartbeatMs: number }) {
    this.#res = options.res;
    this.#heartbeatMs = options.heartbeatMs;
  }

  open(headers: Readonly<Record<string, string>>): void {
    this.#res.writeHead(200, { ...SSE_HEADERS, ...headers });
    this.#res.flushHeaders();
    this.#beat();
  }

  /** One `data:` event. */
  async send(data: unknown): Promise<void> {
    await this.#write(`data: ${JSON.stringify(data)}\n\n`);
  }

  /** `data: [DONE]`, then the response ends. */
  async done(): Promise<void> {
    await this.#write('data: [DONE]\n\n');
    this.end();
  }

  end(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#res.writableEnded) this.#res.end();
  }

  #beat(): void {
    clearTimeout(this.#timer);
    if (this.#heartbeatMs <= 0) return;
    this.#timer = setTimeout(() => {
      if (this.#res.writableEnded || this.#res.destroyed) return;
      this.#res.write(': keep-alive\n\n');
      this.#beat();
    }, this.#heartbeatMs);
    this.#timer.unref();
  }

  async #write(text: string): Promise<void> {
    const res = this.#res;
    if (res.writableEnded || res.destroyed) return;
    this.#beat();
    if (res.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.once('drain', done);
      res.once('close', done);
    });
  }
}
