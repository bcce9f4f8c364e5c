import { ToolgateError } from '../core/index.ts';

/** What every RunStore shares: defaults of the port's contract and its one error wording. */
export const DEFAULT_PAGE_SIZE = 50;
/** Idempotency keys are kept at least this long unless the caller asks otherwise. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export function idempotencyMismatch(key: string): ToolgateError {
  return new ToolgateError(
    'idempotency_mismatch',
    `Idempotency-Key "${key}" was already used with a different request body; use a new key for a new request`,
  );
}

/** Retry-After of an HTTP request refused because the store is unavailable: the store is asked again that soon. */
export const STORE_RETRY_AFTER_SECONDS = 1;
