import {
  ACTIVE_RUN_STATUSES,
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  draft,
  type IdempotencyRequest,
  type NewRun,
  type Run,
  type RunInput,
  type RunLease,
  type RunSettings,
  type RunStore,
} from '../core/index.ts';
import { drivePass, finalRun, type PassEnd } from './step/drive-pass.ts';
import { RunWriter } from './log/run-writer.ts';
import type { DriveOptions, OwnedElsewhere, RunEngineOptions } from './run-engine-options.ts';
import { submitInput } from './submit-input.ts';

/** How long a lease lasts unless renewed (renewed every third of it while a run is driven). */
export const DEFAULT_LEASE_MS = 15_000;
/** How often a client waits for another process to act on its cancel request, at most, in leases. */
const CANCEL_WAIT_LEASES = 2;
const CANCEL_POLL_MS = 50;
/** Passes in a row that may hold a model answer back after one found the log changed (see RunWriter). */
const MAX_STALE_PASSES = 1;

interface Driving {
  done: Promise<Run>;
  /** `again`: input arrived while driving: look again when this pass ends. */
  input: { again: boolean };
}

interface PassOptions {
  run: Run;
  lease: RunLease;
  options: DriveOptions;
  /** The pass may hold appends back (see RunWriter). */
  defer: boolean;
  /** The run was created and claimed with an empty log just now: its log is not read first (see DriveOptions.run). */
  fresh: boolean;
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
  readonly #ownedElsewhere: OwnedElsewhere | undefined;

  constructor(options: RunEngineOptions) {
    this.#store = options.store;
    this.owner = options.owner;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#environment = options.environment;
    this.#fallback = options.fallbackSettings;
    this.#ownedElsewhere = options.ownedElsewhere;
  }

  /** Creates a run (queued) with its settings; `idempotency` makes a retried request return the first run. */
  async start(
    init: NewRun & { settings: RunSettings },
    idempotency?: IdempotencyRequest,
  ): Promise<{ run: Run; created: boolean }> {
    if (idempotency === undefined) return { run: await this.#store.createRun(init), created: true };
    return this.#store.createRunIdempotent(init, idempotency);
  }

  /**
   * Creates a run and claims it for this engine, in one write when the store
   * can (createAndClaimRun): for a caller that drives it at once (pass the
   * lease to drive). Without that store method, the run is created and drive claims it.
   */
  async startClaimed(init: NewRun & { settings: RunSettings }): Promise<{ run: Run; lease: RunLease | undefined }> {
    if (this.#store.createAndClaimRun === undefined)
      return { run: await this.#store.createRun(init), lease: undefined };
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
      current.input.again = true;
      return current.done;
    }
    const input = { again: false };
    const done = this.#driveLoop({ runId, input, options }).finally(() => this.#driving.delete(runId));
    this.#driving.set(runId, { done, input });
    return done;
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
    if (TERMINAL_RUN_STATUSES.has(run.status))
      throw new ToolgateError('conflict', `run ${runId} has already ended (${run.status})`);
    await this.#store.append(runId, [
      draft('cancel_requested', {
        reason: request.reason,
        ...(request.userId === undefined ? {} : { userId: request.userId }),
      }),
    ]);
    const local = this.#driving.get(runId);
    if (local !== undefined) return local.done;
    const lease = await this.#store.claimRun(runId, { owner: this.owner, ttlMs: this.leaseMs });
    if (lease !== undefined) {
      try {
        const now = await finalRun(this.#store, runId);
        if (!TERMINAL_RUN_STATUSES.has(now.status)) await this.#endCancelled(now, { lease, reason: request.reason });
      } finally {
        await this.#store.releaseRun(lease);
      }
      return finalRun(this.#store, runId);
    }
    return this.#waitForEnd(runId, CANCEL_WAIT_LEASES * this.leaseMs);
  }

  /** Ends a run nobody drives, whose lease this engine took for it: run_cancelled. */
  async #endCancelled(run: Run, { lease, reason }: { lease: RunLease; reason: string }): Promise<void> {
    const writer = new RunWriter({ store: this.#store, lease, leaseMs: this.leaseMs, lastEventId: run.lastEventId });
    try {
      const drafts = [
        draft('run_status', { from: run.status, to: 'cancelled', reason }),
        draft('run_cancelled', { reason, usage: run.usage, steps: run.steps }),
      ];
      await writer.append(drafts, { status: 'cancelled', pendingApproval: null });
    } finally {
      writer.close();
    }
  }

  /** Claims up to `limit` runs whose owner is gone (or that nobody picked up), for recovery. */
  claimNext(limit: number): Promise<RunLease[]> {
    return limit <= 0 ? Promise.resolve([]) : this.#store.claimNext({ owner: this.owner, ttlMs: this.leaseMs, limit });
  }

  async #driveLoop({
    runId,
    input,
    options,
  }: {
    runId: string;
    input: Driving['input'];
    options: DriveOptions;
  }): Promise<Run> {
    let lease = options.lease;
    // The run as just created and claimed: the first pass need not read it again.
    let claimed = lease !== undefined && options.run?.id === runId ? options.run : undefined;
    let stalePasses = 0;
    for (;;) {
      lease ??= await this.#store.claimRun(runId, { owner: this.owner, ttlMs: this.leaseMs });
      // Another process drives it (or it has ended): leave it to its owner.
      if (lease === undefined) return finalRun(this.#store, runId);
      input.again = false;
      const before = claimed ?? (await finalRun(this.#store, runId));
      const fresh = claimed !== undefined && claimed.lastEventId === 0;
      claimed = undefined;
      if (this.#ownedElsewhere?.matches(before) === true) {
        // Its writer holds its lease while it lives: holding it here means that writer is gone.
        await this.#ownedElsewhere.recover({ store: this.#store, run: before, lease, leaseMs: this.leaseMs });
        return (await this.#store.releaseRun(lease)) ?? finalRun(this.#store, runId);
      }
      // A pass whose held-back model answer met a changed log is driven again, with the lease it holds;
      // that next pass holds nothing back, so it cannot go stale in turn.
      const end = await this.#pass({ run: before, lease, options, defer: stalePasses < MAX_STALE_PASSES, fresh });
      if (end === 'again') {
        stalePasses += 1;
        continue;
      }
      stalePasses = 0;
      if (end === 'lost') return finalRun(this.#store, runId);
      // A pass that ended the run gives nothing up: the append of its terminal event released the lease (RunStore
      // contract), so releaseRun would only change nothing, and on SQLite still cost a transaction.
      const after =
        end === 'ended'
          ? await finalRun(this.#store, runId)
          : ((await this.#store.releaseRun(lease)) ?? (await finalRun(this.#store, runId)));
      lease = undefined;
      if (
        options.stopSignal?.aborted === true ||
        options.signal?.aborted === true ||
        TERMINAL_RUN_STATUSES.has(after.status)
      )
        return after;
      // Input arrived while the pass ended (a decision moves the run back to running): another pass, unless nothing
      // moved.
      const runnable = ACTIVE_RUN_STATUSES.has(after.status);
      if (!(runnable || input.again) || after.lastEventId === before.lastEventId) return after;
    }
  }

  /** One pass over the run, writing through a RunWriter of its own under `lease`. */
  async #pass(pass: PassOptions): Promise<PassEnd | 'again'> {
    const { run, options, defer } = pass;
    const store = this.#store;
    const abort = new AbortController();
    const onExternalAbort = (): void => abort.abort();
    options.signal?.addEventListener('abort', onExternalAbort, { once: true });
    if (options.signal?.aborted === true) abort.abort();
    const writer = new RunWriter({
      store,
      lease: pass.lease,
      leaseMs: this.leaseMs,
      lastEventId: run.lastEventId,
      holdBack: defer,
      onApplied: (events) => {
        if (events.some((e) => e.type === 'cancel_requested')) abort.abort();
      },
      onLost: () => abort.abort(),
      // A held-back commit met a changed log (a cancel or input from elsewhere): stop the calls in flight;
      // the run is driven again from the log, which has what this pass did not see.
      onStale: () => abort.abort(),
      stopped: () => abort.signal.aborted,
    });
    try {
      // A fresh run's log is read only if a held-back commit finds it changed (the first pass holds back).
      await writer.start({ catchUp: !(pass.fresh && defer) });
      const end = await drivePass({
        store,
        run,
        settings: run.settings ?? this.#fallback,
        environment: () => this.#environment(run),
        state: writer.state,
        append: writer.append,
        signal: abort.signal,
        stopSignal: options.stopSignal,
        // A stale pass stops like one that lost its lease: it writes nothing more.
        lost: () => writer.lost || writer.stale,
        commitAlongside: this.#commitAlongside,
      });
      if (end !== 'lost') await writer.flush();
      return end === 'lost' && writer.stale && !writer.lost ? 'again' : end;
    } catch (error) {
      if (writer.lost || (error instanceof ToolgateError && error.code === 'lease_lost')) return 'lost';
      if (writer.stale) return 'again';
      throw error;
    } finally {
      writer.close();
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
