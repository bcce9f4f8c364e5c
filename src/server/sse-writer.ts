import type { ServerResponse } from 'node:http';

export const DEFAULT_HEARTBEAT_MS = 15_000;
/** Unsent bytes a connection may hold before the subscriber counts as too slow. */
export const DEFAULT_SSE_BUFFER_LIMIT = 1024 * 1024;
/** How long a stream that overflowed may take to deliver what it holds before its socket is dropped. */
export const DEFAULT_OVERFLOW_GRACE_MS = 30_000;

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  // Proxies such as nginx buffer responses by default, which would hold events back.
  'X-Accel-Buffering': 'no',
};

export interface SseFrame {
  id?: number;
  event: string;
  /** One line: JSON.stringify never emits a raw CR or LF. */
  data: string;
}

export interface SseWriterOptions {
  res: ServerResponse;
  heartbeatMs: number;
  bufferLimitBytes: number;
  /** The client's resume point before anything is written. */
  lastEventId: number;
  /** The subscriber fell behind: an `overflow` event was sent and the stream ended. */
  onOverflow?: (lastEventId: number) => void;
}

/**
 * Frames server-sent events on one response: ids, heartbeats, backpressure and
 * the slow subscriber rule. Once `res.write` returns false, frames wait in a
 * queue until 'drain'; when the queued bytes pass the limit the client gets
 * `overflow` (without an id, so its resume point stays on the last event it
 * was actually handed) and the stream ends. Reconnecting with Last-Event-ID
 * loses nothing: every event is in the store.
 *
 * Bytes already handed to the response are bounded by the socket's high-water
 * mark (nothing more is written until 'drain'), so the queue is what grows.
 * Measuring `res.writableLength` instead would count a large event written in
 * this very tick as backlog: a response holds writes until the next tick.
 */
export class SseWriter {
  readonly #res: ServerResponse;
  readonly #options: SseWriterOptions;
  readonly #queue: { text: string; id?: number }[] = [];
  #queuedBytes = 0;
  #congested = false;
  #waiters: (() => void)[] = [];
  #heartbeat: NodeJS.Timeout | undefined;
  /** The last id handed to the response (queued frames do not count). */
  #lastWrittenId: number;
  #ended = false;

  constructor(options: SseWriterOptions) {
    this.#res = options.res;
    this.#options = options;
    this.#lastWrittenId = options.lastEventId;
  }

  get ended(): boolean {
    return this.#ended || this.#res.destroyed;
  }

  /** res.write returned false and 'drain' has not come yet. */
  get congested(): boolean {
    return this.#congested;
  }

  open(headers: Record<string, string> = {}): void {
    this.#res.writeHead(200, { ...SSE_HEADERS, ...headers });
    this.#res.flushHeaders();
    this.#heartbeat = setInterval(() => {
      // A congested socket is not idle: a ping would only add to the backlog.
      if (!this.#congested && !this.ended) this.#writeNow({ text: ': ping\n\n' });
    }, this.#options.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Resolves once frames go straight to the socket again (or the stream ended): for paced history. */
  whenWritable(): Promise<void> {
    if (!this.#congested || this.ended) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Returns false once the stream has ended (overflow, end, closed socket). */
  send(frame: SseFrame): boolean {
    if (this.ended) return false;
    const id = frame.id === undefined ? '' : `id: ${frame.id}\n`;
    const entry = { text: `${id}event: ${frame.event}\ndata: ${frame.data}\n\n`, ...(frame.id === undefined ? {} : { id: frame.id }) };
    if (!this.#congested) {
      this.#writeNow(entry);
      return !this.ended;
    }
    this.#queue.push(entry);
    this.#queuedBytes += Buffer.byteLength(entry.text);
    if (this.#queuedBytes > this.#options.bufferLimitBytes) this.#overflow();
    return !this.ended;
  }

  end(): void {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.#wake();
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#res.destroyed) this.#res.end();
  }

  #writeNow(entry: { text: string; id?: number }): void {
    const flushed = this.#res.write(entry.text);
    if (entry.id !== undefined) this.#lastWrittenId = entry.id;
    if (!flushed && !this.#congested) {
      this.#congested = true;
      this.#res.once('drain', () => this.#onDrain());
    }
  }

  #onDrain(): void {
    this.#congested = false;
    while (!this.#congested && !this.ended) {
      const entry = this.#queue.shift();
      if (entry === undefined) break;
      this.#queuedBytes -= Buffer.byteLength(entry.text);
      this.#writeNow(entry);
    }
    if (!this.#congested) this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  #overflow(): void {
    const lastEventId = this.#lastWrittenId;
    const data = JSON.stringify({
      lastEventId,
      message: `this client reads events more slowly than they are produced; reconnect with Last-Event-ID: ${lastEventId}`,
    });
    // Queued frames are dropped: the client resumes from the last one it was handed.
    this.#queue.length = 0;
    this.#res.write(`event: overflow\ndata: ${data}\n\n`);
    this.end();
    // A client that never reads again would otherwise pin its buffers forever.
    const res = this.#res;
    const timer = setTimeout(() => res.destroy(), DEFAULT_OVERFLOW_GRACE_MS).unref();
    res.once('close', () => clearTimeout(timer));
    this.#options.onOverflow?.(lastEventId);
  }
}
