import {
  ToolgateError,
  describeError,
  type NewRun,
  type Run,
  type RunEvent,
  type RunLease,
  type RunSettings,
} from '../core/index.ts';
import { FairQueue } from './fair-queue.ts';
import { RunRetries, StoreBackoff, type StoreRetryOptions } from './store-retry.ts';
import type { Toolgate } from './toolgate.ts';

export interface RunSchedulerOptions {
  toolgate: Pick<Toolgate, 'engine' | 'store'>;
  concurrency: number;
  onError: (message: string) => void;
  onEvents?: ((events: readonly RunEvent[]) => void) | undefined;
  storeRetry?: StoreRetryOptions | undefined;
}

/**
 * Which runs this process drives, and when: a queue served tenant by tenant
 * in turn (FairQueue) with a concurrency limit, a sweep that takes over runs whose owner
 * stopped (their lease expired), and a graceful stop at safe points. Once
 * recovery has started, a slot that frees with nothing queued here claims the
 * next run from the store at once while the store may hold more (a backlog
 * after a restart drains at full speed, not one sweep at a time). A run whose
 * pass stopped because the store was unavailable is driven again after a
 * backoff (decision 0023).
 */
export class RunScheduler {
  readonly #toolgate: Pick<Toolgate, 'engine' | 'store'>;
  readonly #concurrency: number;
  readonly #queue = new FairQueue();
  readonly #active = new Map<string, Promise<void>>();
  /** Slots held for runs being created and claimed (startNow), until they are driven. */
  #reserved = 0;
  readonly #stop = new AbortController();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #sweeping = false;
  /** A slot freed while a sweep was claiming: claim again when it is done. */
  #sweepAgain = false;
  /** The last claim filled every slot it asked for: the store may hold more claimable runs. */
  #storeMayHaveMore = false;
  /** Claims wait after a failed one (the store is unavailable), instead of asking at every freed slot. */
  readonly #claimBackoff: StoreBackoff;
  readonly #retries: RunRetries;
  #closing = false;
  readonly #onError: (message: string) => void;
  readonly #onEvents: ((events: readonly RunEvent[]) => void) | undefined;

  constructor(options: RunSchedulerOptions) {
    this.#toolgate = options.toolgate;
    this.#concurrency = options.concurrency;
    this.#onError = options.onError;
    this.#onEvents = options.onEvents;
    this.#claimBackoff = new StoreBackoff(options.storeRetry);
    this.#retries = new RunRetries({
      ...options.storeRetry,
      // A run driven again after an outage waits in the lane of runs without a tenant: its tenant is not
      // known here, and an outage delays every tenant alike.
      retry: (runId) => this.schedule(runId, undefined),
    });
  }

  get closing(): boolean {
    return this.#closing;
  }

  /** Runs being driven or waiting for a slot. */
  get load(): { active: number; queued: number } {
    return { active: this.#active.size, queued: this.#queue.size };
  }

  /**
   * Schedules the waiting runs given, then claims what needs an owner; from
   * then on, sweeps every half lease for runs whose owner went away. Returns
   * the ids of the runs taken over now.
   */
  async recover(waiting: readonly Run[]): Promise<string[]> {
    for (const run of waiting) this.schedule(run.id, run.tenantId);
    this.#storeMayHaveMore = true;
    const taken = await this.#sweep();
    if (this.#sweeper === undefined && !this.#closing) {
      this.#sweeper = setInterval(
        () =>
          void this.#sweep().catch((error: unknown) =>
            this.#onError(`sweep for orphaned runs failed: ${describeError(error)}`),
          ),
        Math.max(50, Math.floor(this.#toolgate.engine.leaseMs / 2)),
      );
      this.#sweeper.unref();
    }
    return taken;
  }

  /**
   * A slot is free and nobody waits for one: the run is created and claimed in
   * one write and driven at once. Undefined when it has to wait its turn.
   */
  async startNow(init: NewRun & { settings: RunSettings }): Promise<Run | undefined> {
    if (this.#queue.size > 0 || this.#busySlots() >= this.#concurrency) return undefined;
    this.#reserved += 1;
    let started: { run: Run; lease: RunLease | undefined };
    try {
      started = await this.#toolgate.engine.startClaimed(init);
    } finally {
      this.#reserved -= 1;
    }
    const { run, lease } = started;
    if (lease === undefined) this.schedule(run.id, run.tenantId);
    // Shutting down meanwhile: left to recovery, as queued runs are, without waiting for its lease to expire.
    else if (this.#closing) await this.#toolgate.store.releaseRun(lease).catch(() => undefined);
    else this.#start(run.id, lease, run);
    return run;
  }

  /** Runs waiting for a slot here: in all, and of one tenant. */
  waiting(tenantId: string | undefined): { all: number; ofTenant: number } {
    return { all: this.#queue.size, ofTenant: this.#queue.sizeOf(tenantId) };
  }

  schedule(runId: string, tenantId: string | undefined): void {
    if (this.#closing) return;
    if (this.#active.has(runId)) {
      // Being driven: the engine looks again when its pass ends.
      void this.#toolgate.engine.drive(runId);
      return;
    }
    this.#queue.push(runId, tenantId);
    this.#pump();
  }

  /** The run no longer waits for a slot (it was cancelled). */
  unqueue(runId: string): void {
    this.#queue.delete(runId);
  }

  /** Hands the run's live events to onEvents until the returned function is called. */
  observe(runId: string): () => void {
    const onEvents = this.#onEvents;
    if (onEvents === undefined) return () => undefined;
    return this.#toolgate.store.subscribe(runId, (events) => onEvents(events));
  }

  /**
   * Stops taking runs and lets running ones reach a safe point (between steps);
   * after `graceMs` the rest is left to recovery.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweeper);
    this.#retries.close();
    this.#queue.clear();
    this.#stop.abort();
    const all = Promise.all([...this.#active.values()]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
  }

  /** Slots taken: runs being driven, and runs being created and claimed to be driven at once. */
  #busySlots(): number {
    return this.#active.size + this.#reserved;
  }

  #pump(): void {
    while (this.#busySlots() < this.#concurrency) {
      const runId = this.#queue.shift();
      if (runId === undefined) break;
      this.#start(runId);
    }
    this.#claimFreeSlots();
  }

  /** Slots free for runs from the store: neither busy nor promised to a run queued here. */
  #freeSlots(): number {
    return this.#concurrency - this.#busySlots() - this.#queue.size;
  }

  /**
   * A slot is free and nothing here waits for it: the next runs are claimed
   * from the store now, not at the next sweep — while the last claim filled
   * every slot it asked for (so the store may hold more), and not while the
   * store is failing (the backoff after a failed claim). Recovery turns it on.
   */
  #claimFreeSlots(): void {
    if (
      this.#sweeper === undefined ||
      this.#closing ||
      !this.#storeMayHaveMore ||
      this.#freeSlots() <= 0 ||
      !this.#claimBackoff.ready()
    )
      return;
    void this.#sweep().catch((error: unknown) =>
      this.#onError(`claiming runs from the store failed: ${describeError(error)}`),
    );
  }

  /**
   * Claims runs that need an owner (orphaned, or queued and never picked up)
   * for the free slots. One claim at a time: a slot that frees meanwhile is
   * filled by one more round, never by a second claim alongside.
   */
  async #sweep(): Promise<string[]> {
    if (this.#closing) return [];
    if (this.#sweeping) {
      this.#sweepAgain = true;
      return [];
    }
    this.#sweeping = true;
    const taken: string[] = [];
    try {
      do {
        this.#sweepAgain = false;
        const free = this.#freeSlots();
        if (free <= 0) break;
        let leases: RunLease[];
        try {
          leases = await this.#toolgate.engine.claimNext(free);
        } catch (error) {
          this.#claimBackoff.failed();
          throw error;
        }
        this.#claimBackoff.succeeded();
        this.#storeMayHaveMore = leases.length >= free;
        for (const lease of leases) {
          this.#queue.delete(lease.runId);
          this.#start(lease.runId, lease);
          taken.push(lease.runId);
        }
      } while (this.#sweepAgain && !this.#closing);
    } finally {
      this.#sweeping = false;
    }
    return taken;
  }

  /** Drives a run in a slot: with its lease when claimed, and the run itself when it was just created and claimed. */
  #start(runId: string, lease?: RunLease, created?: Run): void {
    const unobserve = this.observe(runId);
    const done = this.#toolgate.engine
      .drive(runId, { stopSignal: this.#stop.signal, lease, run: created })
      .then(
        () => this.#retries.forget(runId),
        (error: unknown) => {
          if (!(error instanceof ToolgateError && error.code === 'store_unavailable')) {
            this.#onError(`run ${runId} could not be driven: ${describeError(error)}`);
            return;
          }
          // Not a failure of the run: its log stays as it is, and it is driven again from there once the store answers.
          if (this.#closing) return;
          const delayMs = this.#retries.later(runId);
          this.#onError(
            `run ${runId} paused, the run store is unavailable: ${describeError(error)}; trying again in ${delayMs} ms`,
          );
        },
      )
      .finally(() => {
        unobserve();
        this.#active.delete(runId);
        this.#pump();
      });
    this.#active.set(runId, done);
  }
}
