import {
  describeError,
  type ToolSource,
  type ToolSourceHealth,
  type ToolSourceState,
  type ToolSpec,
} from '../core/index.ts';

export interface RetryOptions {
  /** Wait before the first retry (default DEFAULT_RETRY_INITIAL_DELAY_MS); doubled after each failure. */
  initialDelayMs?: number;
  /** Longest wait between two retries (default DEFAULT_RETRY_MAX_DELAY_MS). */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY_INITIAL_DELAY_MS = 1_000;
export const DEFAULT_RETRY_MAX_DELAY_MS = 60_000;

export interface SourceSlotOptions {
  /** false: a source that failed stays down until it is asked again (refresh). */
  retry: RetryOptions | false;
  /**
   * After every attempt and state change, with the state before: the registry rebuilds its names and tells its listener
   * of changes.
   */
  onChange: (slot: SourceSlot, previous: ToolSourceState | 'new') => void;
}

/**
 * One source behind a registry, with its health: the last tools it listed,
 * whether it is up, and — when it is down — why, and when it is tried again.
 * Attempts are shared: callers waiting for a listing join the one in flight.
 */
export class SourceSlot {
  readonly source: ToolSource;
  state: ToolSourceState | 'new' = 'new';
  /** The last list it gave (kept while it is down, to name and report its tools). */
  tools: ToolSpec[] | undefined;
  /** Asked to list again (refresh): the next listing waits for it. */
  stale = false;
  error: string | undefined;
  failures = 0;
  since = Date.now();
  retryAt: number | undefined;
  #attempt: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #options: SourceSlotOptions;

  constructor(source: ToolSource, options: SourceSlotOptions) {
    this.source = source;
    this.#options = options;
  }

  /** Whether a listing should wait for this source: never tried, on its first attempt, or asked to list again. */
  get awaited(): boolean {
    return this.state === 'new' || this.state === 'connecting' || this.stale;
  }

  /** Lists the source (joining an attempt in flight); never rejects: failure is recorded as state. */
  attempt(): Promise<void> {
    this.#attempt ??= this.#run().finally(() => {
      this.#attempt = undefined;
    });
    return this.#attempt;
  }

  health(): ToolSourceHealth {
    const state = this.state === 'new' ? 'connecting' : this.state;
    return {
      name: this.source.name,
      state,
      tools: this.tools?.length ?? 0,
      ...(this.error === undefined || state === 'up' ? {} : { error: this.error }),
      since: new Date(this.since).toISOString(),
      failures: this.failures,
      ...(this.retryAt === undefined || state !== 'down' ? {} : { retryAt: new Date(this.retryAt).toISOString() }),
    };
  }

  /**
   * Gives up waiting for a first attempt that takes too long: the source is
   * reported down with this reason while the attempt goes on (its answer still counts).
   */
  markSlow(reason: string): void {
    if (this.state !== 'connecting' && this.state !== 'new') return;
    this.error = reason;
    this.#set('down');
  }

  /**
   * A source that was up could not be reached for a call (it could not even be
   * started again): it is down from now on, with that cause, and retried like
   * any source that is down, so health and listings stop offering its tools.
   */
  reportUnreachable(reason: string): void {
    if (this.state !== 'up' || this.#closed) return;
    this.failures += 1;
    this.error = reason;
    this.#scheduleRetry();
    this.#set('down');
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #run(): Promise<void> {
    if (this.state === 'new') this.#set('connecting');
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      const tools = await this.source.listTools();
      if (this.#closed) return;
      this.tools = tools;
      this.stale = false;
      this.failures = 0;
      this.error = undefined;
      this.retryAt = undefined;
      this.#set('up', true);
    } catch (error) {
      if (this.#closed) return;
      this.stale = false;
      this.failures += 1;
      this.error = describeError(error);
      this.#scheduleRetry();
      this.#set('down', true);
    }
  }

  #set(state: ToolSourceState, listed = false): void {
    const previous = this.state;
    if (previous !== state) this.since = Date.now();
    this.state = state;
    if (listed || previous !== state) this.#options.onChange(this, previous);
  }

  #scheduleRetry(): void {
    const retry = this.#options.retry;
    if (retry === false) {
      this.retryAt = undefined;
      return;
    }
    const initial = retry.initialDelayMs ?? DEFAULT_RETRY_INITIAL_DELAY_MS;
    const max = retry.maxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS;
    // Doubling, capped, with some jitter so servers that went down together are not retried in lockstep.
    const base = Math.min(max, initial * 2 ** Math.min(this.failures - 1, 30));
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.retryAt = Date.now() + delay;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.attempt();
    }, delay);
    // A process that is otherwise done (a CLI run) does not wait for a retry.
    this.#timer.unref();
  }
}
