import { isObject } from './answers.ts';
import { ToolgateApiError, ToolgateClientError } from './client-error.ts';
import type { FetchFunction, ToolgateClientOptions } from './types.ts';

/** One request of the runs API. */
export interface ClientRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path and query, from the server's root: `/v1/runs/run_1`. */
  path: string;
  /** The route, as docs/server.md names it (`GET /v1/runs/{id}`), for messages. */
  route: string;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
  signal?: AbortSignal | undefined;
  /** The run the request is about, carried into errors. */
  runId?: string;
}

/** How much of a body that is not toolgate's error JSON is kept in the error. */
const BODY_EXCERPT_CHARS = 300;

/** The transport: headers, credentials, and every failure turned into a ToolgateApiError or ToolgateClientError. */
export class ClientHttp {
  readonly url: string;
  readonly #options: ToolgateClientOptions;
  readonly #fetch: FetchFunction;

  constructor(options: ToolgateClientOptions) {
    this.url = serverRoot(options.url);
    this.#options = options;
    // Wrapped: a browser's fetch called as a method of another object throws "Illegal invocation".
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
  }

  /** The response of a request that succeeded (2xx); throws otherwise. */
  async send(request: ClientRequest): Promise<Response> {
    const url = `${this.url}${request.path}`;
    const init: RequestInit = { method: request.method, headers: this.#headers(request, url) };
    if (request.body !== undefined) init.body = JSON.stringify(request.body);
    if (request.signal !== undefined) init.signal = request.signal;
    if (this.#options.credentials !== undefined) init.credentials = this.#options.credentials;
    let response: Response;
    try {
      const doFetch = this.#fetch;
      response = await doFetch(url, init);
    } catch (error) {
      if (request.signal?.aborted === true) throw error;
      throw new ToolgateClientError({
        reason: 'unreachable',
        message: `cannot reach the toolgate server at ${this.url} (${causeOf(error)}) for ${request.method} ${url}`,
        serverUrl: this.url,
        route: request.route,
        ...(request.runId === undefined ? {} : { runId: request.runId }),
        cause: error,
      });
    }
    if (response.ok) return response;
    throw await this.#failure(response, { request, url });
  }

  /** The JSON answer of a request, checked by `accept`; anything else is an `unexpected_answer`. */
  async json<T>(request: ClientRequest, accept: (body: unknown) => body is T): Promise<T> {
    const response = await this.send(request);
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      if (request.signal?.aborted === true) throw error;
      throw this.unexpected(request, 'a body that is not JSON');
    }
    if (!accept(body)) throw this.unexpected(request, 'JSON that is not its answer');
    return body;
  }

  /** A success that is not the runs API's answer: most likely another server at this URL. */
  unexpected(request: ClientRequest, what: string): ToolgateClientError {
    return new ToolgateClientError({
      reason: 'unexpected_answer',
      message:
        `the server at ${this.url} answered ${request.route} with ${what}: it is not toolgate's runs API ` +
        `(is the URL right?)`,
      serverUrl: this.url,
      route: request.route,
      ...(request.runId === undefined ? {} : { runId: request.runId }),
    });
  }

  #headers(request: ClientRequest, url: string): Record<string, string> {
    const { apiKey, csrfToken, headers } = this.#options;
    const extra = typeof headers === 'function' ? headers({ method: request.method, url }) : headers;
    const out: Record<string, string> = { accept: 'application/json', ...lowerCased(extra) };
    if (apiKey !== undefined) out['authorization'] = `Bearer ${apiKey}`;
    const token = request.method === 'GET' ? undefined : csrfToken?.();
    if (token !== undefined) out['x-csrf-token'] = token;
    if (request.body !== undefined) out['content-type'] = 'application/json';
    return { ...out, ...lowerCased(request.headers) };
  }

  async #failure(response: Response, context: { request: ClientRequest; url: string }): Promise<ToolgateApiError> {
    const { request, url } = context;
    const text = await response.text().catch(() => '');
    const error = toolgateError(text);
    const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
    const common = {
      status: response.status,
      method: request.method,
      url,
      ...(request.runId === undefined ? {} : { runId: request.runId }),
      ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterSeconds: retryAfter } : {}),
    };
    if (error !== undefined) return new ToolgateApiError({ ...common, ...error });
    const excerpt = text.slice(0, BODY_EXCERPT_CHARS).trim();
    const statusText = response.statusText === '' ? '' : ` ${response.statusText}`;
    return new ToolgateApiError({
      ...common,
      code: 'http_error',
      message:
        `${request.method} ${url} answered HTTP ${response.status}${statusText} without toolgate's error body` +
        (excerpt === '' ? '' : `: ${excerpt}`),
      ...(excerpt === '' ? {} : { body: excerpt }),
    });
  }
}

/** `{"error": {"code", "message", "issues"?}}`, the runs API's error body. */
function toolgateError(text: string): { code: string; message: string; issues?: readonly unknown[] } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = isObject(body) ? body['error'] : undefined;
  if (!isObject(error) || typeof error['code'] !== 'string' || typeof error['message'] !== 'string') return undefined;
  const issues = error['issues'];
  return { code: error['code'], message: error['message'], ...(Array.isArray(issues) ? { issues } : {}) };
}

function lowerCased(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/** What a failed fetch says: Node's fetch hides the network error (ECONNREFUSED, …) in its `cause`. */
function causeOf(error: unknown): string {
  const inner = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (!(inner instanceof Error)) return String(inner);
  if (inner.message !== '') return inner.message;
  // An AggregateError (every address of a name refused) has no message of its own, only a code.
  const code: unknown = Reflect.get(inner, 'code');
  return typeof code === 'string' ? code : inner.name;
}

/** The server's root without a trailing slash; a clear error for anything that is not an http(s) URL. */
export function serverRoot(url: unknown): string {
  const example = 'such as "http://127.0.0.1:8787" (in a page the server serves: location.origin)';
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ToolgateClientError({
      reason: 'usage',
      message: `ToolgateClient needs \`url\`: the server's root, ${example}`,
    });
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ToolgateClientError({
      reason: 'usage',
      message: `ToolgateClient's url "${url}" is not an http:// or https:// URL; give the server's root, ${example}`,
    });
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    throw new ToolgateClientError({
      reason: 'usage',
      message: `ToolgateClient's url "${url}" has a query or fragment; give the server's root, ${example}`,
    });
  }
  return url.trim().replace(/\/+$/, '');
}
