/**
 * A model call's POST through undici's dispatcher — the HTTP/1.1 client Node's
 * own `fetch` is built on, used below fetch's web layer — with a keep-alive
 * pool per origin (decision 0020: a fraction of fetch's CPU per call).
 */
import type { Dispatcher } from 'undici';
import { ConnectionFailure, errorCode } from './connection-failure.ts';
import type { HttpAnswer, HttpPost, PostRequest } from './http-answer.ts';
import { Exchange, requestRefused } from './undici-exchange.ts';

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
    throw new TypeError(
      'cannot call a model URL that holds credentials (user:password@); ' +
        'send them with the apiKey or headers options instead',
    );
  }
  lastUrl = { text: url, url: parsed };
  return parsed;
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
    return Promise.reject(error);
  }
  if (request.signal.aborted) return Promise.reject(request.signal.reason);
  if (loaded !== undefined) return send({ agent: loaded, target, request, mayRetryStale: true });
  return loadDispatcher().then((agent) => send({ agent, target, request, mayRetryStale: true }));
};

interface Dispatch {
  agent: Dispatcher;
  target: URL;
  request: PostRequest;
  /** Whether a stale pooled connection may be replaced by one fresh attempt (once per call). */
  mayRetryStale: boolean;
}

function send(dispatch: Dispatch): Promise<HttpAnswer> {
  const { agent, target, request } = dispatch;
  const { signal } = request;
  if (signal.aborted) return Promise.reject(signal.reason);
  const headers: Record<string, string> = { ...request.headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) headers['user-agent'] = 'toolgate';
  return new Promise<HttpAnswer>((resolve, reject) => {
    const exchange = new Exchange({
      url: target.href,
      signal,
      resolve,
      reject: (error) => {
        // A pooled connection the server closed while it sat idle: nothing reached the server, so one fresh attempt is
        // safe.
        if (dispatch.mayRetryStale && isStaleReset(error)) resolve(send({ ...dispatch, mayRetryStale: false }));
        else reject(error);
      },
    });
    try {
      agent.dispatch(
        {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers,
          body: request.body,
          idempotent: false,
        },
        exchange,
      );
    } catch (error) {
      // An invalid header name or value, said before anything was sent.
      exchange.dispose();
      reject(requestRefused(error));
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
  const code = errorCode(error.cause);
  return (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') && bytesRead(error.cause) > 0;
}

/** What the socket of a failed request had read before (undici's socket errors carry it). */
function bytesRead(cause: unknown): number {
  if (typeof cause !== 'object' || cause === null || !('socket' in cause)) return 0;
  const socket = cause.socket;
  if (typeof socket !== 'object' || socket === null || !('bytesRead' in socket)) return 0;
  return typeof socket.bytesRead === 'number' ? socket.bytesRead : 0;
}
