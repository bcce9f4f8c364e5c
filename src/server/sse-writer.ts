import type { ServerResponse } from 'node:http';

export const DEFAULT_HEARTBEAT_MS = 15_000;
/** Unsent bytes a connection may hold before the subscriber counts as too slow. */
export const DEFAULT_SSE_BUFFER_LIMIT = 1024 * 1024;
/** How long a connection may accept nothing (no 'drain') while bytes wait for it before its socket is dropped. */
export const DEFAULT_SSE_IDLE_TIMEOUT_MS = 30_000;
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
  /** Bytes waiting and no 'drain' for this long: the socket is destroyed. */
  idleTimeoutMs: number;
  /** The client's resume point before anything is written. */
  lastEventId: number;
  /** The subscriber fell behind: an `overflow` event was sent and the stream ended. */
  onOverflow?: (lastEventId: number) => void;
  /** The socket accepted nothing for idleTimeoutMs and was destroyed. */
  onIdleTimeout?: () => void;
}

type Entry = { text: string | Buffer; id?: number };

/** A frame's bytes on the wire: built once per event and written as is to every subscriber. */
export function encodeFrame(frame: SseFrame): Buffer {
  const id = frame.id === undefined ? '' : `id: ${frame.id}\n`;
  return Buffer.from(`${id}event: ${frame.event}\ndata: ${frame.data}\n\n`);
}

/**
 * Frames server-sent events on one response: ids, heartbeats, backpressure and
 * the slow subscriber rule. Once `res.write` returns false, frames wait in a
 * queue until 'drain'; when the queued bytes pass the limit the client gets
 * `overflow` (without an id, so its resume point stays on the last event it
 * was actually handed) and the stream ends. Reconnecting with Last-Event-ID
 * loses nothing: every event is in the store.
 *
 * end() is not overflow: what is queued is still written (a stream's last
 * frame is its terminal event, and it is the one most likely to be queued),
 * then the response ends. A socket that takes nothing for idleTimeoutMs while
 * bytes wait is destroyed, so a client that stops reading cannot pin the
 * queue and the socket's buffers.
 *
 * Bytes already handed to the response are bounded by the socket's high-water
 * mark (nothing more is written until 'drain'), so the queue is what grows.
 * Measuring `res.writableLength` instead would count a large event written in
 * this very tick as backlog: a response holds writes until the next tick.
 */
export class SseWriter {
  readonly #res: ServerResponse;
  #opened = false;
  readonly #options: SseWriterOptions;
  readonly #queue: Entry[] = [];
  #queuedBytes = 0;
  #congested = false;
  #waiters: (() => void)[] = [];
  #heartbeat: NodeJS.Timeout | undefined;
  #idle: NodeJS.Timeout | undefined;
  /** The last id handed to the response (queued frames do not count). */
  #lastWrittenId: number;
  /** No more frames are accepted; the queue may still be on its way out. */
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
    this.#opened = true;
    this.#res.writeHead(200, { ...SSE_HEADERS, ...headers });
    this.#res.flushHeaders();
    this.#heartbeat = setInterval(() => {
      // A congested socket is not idle: a ping would only add to the backlog.
      if (!this.#congested && !this.ended) this.#writeNow({ text: ': ping\n\n' });
    }, this.#options.heartbeatMs);
    this.#heartbeat.unref();
    this.#res.once('close', () => this.#release());
    this.#res.once('finish', () => this.#stopIdleTimer());
  }

  /** Resolves once frames go straight to the socket again (or the stream ended): for paced history. */
  whenWritable(): Promise<void> {
    if (!this.#congested || this.ended) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Returns false once the stream has ended (overflow, end, closed socket). */
  send(frame: SseFrame): boolean {
    return this.sendEncoded({ bytes: encodeFrame(frame), ...(frame.id === undefined ? {} : { id: frame.id }) });
  }

  /** send() for a frame already encoded (encodeFrame): one event's bytes shared by all its subscribers. */
  sendEncoded(frame: { bytes: Buffer; id?: number }): boolean {
    if (this.ended) return false;
    const entry: Entry = { text: frame.bytes, ...(frame.id === undefined ? {} : { id: frame.id }) };
    if (!this.#congested) {
      this.#writeNow(entry);
      return !this.ended;
    }
    this.#queue.push(entry);
    this.#queuedBytes += Buffer.byteLength(entry.text);
    if (this.#queuedBytes > this.#options.bufferLimitBytes) this.#overflow();
    return !this.ended;
  }

  /** Accepts no more frames; the response ends once what is queued has been written. */
  end(): void {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    const first = !this.#ended;
    this.#ended = true;
    this.#wake();
    // Never opened (the history could not be read): the caller answers with an HTTP error, not an empty 200.
    if (first && this.#opened) this.#endWhenDrained();
  }

  #endWhenDrained(): void {
    if (this.#queue.length > 0 || this.#res.destroyed || this.#res.writableEnded) return;
    this.#res.end();
  }

  #writeNow(entry: Entry): void {
    const flushed = this.#res.write(entry.text);
    if (entry.id !== undefined) this.#lastWrittenId = entry.id;
    if (!flushed && !this.#congested) {
      this.#congested = true;
      this.#res.once('drain', () => this.#onDrain());
      this.#startIdleTimer();
    }
  }

  #onDrain(): void {
    this.#congested = false;
    this.#stopIdleTimer();
    while (!this.#congested && !this.#res.destroyed) {
      const entry = this.#queue.shift();
      if (entry === undefined) break;
      this.#queuedBytes -= Buffer.byteLength(entry.text);
      this.#writeNow(entry);
    }
    if (this.#ended) this.#endWhenDrained();
    if (!this.#congested) this.#wake();
  }

  #startIdleTimer(): void {
    this.#stopIdleTimer();
    const res = this.#res;
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      if (res.destroyed) return;
      this.#options.onIdleTimeout?.();
      res.destroy();
    }, this.#options.idleTimeoutMs);
    this.#idle.unref();
  }

  #stopIdleTimer(): void {
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  /** The connection is gone: drop what it held. */
  #release(): void {
    this.#stopIdleTimer();
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.end();
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
      message:
        `this client reads events more slowly than they are ` +
        `produced; reconnect with Last-Event-ID: ${lastEventId}`,
    });
    // Queued frames are dropped: the client resumes from the last one it was handed.
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.#res.write(`event: overflow\ndata: ${data}\n\n`);
    this.end();
    // A client that never reads again would otherwise pin its buffers forever.
    const res = this.#res;
    const timer = setTimeout(() => res.destroy(), DEFAULT_OVERFLOW_GRACE_MS).unref();
    res.once('close', () => clearTimeout(timer));
    this.#options.onOverflow?.(lastEventId);
  }
}
