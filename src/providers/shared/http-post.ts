/**
 * How a model call reaches its server: one POST, its answer's status, headers
 * and body. By default through undici's dispatcher — the HTTP/1.1 client
 * Node's own `fetch` is built on, used below fetch's web layer — with a
 * keep-alive pool per origin; through a `fetch` when the adapter is given one
 * (tests, instrumented clients) or when Node is told to use the proxy
 * environment variables, which its `fetch` honours. A fetch `Response` has
 * the shape of `HttpAnswer`, so the readers take either.
 *
 * Why not fetch by default: against a server answering at once, a bare
 * `fetch` + `response.json()` cost about twice the CPU of the same request over
 * `node:http`, and `node:http` about twice that of undici's dispatcher, at
 * every model call of every run (docs/decisions/0016-model-calls-over-node-http.md,
 * docs/decisions/0020-model-calls-over-undici.md).
 */
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { untilAborted } from './read-body.ts';

export interface AnswerHeaders {
  /** The header's value, several joined by ", "; null when absent. Names are case-insensitive. */
  get(name: string): string | null;
}

export type ChunkRead = { done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined };

/** What a ReadableStream's default reader offers, and all the body readers use. */
export interface ChunkReader {
  read(): Promise<ChunkRead>;
  /** Stops the body: a pending read ends as if the body had ended. */
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

export interface AnswerBody {
  getReader(): ChunkReader;
  cancel(reason?: unknown): Promise<void>;
}

/** An HTTP answer as the model calls read it; a fetch `Response` is one. */
export interface HttpAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: AnswerHeaders;
  readonly body: AnswerBody | null;
}

export interface PostRequest {
  headers: Record<string, string>;
  body: string;
  /** Aborts the request, and the answer's body once it is being read. */
  signal: AbortSignal;
}

/**
 * Sends one POST and resolves with the answer once its headers have arrived.
 * Rejects with the signal's reason once it aborts, and with a `ConnectionFailure`
 * (or fetch's TypeError) when no answer could be had.
 */
export type HttpPost = (url: string, request: PostRequest) => Promise<HttpAnswer>;

/** No answer could be had from the server: refused, reset, unreachable, or a TLS failure. */
export class ConnectionFailure extends Error {
  readonly code: string | undefined;

  constructor(cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    super('connection failed', { cause });
    this.name = 'ConnectionFailure';
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/** The post a model adapter uses: its own fetch when given one, else node:http (or fetch when the proxy variables are in use). */
export function httpPostFor(fetchFn: typeof fetch | undefined): HttpPost {
  if (fetchFn !== undefined) return postWithFetch(fetchFn);
  if (usesEnvProxy()) return postWithFetch(globalThis.fetch);
  return postWithUndici;
}

/** The POST through a fetch; the signal is also raced, so timeouts hold under a fetch that ignores it. */
export function postWithFetch(fetchFn: typeof fetch): HttpPost {
  return (url, request) => untilAborted(fetchFn(url, { method: 'POST', headers: request.headers, body: request.body, signal: request.signal }), request.signal);
}

/**
 * NODE_USE_ENV_PROXY=1 or --use-env-proxy: Node's fetch then goes through
 * HTTP_PROXY / HTTPS_PROXY (minus NO_PROXY), so model calls keep doing so.
 */
function usesEnvProxy(): boolean {
  const flag = process.env['NODE_USE_ENV_PROXY'];
  if (flag !== undefined && flag !== '' && flag !== '0' && flag !== 'false') return true;
  return process.execArgv.includes('--use-env-proxy') || (process.env['NODE_OPTIONS'] ?? '').includes('--use-env-proxy');
}

let lastUrl: { text: string; url: URL } | undefined;

/** The URL of a model call, refused unless http(s) and without credentials. */
function targetUrl(url: string): URL {
  if (lastUrl?.text === url) return lastUrl.url;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`cannot call ${url}: only http: and https: URLs are supported`);
  }
  // As fetch does, and without quoting the URL: it would show the password.
  if (parsed.username !== '' || parsed.password !== '') {
    throw new TypeError('cannot call a model URL that holds credentials (user:password@); send them with the apiKey or headers options instead');
  }
  lastUrl = { text: url, url: parsed };
  return parsed;
}

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

/**
 * An idle pooled connection is closed after this long, sooner when the server
 * announces a shorter `Keep-Alive: timeout` (undici keeps a second's margin),
 * so it is rarely reused just as the server closes it.
 */
const IDLE_MS = 4_000;

let loading: Promise<Dispatcher> | undefined;
/** The dispatcher once loaded: later calls dispatch in the caller's turn (see postWithUndici). */
let loaded: Dispatcher | undefined;

function loadDispatcher(): Promise<Dispatcher> {
  loading ??= import('undici').then(({ Agent }) => {
    loaded = new Agent({
      keepAliveTimeout: IDLE_MS,
      keepAliveMaxTimeout: IDLE_MS,
      keepAliveTimeoutThreshold: 1_000,
      // undici's own limits (5 minutes for the headers, and between two chunks of a body) are off:
      // a model call is bounded by its adapter’s timeoutMs alone, as it was over node:http.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    return loaded;
  });
  return loading;
}

/**
 * A POST through undici's pooled dispatcher, one pool per origin. Once undici is
 * loaded the request is dispatched before this returns, not a microtask later:
 * undici checks a reused idle connection in the event loop's check phase
 * before writing on it, and work the caller queued for that phase after this
 * call (a SQLite group commit, decision 0017) then runs after the request went
 * out instead of before it (decision 0019).
 */
export const postWithUndici: HttpPost = (url, request) => {
  let target: URL;
  try {
    target = targetUrl(url);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  if (request.signal.aborted) return Promise.reject(request.signal.reason as Error);
  if (loaded !== undefined) return send(loaded, target, request, true);
  return loadDispatcher().then((agent) => send(agent, target, request, true));
};

function send(agent: Dispatcher, target: URL, request: PostRequest, mayRetryStale: boolean): Promise<HttpAnswer> {
  const { signal } = request;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  const headers: Record<string, string> = { ...request.headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) headers['user-agent'] = 'toolgate';
  return new Promise<HttpAnswer>((resolve, reject) => {
    const exchange = new Exchange(target.href, signal, resolve, (error) => {
      // A pooled connection the server closed while it sat idle: nothing reached the server, so one fresh attempt is safe.
      if (mayRetryStale && isStaleReset(error)) resolve(send(agent, target, request, false));
      else reject(error);
    });
    try {
      agent.dispatch({ origin: target.origin, path: `${target.pathname}${target.search}`, method: 'POST', headers, body: request.body, idempotent: false }, exchange);
    } catch (error) {
      // An invalid header name or value, said before anything was sent.
      exchange.dispose();
      reject(requestRefused(error as Error));
    }
  });
}

/**
 * The connection broke before any answer on a socket that had carried answers
 * before: the server closed it while idle. A new connection that breaks (bytes
 * read 0) may have reached a server that then failed: not tried again.
 */
function isStaleReset(error: unknown): boolean {
  if (!(error instanceof ConnectionFailure)) return false;
  const cause = error.cause as { code?: unknown; socket?: { bytesRead?: unknown } } | undefined;
  const code = cause?.code;
  const read = cause?.socket?.bytesRead;
  return (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') && typeof read === 'number' && read > 0;
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
class Exchange implements Dispatcher.DispatchHandler, HttpAnswer, AnswerBody, ChunkReader {
  status = 0;
  ok = false;
  headers: AnswerHeaders = new PlainHeaders({});
  body: AnswerBody | null = null;
  readonly #url: string;
  readonly #signal: AbortSignal;
  #resolve: ((answer: HttpAnswer) => void) | undefined;
  #reject: ((error: Error) => void) | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #decoder: Transform | undefined;
  readonly #queue: Uint8Array[] = [];
  #ended = false;
  #error: Error | undefined;
  #waiting: { resolve: (read: ChunkRead) => void; reject: (error: Error) => void } | undefined;
  #aborted = false;

  constructor(url: string, signal: AbortSignal, resolve: (answer: HttpAnswer) => void, reject: (error: Error) => void) {
    this.#url = url;
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  readonly #onAbort = (): void => {
    const reject = this.#reject;
    if (reject === undefined) return;
    this.#settle();
    this.#abortRequest(this.#signal.reason as Error);
    reject(this.#signal.reason as Error);
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
    if (this.#aborted) controller.abort(this.#signal.reason as Error);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
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
        this.#fail(new Error(`the body from ${this.#url} could not be decoded (Content-Encoding: ${String(encoding)}): ${error.message}`, { cause: error })),
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
function isUsageError(error: Error): boolean {
  return (error as { code?: unknown }).code === 'UND_ERR_INVALID_ARG';
}

/** A request undici would not send (an invalid header name or value): not a connection failure, so never retried. */
function requestRefused(error: Error): Error {
  return isUsageError(error) ? new TypeError(`the model request could not be sent: ${error.message}`) : error;
}
