/**
 * One request through undici's dispatcher, as a handler that is also its
 * answer: the status and headers once they are in, then the body read chunk
 * by chunk as a web stream's reader would (see post-with-undici.ts).
 */
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { ConnectionFailure, errorCode } from './connection-failure.ts';
import type { AnswerBody, AnswerHeaders, ChunkRead, ChunkReader, HttpAnswer } from './http-answer.ts';

/** The decoder for a Content-Encoding fetch would decode too; identity and unknown codings are read as they are. */
function decoderFor(encoding: string | undefined): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

class PlainHeaders implements AnswerHeaders {
  readonly #headers: Record<string, string | string[] | undefined>;

  constructor(headers: Record<string, string | string[] | undefined>) {
    this.#headers = headers;
  }

  get(name: string): string | null {
    const value = this.#headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/**
 * One request's handler and, once its headers are in, its answer's body, read
 * chunk by chunk as a web stream's reader would: data beyond what is asked for
 * pauses the connection. A connection that breaks before the body's end is a
 * `ConnectionFailure`, so the attempt can be retried; cancelling aborts the
 * request, so its socket is not reused.
 */
export interface ExchangeInput {
  url: string;
  signal: AbortSignal;
  resolve: (answer: HttpAnswer) => void;
  reject: (reason: unknown) => void;
}

export class Exchange implements Dispatcher.DispatchHandler, HttpAnswer, AnswerBody, ChunkReader {
  status = 0;
  ok = false;
  headers: AnswerHeaders = new PlainHeaders({});
  body: AnswerBody | null = null;
  readonly #url: string;
  readonly #signal: AbortSignal;
  #resolve: ((answer: HttpAnswer) => void) | undefined;
  #reject: ((reason: unknown) => void) | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #decoder: Transform | undefined;
  readonly #queue: Uint8Array[] = [];
  #ended = false;
  #error: Error | undefined;
  #waiting: { resolve: (read: ChunkRead) => void; reject: (error: Error) => void } | undefined;
  #aborted = false;

  constructor(input: ExchangeInput) {
    this.#url = input.url;
    this.#signal = input.signal;
    this.#resolve = input.resolve;
    this.#reject = input.reject;
    input.signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  readonly #onAbort = (): void => {
    const reject = this.#reject;
    if (reject === undefined) return;
    this.#settle();
    // An abort reason is whatever the caller gave abort(), an Error by convention.
    const reason: Error = this.#signal.reason;
    this.#abortRequest(reason);
    reject(reason);
  };

  /** Before or as the answer settles: no abort listener stays behind. */
  #settle(): void {
    this.#resolve = undefined;
    this.#reject = undefined;
    this.#signal.removeEventListener('abort', this.#onAbort);
  }

  dispose(): void {
    this.#settle();
  }

  #abortRequest(reason: Error): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Aborted while the request waited for a connection.
    if (this.#aborted) controller.abort(this.#signal.reason);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx informational answers come before the real one.
    if (statusCode < 200) return;
    this.#controller = controller;
    const resolve = this.#resolve;
    if (resolve === undefined) {
      this.#abortRequest(new Error('the answer is no longer wanted'));
      return;
    }
    this.#settle();
    this.status = statusCode;
    this.ok = statusCode >= 200 && statusCode <= 299;
    this.headers = new PlainHeaders(headers);
    this.body = this;
    const encoding = headers['content-encoding'];
    const decoder = decoderFor(Array.isArray(encoding) ? encoding.join(',') : encoding);
    if (decoder !== undefined) {
      this.#decoder = decoder;
      decoder.on('data', (chunk: Uint8Array) => this.#push(chunk));
      decoder.on('end', () => this.#end());
      decoder.on('error', (error: Error) =>
        this.#fail(
          new Error(
            `the body from ${this.#url} could not be decoded (Content-Encoding: ${String(encoding)}): ${error.message}`,
            { cause: error },
          ),
        ),
      );
    }
    resolve(this);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // A resumed parser may hand over an empty chunk: queued, it would pause the connection again at once.
    if (this.#ended || chunk.length === 0) return;
    if (this.#decoder !== undefined) this.#decoder.write(chunk);
    else this.#push(chunk);
  }

  onResponseEnd(): void {
    if (this.#decoder !== undefined) this.#decoder.end();
    else this.#end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const reject = this.#reject;
    if (reject !== undefined) {
      this.#settle();
      // An abort reaches here too, after #onAbort has rejected with the signal's reason.
      reject(isUsageError(error) ? requestRefused(error) : new ConnectionFailure(error));
      return;
    }
    if (this.#aborted) return;
    this.#fail(new ConnectionFailure(error));
  }

  #push(chunk: Uint8Array): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting.resolve({ done: false, value: chunk });
      return;
    }
    this.#queue.push(chunk);
    // Held until asked for: the connection stops reading meanwhile.
    this.#controller?.pause();
    this.#decoder?.pause();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve({ done: true });
  }

  #fail(error: Error): void {
    if (this.#ended || this.#error !== undefined) return;
    this.#error = error;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(error);
  }

  getReader(): ChunkReader {
    return this;
  }

  read(): Promise<ChunkRead> {
    const chunk = this.#queue.shift();
    if (chunk !== undefined) {
      if (this.#queue.length === 0 && !this.#ended) {
        this.#decoder?.resume();
        this.#controller?.resume();
      }
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.#error !== undefined) return Promise.reject(this.#error);
    if (this.#ended) return Promise.resolve({ done: true });
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  cancel(): Promise<void> {
    if (!this.#ended) {
      this.#ended = true;
      this.#queue.length = 0;
      this.#abortRequest(new Error('the body was cancelled'));
      this.#decoder?.destroy();
    }
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve({ done: true });
    return Promise.resolve();
  }

  releaseLock(): void {
    // One reader per body; nothing to release.
  }
}

/** undici's refusal of the request itself (an invalid header), not of the connection. */
function isUsageError(error: unknown): error is Error {
  return error instanceof Error && errorCode(error) === 'UND_ERR_INVALID_ARG';
}

/** A request undici would not send (an invalid header name or value): not a connection failure, so never retried. */
export function requestRefused(error: unknown): unknown {
  return isUsageError(error) ? new TypeError(`the model request could not be sent: ${error.message}`) : error;
}
