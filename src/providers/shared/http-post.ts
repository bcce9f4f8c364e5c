/**
 * How a model call reaches its server: one POST, its answer's status, headers
 * and body. By default over `node:http` / `node:https` with a keep-alive pool
 * of their own; through a `fetch` when the adapter is given one (tests,
 * instrumented clients) or when Node is told to use the proxy environment
 * variables, which its `fetch` honours. A fetch `Response` has the shape of
 * `HttpAnswer`, so the readers take either.
 *
 * Why not fetch by default: against a server answering at once, a bare
 * `fetch` + `response.json()` cost about twice the CPU of the same request over
 * `node:http` (its web streams, its `Headers`, its spec's steps), at every
 * model call of every run (docs/decisions/0016-model-calls-over-node-http.md).
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
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
  return postWithNodeHttp;
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

/**
 * An idle pooled connection is closed after this long (as undici's pool does),
 * sooner when the server announces a shorter `Keep-Alive: timeout`, so it is
 * rarely reused just as the server closes it.
 */
const IDLE_MS = 4_000;

let agents: { http: HttpAgent; https: HttpsAgent } | undefined;

function agentFor(secure: boolean): HttpAgent {
  agents ??= { http: new HttpAgent({ keepAlive: true, timeout: IDLE_MS }), https: new HttpsAgent({ keepAlive: true, timeout: IDLE_MS }) };
  return secure ? agents.https : agents.http;
}

interface Target {
  url: string;
  secure: boolean;
  options: RequestOptions;
}

let lastTarget: Target | undefined;

function targetOf(url: string): Target {
  if (lastTarget?.url === url) return lastTarget;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`cannot call ${url}: only http: and https: URLs are supported`);
  }
  const secure = parsed.protocol === 'https:';
  const options: RequestOptions = {
    protocol: parsed.protocol,
    // URL keeps an IPv6 host in brackets; the socket wants it bare.
    hostname: parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname,
    port: parsed.port === '' ? (secure ? 443 : 80) : Number(parsed.port),
    path: `${parsed.pathname}${parsed.search}`,
    method: 'POST',
    agent: agentFor(secure),
  };
  // As fetch does, and without quoting the URL: it would show the password.
  if (parsed.username !== '' || parsed.password !== '') {
    throw new TypeError('cannot call a model URL that holds credentials (user:password@); send them with the apiKey or headers options instead');
  }
  lastTarget = { url, secure, options };
  return lastTarget;
}

/** A POST over node:http / node:https through the keep-alive pool. */
export const postWithNodeHttp: HttpPost = (url, request) => {
  let target: Target;
  try {
    target = targetOf(url);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return send(target, request, true);
};

function isStaleReset(error: unknown, req: ClientRequest): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
}

function send(target: Target, request: PostRequest, mayRetryStale: boolean): Promise<HttpAnswer> {
  const { signal } = request;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<HttpAnswer>((resolve, reject) => {
    const headers: OutgoingHttpHeaders = { ...request.headers, 'content-length': Buffer.byteLength(request.body) };
    if (headers['user-agent'] === undefined) headers['user-agent'] = 'toolgate';
    let req: ClientRequest;
    try {
      req = (target.secure ? httpsRequest : httpRequest)({ ...target.options, headers });
    } catch (error) {
      // An invalid header name or value, said before anything was sent.
      reject(error as Error);
      return;
    }
    let settled = false;
    const onAbort = (): void => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    req.once('response', (res: IncomingMessage) => {
      signal.removeEventListener('abort', onAbort);
      if (settled) {
        res.destroy();
        return;
      }
      settled = true;
      resolve(new NodeAnswer(res, target.url));
    });
    req.on('error', (error: Error) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      // A pooled connection the server closed while it sat idle: nothing reached the server, so one fresh attempt is safe (Node's documented pattern).
      if (mayRetryStale && isStaleReset(error, req)) resolve(send(target, request, false));
      else reject(new ConnectionFailure(error));
    });
    req.end(request.body);
  });
}

class NodeHeaders implements AnswerHeaders {
  readonly #headers: IncomingMessage['headers'];

  constructor(headers: IncomingMessage['headers']) {
    this.#headers = headers;
  }

  get(name: string): string | null {
    const value = this.#headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

class NodeAnswer implements HttpAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: NodeHeaders;
  readonly body: NodeBody;

  constructor(res: IncomingMessage, url: string) {
    this.status = res.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status <= 299;
    this.headers = new NodeHeaders(res.headers);
    this.body = new NodeBody(res, url);
  }
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
 * An IncomingMessage read chunk by chunk, as a web stream's reader would read
 * it: data is held (and the socket paused) until asked for. A connection that
 * breaks before the body's end is a `ConnectionFailure`, so the attempt can be
 * retried; cancelling destroys the response, so its socket is not reused.
 */
class NodeBody implements AnswerBody, ChunkReader {
  readonly #res: IncomingMessage;
  readonly #source: Readable;
  readonly #url: string;
  readonly #queue: Uint8Array[] = [];
  #ended = false;
  #error: Error | undefined;
  #waiting: { resolve: (read: ChunkRead) => void; reject: (error: Error) => void } | undefined;

  constructor(res: IncomingMessage, url: string) {
    this.#res = res;
    this.#url = url;
    const decoder = decoderFor(res.headers['content-encoding']);
    this.#source = decoder ?? res;
    if (decoder !== undefined) {
      res.pipe(decoder);
      decoder.on('error', (error: Error) => this.#fail(new Error(`the body from ${this.#url} could not be decoded (Content-Encoding: ${String(res.headers['content-encoding'])}): ${error.message}`, { cause: error })));
    }
    res.on('error', (error: Error) => this.#fail(new ConnectionFailure(error)));
    this.#source.on('data', (chunk: Uint8Array) => {
      const waiting = this.#waiting;
      if (waiting !== undefined) {
        this.#waiting = undefined;
        waiting.resolve({ done: false, value: chunk });
        return;
      }
      this.#queue.push(chunk);
      this.#source.pause();
    });
    this.#source.on('end', () => {
      this.#ended = true;
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.resolve({ done: true });
    });
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
      if (this.#queue.length === 0 && !this.#ended) this.#source.resume();
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
      this.#res.destroy();
      if (this.#source !== this.#res) this.#source.destroy();
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
