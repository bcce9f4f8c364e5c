/**
 * How a model call reaches its server: one POST, its answer's status, headers
 * and body. By default through undici's dispatcher (post-with-undici.ts), with
 * a keep-alive pool per origin; through a `fetch` when the adapter is given one
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
import type { HttpAnswer, HttpPost } from './http-answer.ts';
import { postWithUndici } from './post-with-undici.ts';

/**
 * The post a model adapter uses: its own fetch when given one, else undici (or fetch when the proxy variables are in
 * use).
 */
export function httpPostFor(fetchFn: typeof fetch | undefined): HttpPost {
  if (fetchFn !== undefined) return postWithFetch(fetchFn);
  if (usesEnvProxy()) return postWithFetch(globalThis.fetch);
  return postWithUndici;
}

/** The POST through a fetch; the signal is also raced, so timeouts hold under a fetch that ignores it. */
export function postWithFetch(fetchFn: typeof fetch): HttpPost {
  return (url, request) =>
    untilAborted(
      fetchFn(url, { method: 'POST', headers: request.headers, body: request.body, signal: request.signal }),
      request.signal,
    );
}

/**
 * NODE_USE_ENV_PROXY=1 or --use-env-proxy: Node's fetch then goes through
 * HTTP_PROXY / HTTPS_PROXY (minus NO_PROXY), so model calls keep doing so.
 */
function usesEnvProxy(): boolean {
  const flag = process.env['NODE_USE_ENV_PROXY'];
  if (flag !== undefined && flag !== '' && flag !== '0' && flag !== 'false') return true;
  return (
    process.execArgv.includes('--use-env-proxy') || (process.env['NODE_OPTIONS'] ?? '').includes('--use-env-proxy')
  );
}

/**
 * `fetch`'s answer, or the signal's reason once it aborts — so timeoutMs holds
 * even under an injected fetch that ignores its signal. A response that still
 * arrives afterwards gets its body cancelled.
 */
export function untilAborted(pending: Promise<HttpAnswer>, signal: AbortSignal): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason);
      pending
        .then(
          (late) => late.body?.cancel(),
          () => undefined,
        )
        .catch(() => undefined);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (response) => {
        signal.removeEventListener('abort', onAbort);
        resolve(response);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
