import { describeError } from '../../core/index.ts';
import { abortableSleep } from '../../core/abortable-sleep.ts';
import { signWebhook } from './sign-webhook.ts';

/** One attempt's time limit when the target sets none. */
export const DEFAULT_NOTIFY_TIMEOUT_MS = 10_000;
/** Attempts before a delivery is recorded as failed, when the target sets none. */
export const DEFAULT_NOTIFY_MAX_ATTEMPTS = 5;
/** The wait before the second attempt; it doubles with each attempt after. */
export const DEFAULT_RETRY_BASE_MS = 1000;
/** No wait between attempts is longer than this (Retry-After included). */
export const MAX_RETRY_DELAY_MS = 60_000;

/** A failed attempt: its HTTP status when one came, and why. */
export interface AttemptFailure {
  attempt: number;
  status?: number;
  error: string;
}

export interface DeliveryResult {
  outcome: 'delivered' | 'failed';
  attempts: number;
  failures: AttemptFailure[];
}

export interface DeliverOptions {
  url: string;
  secret: string;
  /** The `webhook-id`: the same on every attempt. */
  id: string;
  body: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxAttempts?: number;
  /** Default DEFAULT_RETRY_BASE_MS (tests make it small). */
  retryBaseMs?: number;
  /** Aborts the waits between attempts and the attempt in flight (the process is stopping). */
  signal?: AbortSignal;
  now?: () => number;
  random?: () => number;
}

/**
 * POSTs a signed JSON body until it is accepted (any 2xx), a 4xx other than 408/429 says it never will be, or the
 * attempts run out; waits 1 s, 2 s, 4 s… (with jitter, at most MAX_RETRY_DELAY_MS, longer if Retry-After asks)
 * between attempts. Redirects are refused: a signed notification goes where it was configured to, nowhere else.
 */
export async function deliverWebhook(options: DeliverOptions): Promise<DeliveryResult> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_NOTIFY_MAX_ATTEMPTS;
  const now = options.now ?? Date.now;
  const failures: AttemptFailure[] = [];
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(options, Math.floor(now() / 1000));
    if (outcome.ok) return { outcome: 'delivered', attempts: attempt, failures };
    failures.push({
      attempt,
      ...(outcome.status === undefined ? {} : { status: outcome.status }),
      error: outcome.error,
    });
    const retryable = outcome.status === undefined || outcome.status >= 500 || [408, 429].includes(outcome.status);
    if (!retryable || attempt >= maxAttempts || options.signal?.aborted === true)
      return { outcome: 'failed', attempts: attempt, failures };
    const backoff = (options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS) * 2 ** (attempt - 1);
    // Jitter spreads the retries of many notifications that failed together (a receiver restarting).
    const jittered = Math.min(MAX_RETRY_DELAY_MS, backoff) * (0.5 + 0.5 * (options.random ?? Math.random)());
    const delay = Math.min(MAX_RETRY_DELAY_MS, Math.max(jittered, outcome.retryAfterMs ?? 0));
    if (
      !(await abortableSleep(delay, options.signal).then(
        () => true,
        () => false,
      ))
    )
      return { outcome: 'failed', attempts: attempt, failures };
  }
}

type Attempt = { ok: true } | { ok: false; status?: number; error: string; retryAfterMs?: number };

async function attemptOnce(options: DeliverOptions, timestamp: number): Promise<Attempt> {
  const signal = AbortSignal.any([
    AbortSignal.timeout(options.timeoutMs ?? DEFAULT_NOTIFY_TIMEOUT_MS),
    ...(options.signal === undefined ? [] : [options.signal]),
  ]);
  try {
    const response = await fetch(options.url, {
      method: 'POST',
      redirect: 'manual',
      signal,
      headers: {
        ...options.headers,
        'content-type': 'application/json',
        'user-agent': 'toolgate-webhooks',
        ...signWebhook({ secret: options.secret, id: options.id, body: options.body, timestamp }),
      },
      body: options.body,
    });
    // The body is not needed; reading it frees the connection.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true };
    if (response.status >= 300 && response.status < 400)
      return { ok: false, status: response.status, error: 'redirects are refused: configure the final URL' };
    const retryAfterMs = retryAfter(response.headers.get('retry-after'), Date.now());
    return {
      ok: false,
      status: response.status,
      error: `HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return {
      ok: false,
      error: timedOut
        ? `no answer within ${options.timeoutMs ?? DEFAULT_NOTIFY_TIMEOUT_MS} ms`
        : describeError(errorCause(error)),
    };
  }
}

/** fetch says only "fetch failed": the cause says why (ECONNREFUSED, a TLS error…). */
function errorCause(error: unknown): unknown {
  return error instanceof Error && error.cause !== undefined ? error.cause : error;
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
export function retryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
