import { describeError, type RunLease, type RunStore } from '../../core/index.ts';

/**
 * After a failed renewal the next try comes this soon, doubling up to the beat interval: a store out for a moment
 * (a connection killed, a failover) must not cost the lease by waiting two whole beats.
 */
export const RENEW_RETRY_MS = 100;

/**
 * Keeps a run's lease alive while this process drives it: renews it every
 * third of its length (sooner after a failed renewal), and on every beat calls `onBeat` (the engine reads what
 * other processes appended, e.g. a cancel request). When a renewal finds the
 * lease gone — this process was paused past it and another took the run over —
 * `onLost` fires once and the owner stops at once; its appends would be
 * refused anyway (the epoch fences them).
 */
export class LeaseKeeper {
  readonly #store: RunStore;
  readonly #ttlMs: number;
  readonly #onLost: () => void;
  readonly #onBeat: () => Promise<void>;
  #lease: RunLease;
  #timer: ReturnType<typeof setInterval> | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #beating = false;
  #lost = false;
  /** Renewals that failed in a row (the store unreachable): the first is said, the rest counted. */
  #failedInARow = 0;

  constructor(options: {
    store: RunStore;
    lease: RunLease;
    ttlMs: number;
    onLost: () => void;
    onBeat?: () => Promise<void>;
  }) {
    this.#store = options.store;
    this.#lease = options.lease;
    this.#ttlMs = options.ttlMs;
    this.#onLost = options.onLost;
    this.#onBeat = options.onBeat ?? (() => Promise.resolve());
  }

  /** The lease as last renewed: what appends carry. */
  get lease(): RunLease {
    return this.#lease;
  }

  get lost(): boolean {
    return this.#lost;
  }

  get #intervalMs(): number {
    return Math.max(10, Math.floor(this.#ttlMs / 3));
  }

  start(): void {
    this.#timer = setInterval(() => void this.beat(), this.#intervalMs);
    // A lease must never keep a process alive that has nothing else to do.
    this.#timer.unref();
  }

  /** One renewal (skipped while the previous one is still running). */
  async beat(): Promise<void> {
    if (this.#beating || this.#lost) return;
    this.#beating = true;
    try {
      const renewed = await this.#store.renewLease(this.#lease, this.#ttlMs);
      if (renewed === undefined) {
        this.markLost();
        return;
      }
      this.#lease = renewed;
      if (this.#failedInARow > 0) {
        process.emitWarning(
          `run ${this.#lease.runId}: lease renewed again after ${this.#failedInARow} ` +
            `failed ${this.#failedInARow === 1 ? 'renewal' : 'renewals'}`,
        );
        this.#failedInARow = 0;
      }
      await this.#onBeat();
    } catch (error) {
      // A store hiccup: the next beat tries again; the lease outlives a few missed beats.
      // Said once per streak, not on every beat of an outage (one line per run, not three a lease).
      this.#failedInARow += 1;
      if (this.#failedInARow === 1) {
        process.emitWarning(
          `run ${this.#lease.runId}: lease renewal failed: ${describeError(error)} (trying again ` +
            `within ${RENEW_RETRY_MS} ms, then less often up to every ${this.#intervalMs} ms; said again once ` +
            'it is renewed)',
        );
      }
      this.#retrySoon();
    } finally {
      this.#beating = false;
    }
  }

  /** One early renewal after a failed one (while the keeper runs), sooner than the next beat. */
  #retrySoon(): void {
    if (this.#retry !== undefined || this.#timer === undefined || this.#lost) return;
    const delay = Math.min(this.#intervalMs, RENEW_RETRY_MS * 2 ** Math.min(10, this.#failedInARow - 1));
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.beat();
    }, delay);
    this.#retry.unref();
  }

  markLost(): void {
    if (this.#lost) return;
    this.#lost = true;
    this.stop();
    this.#onLost();
  }

  stop(): void {
    clearInterval(this.#timer);
    clearTimeout(this.#retry);
    this.#timer = undefined;
    this.#retry = undefined;
  }
}
