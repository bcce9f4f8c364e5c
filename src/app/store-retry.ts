import { retryDelay } from '../providers/shared/retry.ts';

/**
 * First wait before work that failed because the run store was unavailable
 * (`store_unavailable`) is tried again; it doubles per failure in a row, with
 * jitter, up to DEFAULT_STORE_RETRY_MAX_MS (decision 0023).
 */
export const DEFAULT_STORE_RETRY_MS = 250;
export const DEFAULT_STORE_RETRY_MAX_MS = 5_000;

export interface StoreRetryOptions {
  baseMs?: number;
  maxMs?: number;
}

/** How long one kind of work waits after each failure in a row: not before `notBefore`. */
export class StoreBackoff {
  readonly #baseMs: number;
  readonly #maxMs: number;
  #failures = 0;
  #notBefore = 0;

  constructor(options: StoreRetryOptions = {}) {
    this.#baseMs = options.baseMs ?? DEFAULT_STORE_RETRY_MS;
    this.#maxMs = options.maxMs ?? DEFAULT_STORE_RETRY_MAX_MS;
  }

  /** One more failure: returns how long to wait before the next try. */
  failed(now = Date.now()): number {
    this.#failures += 1;
    const delayMs = Math.round(retryDelay({ retry: this.#failures, baseMs: this.#baseMs, maxMs: this.#maxMs }));
    this.#notBefore = now + delayMs;
    return delayMs;
  }

  succeeded(): void {
    this.#failures = 0;
    this.#notBefore = 0;
  }

  /** Whether the wait after the last failure is over. */
  ready(now = Date.now()): boolean {
    return now >= this.#notBefore;
  }
}

/**
 * Runs whose pass stopped because the store was unavailable: each is handed
 * back to `retry` after a backoff of its own, so a database that is down for
 * a while is asked less and less often, and runs that failed together do not
 * come back together.
 */
export class RunRetries {
  readonly #options: StoreRetryOptions;
  readonly #retry: (runId: string) => void;
  readonly #pending = new Map<string, { backoff: StoreBackoff; timer: ReturnType<typeof setTimeout> | undefined }>();

  constructor(options: StoreRetryOptions & { retry: (runId: string) => void }) {
    this.#options = options;
    this.#retry = options.retry;
  }

  /** Schedules the run to be driven again; returns the wait. */
  later(runId: string): number {
    let entry = this.#pending.get(runId);
    if (entry === undefined) {
      entry = { backoff: new StoreBackoff(this.#options), timer: undefined };
      this.#pending.set(runId, entry);
    }
    clearTimeout(entry.timer);
    const delayMs = entry.backoff.failed();
    const scheduled = entry;
    scheduled.timer = setTimeout(() => {
      scheduled.timer = undefined;
      this.#retry(runId);
    }, delayMs);
    // A retry never keeps a process alive that has nothing else to do.
    scheduled.timer.unref();
    return delayMs;
  }

  /** The run was driven to a stop without a store failure: its backoff starts over. */
  forget(runId: string): void {
    clearTimeout(this.#pending.get(runId)?.timer);
    this.#pending.delete(runId);
  }

  close(): void {
    for (const entry of this.#pending.values()) clearTimeout(entry.timer);
    this.#pending.clear();
  }
}
