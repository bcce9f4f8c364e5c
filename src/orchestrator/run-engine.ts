import {
  ACTIVE_RUN_STATUSES,
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  draft,
  type IdempotencyRequest,
  type NewRun,
  type Run,
  type RunEvent,
  type RunInput,
  type RunLease,
  type RunSettings,
  type RunStore,
} from '../core/index.ts';
import { commitThroughOutage } from './commit-through-outage.ts';
import { emptyConversation } from './conversation-state.ts';
import { endLostGatewaySession } from './gateway-recovery.ts';
import { drivePass, finalRun, type PassEnd } from './drive-pass.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import { LogFollower } from './log-follower.ts';
import type { RunEnvironment } from './run-options.ts';
import { submitInput } from './submit-input.ts';
import { PassAppender } from './pass-appender.ts';
import type { AppendFn } from './transition.ts';

/** How long a lease lasts unless renewed (renewed every third of it while a run is driven). */
export const DEFAULT_LEASE_MS = 15_000;
/** How often a client waits for another process to act on its cancel request, at most, in leases. */
const CANCEL_WAIT_LEASES = 2;
const CANCEL_POLL_MS = 50;
/** Passes in a row that may hold a model answer back after one found the log changed (see PassAppender). */
const MAX_STALE_PASSES = 1;

export interface RunEngineOptions {
  store: RunStore;
  /** This engine's owner id: unique across the processes that share the store. */
  owner: string;
  leaseMs?: number;
  /** The adapters and process configuration a run is driven with (its model is chosen by `run.model`). */
  environment: (run: Run) => Promise<RunEnvironment>;
  /** Settings for runs stored before runs kept their own. */
  fallbackSettings: RunSettings;
}

export interface DriveOptions {
  /** Aborting it cancels the run (as a cancel request would). */
  signal?: AbortSignal | undefined;
  /** Shutdown: stop at the next safe point without ending the run; its log says where it is. */
  stopSignal?: AbortSignal | undefined;
  /** A lease already claimed for this run (claimNext, startClaimed). */
  lease?: RunLease | undefined;
  /**
   * With `lease`: the run as startClaimed returned it. The first pass starts
   * from it instead of reading the run again, and, when its log was empty,
   * without reading the log: whatever another writer appended since is found
   * by the pass's first commit, which expects the log as it was (the pass is
   * then driven again from the log).
   */
  run?: Run | undefined;
}

interface Driving {
  done: Promise<Run>;
  /** Input arrived while driving: look again when this pass ends. */
  again: boolean;
}

/**
 * The one owner of a run's life: start, drive, input, cancel and recovery.
 * A run is driven only under its lease in the store, so of all the processes
 * sharing a store at most one drives it at a time, and an owner that lost its
 * lease can never write to it again. Everything a pass needs is read from the
 * store: the run's settings and its log.
 */
export class RunEngine {
  readonly #store: RunStore;
  readonly owner: string;
  readonly leaseMs: number;
  readonly #environment: RunEngineOptions['environment'];
  readonly #fallback: RunSettings;
  readonly #driving = new Map<string, Driving>();

  constructor(options: RunEngineOptions) {
    this.#store = options.store;
    this.owner = options.owner;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#environment = options.environment;
    this.#fallback = options.fallbackSettings;
  }

  /** Creates a run (queued) with its settings; `idempotency` makes a retried request return the first run. */
  async start(init: NewRun & { settings: RunSettings }, idempotency?: IdempotencyRequest): Promise<{ run: Run; created: boolean }> {
    if (idempotency === undefined) return { run: await this.#store.createRun(init), created: true };
    return this.#store.createRunIdempotent(init, idempotency);
  }

  /**
   * Creates a run and claims it for this engine, in one write when the store
   * can (createAndClaimRun): for a caller that drives it at once (pass the
   * lease to drive). Without that store method, the run is created and drive claims it.
   */
  async startClaimed(init: NewRun & { settings: RunSettings }): Promise<{ run: Run; lease: RunLease | undefined }> {
    if (this.#store.createAndClaimRun === undefined) return { run: await this.#store.createRun(init), lease: undefined };
    return this.#store.createAndClaimRun(init, { owner: this.owner, ttlMs: this.leaseMs });
  }

  /** Whether this engine is driving the run now. */
  isDriving(runId: string): boolean {
    return this.#driving.has(runId);
  }

  /**
   * Drives the run from where its log stands until it ends, waits for a
   * person, or must pause — if no other process holds it; then it resolves
   * with the run as it stands and leaves it to its owner.
   */
  drive(runId: string, options: DriveOptions = {}): Promise<Run> {
    const current = this.#driving.get(runId);
    if (current !== undefined) {
      current.again = true;
      return current.done;
    }
    const entry: Driving = { again: false, done: Promise.resolve(undefined as unknown as Run) };
    entry.done = this.#driveLoop(runId, entry, options).finally(() => this.#driving.delete(runId));
    this.#driving.set(runId, entry);
    return entry.done;
  }

  /** Records input (see submitInput). The caller drives the run on. */
  input(runId: string, input: RunInput): Promise<Run> {
    return submitInput(this.#store, runId, input);
  }

  /**
   * Records a cancel request in the run's log, where its owner — in this
   * process or another — sees it and ends the run with run_cancelled. A run
   * nobody drives (queued, waiting for a person, or its owner gone) is ended
   * here. Resolves with the run once it has ended, or as it stands when its
   * owner did not act within two leases.
   */
  async cancel(runId: string, request: { reason: string; userId?: string | undefined }): Promise<Run> {
    const run = await finalRun(this.#store, runId);
    if (TERMINAL_RUN_STATUSES.has(run.status)) throw new ToolgateError('conflict', `run ${runId} has already ended (${run.status})`);
    await this.#store.append(runId, [draft('cancel_requested', { reason: request.reason, ...(request.userId === undefined ? {} : { userId: request.userId }) })]);
    const local = this.#driving.get(runId);
    if (local !== undefined) return local.done;
    const lease = await this.#store.claimRun(runId, { owner: this.owner, ttlMs: this.leaseMs });
    if (lease !== undefined) {
      try {
        const now = await finalRun(this.#store, runId);
        if (!TERMINAL_RUN_STATUSES.has(now.status)) {
          await this.#store.append(
            runId,
            [
              draft('run_status', { from: now.status, to: 'cancelled', reason: request.reason }),
              draft('run_cancelled', { reason: request.reason, usage: now.usage, steps: now.steps }),
            ],
            { status: 'cancelled', pendingApproval: null },
            { lease },
          );
        }
      } finally {
        await this.#store.releaseRun(lease);
      }
      return finalRun(this.#store, runId);
    }
    return this.#waitForEnd(runId, CANCEL_WAIT_LEASES * this.leaseMs);
  }

  /** Claims up to `limit` runs whose owner is gone (or that nobody picked up), for recovery. */
  claimNext(limit: number): Promise<RunLease[]> {
    return limit <= 0 ? Promise.resolve([]) : this.#store.claimNext({ owner: this.owner, ttlMs: this.leaseMs, limit });
  }

  async #driveLoop(runId: string, entry: Driving, options: DriveOptions): Promise<Run> {
    let lease = options.lease;
    // The run as just created and claimed: the first pass need not read it again.
    let claimed = lease !== undefined && options.run?.id === runId ? options.run : undefined;
    let stalePasses = 0;
    for (;;) {
      lease ??= await this.#store.claimRun(runId, { owner: this.owner, ttlMs: this.leaseMs });
      // Another process drives it (or it has ended): leave it to its owner.
      if (lease === undefined) return finalRun(this.#store, runId);
      entry.again = false;
      const before = claimed ?? (await finalRun(this.#store, runId));
      const fresh = claimed !== undefined && claimed.lastEventId === 0;
      claimed = undefined;
      if (before.settings?.gateway !== undefined) {
        // A gateway session's run is written by its gateway, which holds its lease: holding it here means that gateway is gone.
        await endLostGatewaySession(this.#store, before, lease);
        return (await this.#store.releaseRun(lease)) ?? finalRun(this.#store, runId);
      }
      // A pass whose held-back model answer met a changed log is driven again, with the lease it holds;
      // that next pass holds nothing back, so it cannot go stale in turn.
      const end = await this.#pass(before, lease, options, stalePasses < MAX_STALE_PASSES, fresh);
      if (end === 'again') {
        stalePasses += 1;
        continue;
      }
      stalePasses = 0;
      if (end === 'lost') return finalRun(this.#store, runId);
      // A pass that ended the run gives nothing up: the append of its terminal event released the lease (RunStore
      // contract), so releaseRun would only change nothing, and on SQLite still cost a transaction.
      const after = end === 'ended' ? await finalRun(this.#store, runId) : ((await this.#store.releaseRun(lease)) ?? (await finalRun(this.#store, runId)));
      lease = undefined;
      if (options.stopSignal?.aborted === true || options.signal?.aborted === true || TERMINAL_RUN_STATUSES.has(after.status)) return after;
      // Input arrived while the pass ended (a decision moves the run back to running): another pass, unless nothing moved.
      const runnable = ACTIVE_RUN_STATUSES.has(after.status);
      if (!(runnable || entry.again) || after.lastEventId === before.lastEventId) return after;
    }
  }

  /** `fresh`: the run was created and claimed with an empty log just now: its log is not read first (see DriveOptions.run). */
  async #pass(run: Run, lease: RunLease, options: DriveOptions, defer: boolean, fresh: boolean): Promise<PassEnd | 'again'> {
    const store = this.#store;
    const state = emptyConversation();
    const abort = new AbortController();
    const onExternalAbort = (): void => abort.abort();
    options.signal?.addEventListener('abort', onExternalAbort, { once: true });
    if (options.signal?.aborted === true) abort.abort();
    const follower = new LogFollower({
      store,
      runId: run.id,
      state,
      onApplied: (events) => {
        if (events.some((e) => e.type === 'cancel_requested')) abort.abort();
      },
    });
    const keeper = new LeaseKeeper({ store, lease, ttlMs: this.leaseMs, onLost: () => abort.abort(), onBeat: () => follower.catchUp() });
    const unsubscribe = store.subscribe(run.id, (events) => follower.offer(events));
    // Input posted to another process (a cancel, a message) is appended there: a store that says
    // so (PostgreSQL) has it read at once; otherwise the lease heartbeat's catch-up finds it.
    let unwatch: (() => void) | undefined;
    if (store.watch !== undefined) {
      unwatch = await store
        .watch(run.id, (lastEventId) => {
          if (!follower.has(lastEventId)) void follower.catchUp().catch(() => undefined);
        })
        .catch(() => undefined);
    }
    // Where this pass's commits are known to stand in the log: a commit that met an unavailable store is looked for after it.
    let committedUpTo = run.lastEventId;
    const appender = new PassAppender({
      runId: run.id,
      commit: async (drafts, patch, expectLastEventId) => {
        let events: RunEvent[];
        try {
          events = await commitThroughOutage({
            store,
            runId: run.id,
            drafts,
            commit: () => store.append(run.id, drafts, patch, { lease: keeper.lease, ...(expectLastEventId === undefined ? {} : { expectLastEventId }) }),
            committedUpTo: () => committedUpTo,
            giveUpAfterMs: this.leaseMs,
            stopped: () => keeper.lost || abort.signal.aborted,
          });
        } catch (error) {
          if (error instanceof ToolgateError && error.code === 'lease_lost') keeper.markLost();
          throw error;
        }
        committedUpTo = Math.max(committedUpTo, events.at(-1)?.id ?? 0);
        const settling = follower.settle(events);
        if (settling !== undefined) await settling;
        return events;
      },
      lastEventId: () => state.lastEventId,
      apply: (events) => follower.offer(events),
      allowDeferral: defer,
      // A held-back commit met a changed log (a cancel or input from elsewhere): stop the calls in flight;
      // the run is driven again from the log, which has what this pass did not see.
      onStale: () => abort.abort(),
    });
    const append: AppendFn = appender.append;
    try {
      // A fresh run's log is read only if a held-back commit finds it changed (the first pass holds back).
      if (!(fresh && defer)) await follower.catchUp();
      keeper.start();
      const end = await drivePass({
        store,
        run,
        settings: run.settings ?? this.#fallback,
        environment: () => this.#environment(run),
        state,
        append,
        signal: abort.signal,
        stopSignal: options.stopSignal,
        // A stale pass stops like one that lost its lease: it writes nothing more.
        lost: () => keeper.lost || appender.stale,
        commitAlongside: this.#commitAlongside,
      });
      if (end !== 'lost') await appender.flush();
      return end === 'lost' && appender.stale && !keeper.lost ? 'again' : end;
    } catch (error) {
      if (keeper.lost || (error instanceof ToolgateError && error.code === 'lease_lost')) return 'lost';
      if (appender.stale) return 'again';
      throw error;
    } finally {
      appender.dispose();
      keeper.stop();
      unsubscribe();
      unwatch?.();
      options.signal?.removeEventListener('abort', onExternalAbort);
    }
  }

  /**
   * Whether a pass commits what it holds back while the model is asked
   * (decision 0019): when this engine drives one run only. The commit's time
   * is then latency the model's time hides. With several runs in flight the
   * process has other work for that time, and each model request sent alone
   * beside a commit cost more CPU than the requests sent together once their
   * runs' commits are in (the SQLite store commits a turn's appends together,
   * decision 0017).
   */
  readonly #commitAlongside = (): boolean => this.#driving.size <= 1;

  async #waitForEnd(runId: string, timeoutMs: number): Promise<Run> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await finalRun(this.#store, runId);
      if (TERMINAL_RUN_STATUSES.has(run.status) || Date.now() >= deadline) return run;
      await new Promise((resolve) => setTimeout(resolve, CANCEL_POLL_MS));
    }
  }
}
