/**
 * One model call over HTTP, the same for every provider: POST, a timeout per
 * attempt, retries with backoff (or the server's Retry-After) on transient
 * failures, cancellation at any point, and never a retry once text reached
 * the caller. The provider supplies the request, how to read a good answer
 * and how to word a final HTTP error.
 */
import { ToolgateError } from '../../core/errors.ts';
import { connectionError, isConnectionError } from './http-errors.ts';
import type { AnswerHeaders, HttpAnswer, HttpPost } from './http-answer.ts';
import { DEFAULT_MAX_ERROR_BODY_BYTES, limitExceeded } from './limits.ts';
import { readText } from './read-body.ts';
import { abortableSleep } from '../../core/abortable-sleep.ts';
import { DEFAULT_MAX_RETRY_DELAY_MS, parseRetryAfter, retryDelay } from './retry.ts';

/** Local models on a CPU can take minutes for a long answer; the cloud rarely needs this much. */
export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_RETRY_BASE_DELAY_MS = 500;

/** A failure worth another attempt, turned into a final error only when attempts run out. */
export class RetryableFailure extends Error {
  readonly status: number | undefined;
  readonly bodyText: string;
  readonly retryAfterMs: number | undefined;
  /** Text already reached the caller: retrying would show it twice. */
  readonly delivered: boolean;

  constructor(input: {
    status?: number;
    bodyText?: string;
    retryAfterMs?: number | undefined;
    cause?: unknown;
    delivered?: boolean;
  }) {
    super(input.status === undefined ? 'connection failed' : `HTTP ${input.status}`, { cause: input.cause });
    this.status = input.status;
    this.bodyText = input.bodyText ?? '';
    this.retryAfterMs = input.retryAfterMs;
    this.delivered = input.delivered ?? false;
  }
}

/**
 * A connection failure while reading an answer becomes a RetryableFailure
 * (remembering whether text was delivered); anything else passes unchanged.
 */
export function readFailure(error: unknown, input: { signal: AbortSignal; delivered?: boolean }): unknown {
  if (!input.signal.aborted && isConnectionError(error))
    return new RetryableFailure({ cause: error, delivered: input.delivered ?? false });
  return error;
}

/**
 * A whole (non-streamed) answer as text, within maxBytes: a larger declared
 * or actual body fails the call naming `providers.<provider>.maxResponseBytes`;
 * a connection that breaks while reading is worth another attempt.
 */
export async function readAnswerText(input: {
  response: HttpAnswer;
  signal: AbortSignal;
  url: string;
  provider: string;
  maxBytes: number;
}): Promise<string> {
  const { response, signal, url, provider, maxBytes } = input;
  try {
    return await readText(response, {
      maxBytes,
      signal,
      tooLarge: (declared) =>
        limitExceeded({
          provider,
          option: 'maxResponseBytes',
          limit: maxBytes,
          what: `the response body from ${url}${declared === undefined ? '' : ` (Content-Length: ${declared})`}`,
        }),
    });
  } catch (error) {
    throw readFailure(error, { signal });
  }
}

export interface RetryPolicy {
  /** Per attempt, for the whole exchange: connecting, waiting and reading the full stream or body. */
  timeoutMs?: number;
  /** Retries after the first attempt on the provider's retryable statuses and connection errors. */
  maxRetries?: number;
  retryBaseDelayMs?: number;
  /** Cap on any single wait between attempts, Retry-After included. */
  maxRetryDelayMs?: number;
}

export interface HttpModelCall<T> {
  url: string;
  /** The config key (`providers.<name>`), named in the timeout message. */
  provider: string;
  /** Sends one attempt (see httpPostFor). */
  post: HttpPost;
  policy: RetryPolicy;
  /** Headers and body of one attempt (built again for each, so nothing is shared between attempts). */
  request: () => { headers: Record<string, string>; body: string };
  /** Whether an error status (with its body, already read, and headers) deserves another attempt. */
  retryable: (answer: { status: number; bodyText: string; headers: AnswerHeaders }) => boolean;
  /** The final error for an HTTP status that is not retried or whose retries ran out. */
  httpError: (input: { status: number; bodyText: string; attempts: number }) => ToolgateError;
  /** Reads a 2xx answer. May throw RetryableFailure (see readFailure). */
  read: (response: HttpAnswer, signal: AbortSignal) => Promise<T>;
  /** The caller's signal: cancels the call and any wait between attempts. */
  signal?: AbortSignal | undefined;
}

/**
 * The headers of a request: the provider's own, then the configured ones, which
 * replace a default of the same name whatever its case (as Headers.set would).
 * A plain object, which the request reads once, rather than a Headers built per call.
 */
export function requestHeaders(
  defaults: Record<string, string>,
  configured: Record<string, string> | undefined,
): Record<string, string> {
  if (configured === undefined) return defaults;
  const headers = { ...defaults };
  for (const [name, value] of Object.entries(configured)) {
    const lower = name.toLowerCase();
    for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) delete headers[key];
    headers[lower] = value;
  }
  return headers;
}

/** A function, not an inline check, so TypeScript does not narrow `aborted` across awaits. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * The signal of one attempt: aborted by the caller's signal or when the
 * attempt's time is up. One controller and one timer, rather than
 * AbortSignal.timeout + AbortSignal.any, whose composite signal is re-checked on
 * every `aborted` read and held by weak references until collected: measurable
 * on a hot path that makes a model call per step.
 */
class AttemptSignal {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #user: AbortSignal | undefined;
  readonly #forward = (): void => this.#controller.abort(this.#user?.reason);
  timedOut = false;

  constructor(timeoutMs: number, user: AbortSignal | undefined) {
    this.#user = user;
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#controller.abort(new DOMException(`The operation timed out after ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
    // Like AbortSignal.timeout: a pending attempt does not keep the process alive on its own.
    this.#timer.unref();
    user?.addEventListener('abort', this.#forward, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Stops the timer and the forwarding; the signal stays as it is. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#user?.removeEventListener('abort', this.#forward);
  }
}

export async function callWithRetries<T>(call: HttpModelCall<T>): Promise<T> {
  const { url, policy } = call;
  const timeoutMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = policy.maxRetries ?? DEFAULT_MAX_RETRIES;
  const userSignal = call.signal;
  const cancelled = (): ToolgateError =>
    new ToolgateError('cancelled', `model request to ${url} was cancelled`, { cause: userSignal?.reason });
  for (let attempt = 1; ; attempt += 1) {
    if (aborted(userSignal)) throw cancelled();
    const attemptSignal = new AttemptSignal(timeoutMs, userSignal);
    try {
      return await attemptOnce(call, attemptSignal.signal, attempt);
    } catch (error) {
      attemptSignal.dispose();
      if (aborted(userSignal)) throw cancelled();
      if (attemptSignal.timedOut) {
        throw new ToolgateError(
          'model_timeout',
          `model request to ${url} did not finish within ${timeoutMs} ms; raise ` +
            `timeoutMs (providers.${call.provider}.timeoutMs) for slow or local models`,
          { cause: error, details: { url, timeoutMs, attempts: attempt } },
        );
      }
      if (!(error instanceof RetryableFailure)) throw error;
      if (error.delivered || attempt > maxRetries) throw finalError(call, error, attempt);
      const delay = retryDelay({
        retry: attempt,
        baseMs: policy.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS,
        maxMs: policy.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS,
        retryAfterMs: error.retryAfterMs,
      });
      try {
        await abortableSleep(delay, userSignal);
      } catch {
        throw cancelled();
      }
    } finally {
      attemptSignal.dispose();
    }
  }
}

async function attemptOnce<T>(call: HttpModelCall<T>, signal: AbortSignal, attempt: number): Promise<T> {
  const { headers, body } = call.request();
  let response: HttpAnswer;
  try {
    response = await call.post(call.url, { headers, body, signal });
  } catch (error) {
    throw readFailure(error, { signal });
  }
  if (response.status >= 300 && response.status <= 399) {
    // Not followed: the request's credentials would go wherever the Location says (fetch, when one is given, follows).
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    throw new ToolgateError(
      'model_error',
      `${call.url} answered HTTP ${response.status}, a redirect${location === null ? '' : ` to ${location}`}; ` +
        `model calls do not follow redirects: set providers.${call.provider}'s base URL (or host) to where it points`,
      { details: { status: response.status, url: call.url, ...(location === null ? {} : { location }) } },
    );
  }
  if (!response.ok) {
    // Only quoted, truncated; a body that never ends must not hold the attempt.
    const bodyText = await readText(response, { maxBytes: DEFAULT_MAX_ERROR_BODY_BYTES, signal }).catch(() => '');
    if (call.retryable({ status: response.status, bodyText, headers: response.headers })) {
      throw new RetryableFailure({
        status: response.status,
        bodyText,
        retryAfterMs: parseRetryAfter(response.headers),
      });
    }
    throw call.httpError({ status: response.status, bodyText, attempts: attempt });
  }
  return call.read(response, signal);
}

function finalError<T>(call: HttpModelCall<T>, failure: RetryableFailure, attempts: number): ToolgateError {
  if (failure.status !== undefined)
    return call.httpError({ status: failure.status, bodyText: failure.bodyText, attempts });
  const error = connectionError({ error: failure.cause, url: call.url, attempts });
  if (!failure.delivered) return error;
  return new ToolgateError(
    'model_unavailable',
    `${error.message} (the stream broke after text was delivered, so it was not retried)`,
    {
      cause: failure.cause,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  );
}
