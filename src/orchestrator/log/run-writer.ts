import {
  ToolgateError,
  type EventDraft,
  type Run,
  type RunEvent,
  type RunLease,
  type RunStore,
} from '../../core/index.ts';
import { commitThroughOutage } from './commit-through-outage.ts';
import { emptyConversation, type ConversationState } from '../state/run-state.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { LogFollower } from './log-follower.ts';
import type { AppendPatch } from './transition.ts';
import { AppendQueue, type Commit, type WriteOptions } from './append-queue.ts';

export type { WriteOptions } from './append-queue.ts';

export interface RunWriterOptions {
  store: RunStore;
  /** The run's lease, claimed by the writer's owner: every append carries it (renewed) as its fence. */
  lease: RunLease;
  leaseMs: number;
  /** Where the log stood when the owner read the run: a commit that met an unavailable store is looked for after it. */
  lastEventId: number;
  /** Appends with `defer` may be held back (decision 0014): an engine pass. Otherwise each is committed at once. */
  holdBack?: boolean | undefined;
  /**
   * A commit that meets an unavailable store waits for it, up to a lease
   * (decision 0023; default). `false`: the error is thrown at once, for an
   * owner whose client waits on the append (a gateway session's call).
   */
  waitForStore?: boolean | undefined;
  /** Told of every event once the state took it, in log order, whoever wrote it (a cancel request). */
  onApplied?: ((events: readonly RunEvent[]) => void) | undefined;
  /** Told of the events this writer committed (metrics, logs). */
  onCommitted?: ((events: readonly RunEvent[]) => void) | undefined;
  /** The lease was lost (another process took the run over): nothing more is written. */
  onLost?: (() => void) | undefined;
  /** A commit found the log changed under what the writer expected (see AppendQueue): its owner must stop. */
  onStale?: (() => void) | undefined;
  /** The owner stopped (a cancel): a commit waiting out a store outage gives up at once. */
  stopped?: (() => boolean) | undefined;
}

/**
 * The one write path of a run, for whoever owns it — an engine's pass or a
 * gateway session. It keeps the run's lease (renewed every third of it), and
 * every append carries that lease as its fence: an owner that lost the run
 * can never write to it again. Appends are committed in the order made, held
 * back or not (AppendQueue, decision 0014); a commit rides out a store that is
 * unavailable for a moment (commitThroughOutage, decision 0023). The writer
 * follows the log — its own commits, the store's subscription, the store's
 * watch and a read on every lease beat — so `state` equals the log, whoever
 * wrote it. An append returns the events as the log numbers them: callers take
 * ids from there (a pending approval's eventId is set by the writer).
 */
export class RunWriter {
  readonly runId: string;
  readonly state: ConversationState;
  readonly #options: RunWriterOptions;
  readonly #follower: LogFollower;
  readonly #keeper: LeaseKeeper;
  readonly #queue: AppendQueue;
  readonly #unsubscribe: () => void;
  #unwatch: (() => void) | undefined;
  #closed = false;
  /**
   * Where this writer's commits are known to stand in the log: a commit that met an unavailable store is looked for
   * after it.
   */
  #committedUpTo: number;

  constructor(options: RunWriterOptions) {
    const { store, lease } = options;
    this.runId = lease.runId;
    this.#options = options;
    this.#committedUpTo = options.lastEventId;
    this.state = emptyConversation();
    this.#follower = new LogFollower({
      store,
      runId: this.runId,
      state: this.state,
      onApplied: (events) => options.onApplied?.(events),
    });
    this.#keeper = new LeaseKeeper({
      store,
      lease,
      ttlMs: options.leaseMs,
      onLost: () => this.#lost(),
      onBeat: () => this.#follower.catchUp(),
    });
    this.#queue = new AppendQueue({
      runId: this.runId,
      commit: (commit) => this.#commit(commit),
      lastEventId: () => this.state.lastEventId,
      apply: (events) => this.#follower.offer(events),
      holdBack: options.holdBack === true,
      onStale: options.onStale,
    });
    this.#unsubscribe = store.subscribe(this.runId, (events) => this.#follower.offer(events));
  }

  /**
   * Starts following what other processes append, reads the log into the
   * state and keeps the lease. `catchUp` false: the log is not read first (a
   * run just created with an empty log: whatever another writer appended
   * since is found by the first held-back commit, which expects the log as it was).
   */
  async start(options: { catchUp?: boolean } = {}): Promise<void> {
    const { store } = this.#options;
    // Input posted to another process (a cancel, a message) is appended there: a store that says
    // so (PostgreSQL) has it read at once; otherwise the lease heartbeat's catch-up finds it.
    if (store.watch !== undefined) {
      const unwatch = await store
        .watch(this.runId, (lastEventId) => {
          if (!this.#follower.has(lastEventId)) void this.#follower.catchUp().catch(() => undefined);
        })
        .catch(() => undefined);
      if (this.#closed) unwatch?.();
      else this.#unwatch = unwatch;
    }
    if (options.catchUp !== false) await this.#follower.catchUp();
    if (!this.#closed) this.#keeper.start();
  }

  /** Appends in order under the lease (see AppendFn): resolves with the events as the log numbers them. */
  readonly append = (drafts: EventDraft[], patch?: AppendPatch, options?: WriteOptions): Promise<RunEvent[]> =>
    this.#queue.append(drafts, patch, options);

  /** Commits what is held back, if anything. */
  flush(): Promise<unknown> {
    return this.#queue.flush();
  }

  /** Resolves when the appends made so far are done (whether they succeeded or not). */
  async settled(): Promise<void> {
    await this.#queue.settled();
  }

  get lease(): RunLease {
    return this.#keeper.lease;
  }

  get lost(): boolean {
    return this.#keeper.lost;
  }

  /**
   * A commit found the log changed under what the writer expected: nothing more is written; the run is driven again
   * from the log.
   */
  get stale(): boolean {
    return this.#queue.stale;
  }

  /** Stops keeping the lease, following the log and any timer of the queue. The lease is left as it is. */
  close(): void {
    this.#queue.dispose();
    if (this.#closed) return;
    this.#closed = true;
    this.#keeper.stop();
    this.#unsubscribe();
    this.#unwatch?.();
  }

  /** Closes, and gives the lease up (unless it was lost): the run as it stands then, or undefined. */
  async release(): Promise<Run | undefined> {
    this.close();
    if (this.#keeper.lost) return undefined;
    return this.#options.store.releaseRun(this.#keeper.lease);
  }

  async #commit({ drafts, patch, expectLastEventId }: Commit): Promise<RunEvent[]> {
    const { store } = this.#options;
    const commit = (): Promise<RunEvent[]> =>
      store.append(this.runId, drafts, patch, {
        lease: this.#keeper.lease,
        ...(expectLastEventId === undefined ? {} : { expectLastEventId }),
      });
    let events: RunEvent[];
    try {
      events =
        this.#options.waitForStore === false
          ? await commit()
          : await commitThroughOutage({
              store,
              runId: this.runId,
              drafts,
              commit,
              committedUpTo: () => this.#committedUpTo,
              giveUpAfterMs: this.#options.leaseMs,
              stopped: () => this.#keeper.lost || this.#options.stopped?.() === true,
            });
    } catch (error) {
      if (error instanceof ToolgateError && error.code === 'lease_lost') this.#keeper.markLost();
      throw error;
    }
    this.#committedUpTo = Math.max(this.#committedUpTo, events.at(-1)?.id ?? 0);
    this.#options.onCommitted?.(events);
    // What was appended reaches the state before the append is reported done.
    const settling = this.#follower.settle(events);
    if (settling !== undefined) await settling;
    return events;
  }

  #lost(): void {
    this.close();
    this.#options.onLost?.();
  }
}
