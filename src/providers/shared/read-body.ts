import type { AnswerBody, ChunkReader, HttpAnswer } from './http-answer.ts';

/** After a stream's last event, how long and how much of the body's remainder is read before it is given up. */
const DRAIN_GRACE_MS = 250;
const DRAIN_MAX_BYTES = 64 * 1024;

/**
 * A response body read chunk by chunk. Reading ends as soon as `signal`
 * aborts, even under a fetch that stopped watching the signal once the
 * headers arrived. Closed before its end (an error, a limit, an abort), the
 * body is cancelled, so the connection is released rather than left to fill.
 */
export class BodyReader {
  readonly #reader: ChunkReader;
  readonly #signal: AbortSignal | undefined;
  // Cancelling settles a pending read, which next() then turns into the abort.
  readonly #onAbort = (): void => void this.#reader.cancel(this.#signal?.reason).catch(() => undefined);
  #finished = false;

  constructor(body: AnswerBody, signal: AbortSignal | undefined) {
    this.#reader = body.getReader();
    this.#signal = signal;
    signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** The next chunk; undefined at the end. Throws the signal's reason once it aborts. */
  async next(): Promise<Uint8Array | undefined> {
    this.#signal?.throwIfAborted();
    const chunk = await this.#reader.read();
    this.#signal?.throwIfAborted();
    if (!chunk.done) return chunk.value;
    this.#finished = true;
    return undefined;
  }

  /**
   * The stream said its last word (`[DONE]`, `message_stop`, `done: true`):
   * the rest of the body, normally just the end of the chunked encoding, is
   * read and dropped, so the connection goes back to the pool for the next
   * model call instead of being cancelled. A server that keeps the body open
   * past a short grace, or sends more than a little, gets it cancelled by close().
   */
  async drain(): Promise<void> {
    const timer = setTimeout(() => void this.#reader.cancel().catch(() => undefined), DRAIN_GRACE_MS);
    let bytes = 0;
    try {
      while (bytes <= DRAIN_MAX_BYTES && !(this.#signal?.aborted ?? false)) {
        const chunk = await this.#reader.read();
        if (chunk.done) {
          this.#finished = true;
          return;
        }
        bytes += chunk.value.byteLength;
      }
    } catch {
      // Cancelled at the grace's end, or the connection broke: the answer is complete either way.
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.#signal?.removeEventListener('abort', this.#onAbort);
    if (!this.#finished) await this.#reader.cancel().catch(() => undefined);
    this.#reader.releaseLock();
  }
}

export interface BodyItemsOptions {
  signal?: AbortSignal | undefined;
  /** Largest whole body, in bytes as received; `tooLarge` is thrown past it. */
  maxBytes: number;
  tooLarge: () => Error;
  /**
   * Asked after each item: true once the stream's last item came. The rest of the body is then drained (see
   * BodyReader.drain) and iteration ends.
   */
  finished?: (() => boolean) | undefined;
}

/** Receives each item; returning false stops the reading of items (the parser reads no further). */
export type ItemEmit<T> = (item: T) => boolean | void;

/** How a body's items are found, and who takes them. */
export interface BodyItemsReader<T> {
  /** Finds the items in a chunk as it arrives, passing each to `emit` before reading on. */
  parse: (chunk: Uint8Array, emit: ItemEmit<T>) => void;
  /** Finds the items in what is left once the body has ended. */
  end: (emit: ItemEmit<T>) => void;
  each: (item: T) => void;
}

/**
 * Reads the items (events, lines) of a streamed body, handing each to `each`
 * as soon as it is found: `parse` finds them in each chunk as it arrives (and
 * passes each to `emit` before reading on), `end` in what is left once the
 * body has ended. No async iterator between the socket and `each`: one promise
 * per network chunk, none per item. The body is cancelled whenever reading
 * stops early (an error thrown by `each` or a parser, an abort, a limit), so
 * the socket is not left open. Once `finished` says the last item came, the
 * rest of the body is drained (see BodyReader.drain) and nothing more is read.
 */
export async function readBodyItems<T>(
  body: AnswerBody,
  options: BodyItemsOptions,
  items: BodyItemsReader<T>,
): Promise<void> {
  const { parse, end, each } = items;
  const reader = new BodyReader(body, options.signal);
  const finished = options.finished ?? (() => false);
  let done = false;
  const emit: ItemEmit<T> = (item) => {
    if (done) return false;
    each(item);
    if (finished()) done = true;
    return !done;
  };
  let total = 0;
  try {
    for (let chunk = await reader.next(); chunk !== undefined; chunk = await reader.next()) {
      total += chunk.byteLength;
      if (total > options.maxBytes) throw options.tooLarge();
      parse(chunk, emit);
      if (done) {
        await reader.drain();
        return;
      }
    }
  } finally {
    await reader.close();
  }
  end(emit);
}

export interface ReadTextOptions {
  maxBytes: number;
  signal?: AbortSignal;
  /** Called when the body is larger than maxBytes; its error is thrown. Without it the text is cut at maxBytes. */
  tooLarge?: (declared: number | undefined) => Error;
}

/** A whole body as UTF-8 text, never holding more than maxBytes + one network chunk. */
export async function readText(response: HttpAnswer, options: ReadTextOptions): Promise<string> {
  const { maxBytes, signal, tooLarge } = options;
  if (response.body === null) return '';
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (tooLarge !== undefined && Number.isFinite(declared) && declared > maxBytes) {
    await response.body.cancel().catch(() => undefined);
    throw tooLarge(declared);
  }
  const reader = new BodyReader(response.body, signal);
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (let chunk = await reader.next(); chunk !== undefined; chunk = await reader.next()) {
      if (total + chunk.byteLength > maxBytes) {
        if (tooLarge !== undefined) throw tooLarge(undefined);
        parts.push(chunk.subarray(0, maxBytes - total));
        total = maxBytes;
        break;
      }
      parts.push(chunk);
      total += chunk.byteLength;
    }
  } finally {
    await reader.close();
  }
  if (parts.length === 1 && parts[0] !== undefined) return new TextDecoder('utf-8').decode(parts[0]);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder('utf-8').decode(bytes);
}
