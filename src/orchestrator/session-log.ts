import { TERMINAL_RUN_STATUSES, ToolgateError, draft, type EventDraft, type RunEvent, type RunLease, type RunPatch, type RunStatus, type RunStore } from '../core/index.ts';
import { LeaseKeeper } from './lease-keeper.ts';

export interface SessionLogOptions {
  store: RunStore;
  runId: string;
  lease: RunLease;
  leaseMs: number;
  /** Another process took the run over: nothing more may be written. */
  onLost: () => void;
  /** A cancel was requested, here or by another process. */
  onCancel: (reason: string) => void;
  /** Told of every append (metrics, logs). */
  onEvents?: ((events: readonly RunEvent[]) => void) | undefined;
}

/**
 * A gateway session run's log as its owner writes it: appends one at a time
 * under the lease (kept alive while the session lives), status changes made
 * only against the run as it stands, and what other processes append — a
 * cancel from the runs API of another instance — heard at once in this
 * process, at the store's notice where it gives one, else on the next lease beat.
 */
export class SessionLog {
  readonly runId: string;
  readonly #options: SessionLogOptions;
  readonly #keeper: LeaseKeeper;
  readonly #unsubscribe: () => void;
  #unwatch: (() => void) | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  /** The last event seen (appended here or read back). */
  #seen = 0;
  #closed = false;

  constructor(options: SessionLogOptions) {
    this.runId = options.runId;
    this.#options = options;
    this.#keeper = new LeaseKeeper({ store: options.store, lease: options.lease, ttlMs: options.leaseMs, onLost: () => this.#lost(), onBeat: () => this.#read() });
    this.#unsubscribe = options.store.subscribe(options.runId, (events) => this.#observe(events));
  }

  get lost(): boolean {
    return this.#keeper.lost;
  }

  /** Starts renewing the lease and watching the log. */
  async start(): Promise<void> {
    this.#keeper.start();
    const { store } = this.#options;
    if (store.watch !== undefined) this.#unwatch = await store.watch(this.runId, () => void this.#read().catch(() => undefined)).catch(() => undefined);
  }

  /** Appends under the session's lease, one append at a time. */
  append(drafts: EventDraft[], patch?: RunPatch, expectLastEventId?: number): Promise<RunEvent[]> {
    const next = this.#chain.then(async () => {
      if (drafts.length === 0) return [];
      try {
        const events = await this.#options.store.append(this.runId, drafts, patch, { lease: this.#keeper.lease, ...(expectLastEventId === undefined ? {} : { expectLastEventId }) });
        this.#options.onEvents?.(events);
        return events;
      } catch (error) {
        if (error instanceof ToolgateError && error.code === 'lease_lost') this.#keeper.markLost();
        throw error;
      }
    });
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /** Resolves when the appends made so far are done. */
  async settled(): Promise<void> {
    await this.#chain;
  }

  /**
   * A status change with its events, in one append made only if the run did
   * not change meanwhile (the runs API may decide at the same moment). With
   * `onlyIfPending`, the status is left alone once that call is no longer
   * pending (decided or cleared elsewhere): only the events are appended.
   */
  async transition(options: { to: RunStatus; events: EventDraft[]; reason: string; patch: (eventId: number) => RunPatch; onlyIfPending?: string }): Promise<RunEvent[]> {
    for (let attempt = 1; ; attempt++) {
      const run = await this.#options.store.getRun(this.runId);
      if (run === undefined || TERMINAL_RUN_STATUSES.has(run.status)) throw new ToolgateError('conflict', `gateway session ${this.runId} has ended`);
      if (options.onlyIfPending !== undefined && run.pendingApproval?.toolCallId !== options.onlyIfPending) return this.append(options.events);
      const change = run.status === options.to ? [] : [draft('run_status', { from: run.status, to: options.to, reason: options.reason })];
      const drafts = [...change, ...options.events];
      try {
        return await this.append(drafts, { status: options.to, ...options.patch(run.lastEventId + drafts.length) }, run.lastEventId);
      } catch (error) {
        if (!(error instanceof ToolgateError && error.code === 'conflict') || attempt >= 3) throw error;
      }
    }
  }

  /** Stops renewing and listening, and releases the lease (unless it was lost). */
  async close(): Promise<void> {
    this.#detach();
    if (!this.#keeper.lost) await this.#options.store.releaseRun(this.#keeper.lease).catch(() => undefined);
  }

  async #read(): Promise<void> {
    if (this.#closed) return;
    this.#observe(await this.#options.store.readEvents(this.runId, { after: this.#seen }));
  }

  #observe(events: readonly RunEvent[]): void {
    for (const event of events) {
      if (event.id <= this.#seen) continue;
      this.#seen = event.id;
      if (event.type === 'cancel_requested') this.#options.onCancel(event.data.reason);
    }
  }

  #detach(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#keeper.stop();
    this.#unsubscribe();
    this.#unwatch?.();
  }

  #lost(): void {
    this.#detach();
    this.#options.onLost();
  }
}
