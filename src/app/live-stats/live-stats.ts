import {
  describeError,
  type ArmFigures,
  type LiveRouterEvidence,
  type RolloutArm,
  type RolloutFigures,
  type Run,
  type RunEvent,
  type RunStore,
  type StatsFilter,
  type StatsSnapshot,
} from '../../core/index.ts';
import { applyEvent, newRunState, type RunState } from './apply-event.ts';
import { factsOf } from './run-facts.ts';
import { routerEvidenceOf } from './router-evidence-of.ts';
import { snapshotOf } from './snapshot-of.ts';
import { StatsWindow } from './stats-window.ts';

export const DEFAULT_STATS_WINDOW_MS = 60 * 60 * 1000;
export const DEFAULT_STATS_REFRESH_MS = 5000;
/** A refresh reads back this far before its last mark: another instance's clock may be behind ours. */
export const REFRESH_MARGIN_MS = 5000;
const CHANGED_RUNS_PAGE = 500;
const EVENTS_PAGE = 1000;

export type LiveStatsStore = Pick<RunStore, 'getRun' | 'readEvents'> & Partial<Pick<RunStore, 'listChangedRuns'>>;

export interface LiveStatsOptions {
  store: LiveStatsStore;
  /** The sliding window (default DEFAULT_STATS_WINDOW_MS); it moves in steps of windowMs / 60. */
  windowMs?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
  /** Distinct keys kept over the window (default DEFAULT_MAX_KEYS); more are counted as `other`. */
  maxKeys?: number;
  /** Distinct keys of one tenant kept over the window (default DEFAULT_MAX_KEYS_PER_TENANT). */
  maxKeysPerTenant?: number;
  /** Told when a run's events could not be read (they are read again at the next append or refresh). */
  onError?: (message: string) => void;
}

interface Tracked {
  state: RunState | undefined;
  /** Each run's work is done in order, one piece at a time. */
  chain: Promise<void>;
  /** Pieces queued and not done: a run is forgotten only when none is. */
  pending: number;
}

export type RunEndedListener = (run: { runId: string; rollouts: RolloutArm[] }) => void;

/**
 * Live outcome statistics (docs/observability.md, "Live statistics"): per tenant × intent × strategy × model over a
 * sliding window, kept incrementally from the events this process appends (observe) and from the runs other processes
 * changed (refresh). Each event is applied once per run, by id; a gap is read from the store.
 */
export class LiveStats {
  readonly windowMs: number;
  readonly #store: LiveStatsStore;
  readonly #now: () => number;
  readonly #window: StatsWindow;
  readonly #runs = new Map<string, Tracked>();
  readonly #rolledBack = new Map<string, NonNullable<RolloutFigures['rolledBack']>>();
  readonly #listeners = new Set<RunEndedListener>();
  #onError: (message: string) => void;
  /** Where the next refresh reads from (ms); undefined until the first one. */
  #mark: number | undefined;
  #refreshing: Promise<void> | undefined;
  #sweptAt = 0;
  #timer: NodeJS.Timeout | undefined;
  /**
   * routerEvidence per tenant: it changes only when a run ends or the window slides, and every run of `router.live`
   * asks for it, so it is computed once between those (merging every key of the window is not free).
   */
  readonly #evidence = new Map<string | undefined, LiveRouterEvidence>();
  #evidenceFirst: number | undefined;

  constructor(options: LiveStatsOptions) {
    this.#store = options.store;
    this.windowMs = options.windowMs ?? DEFAULT_STATS_WINDOW_MS;
    this.#now = options.now ?? Date.now;
    this.#window = new StatsWindow({
      windowMs: this.windowMs,
      ...(options.maxKeys === undefined ? {} : { maxKeys: options.maxKeys }),
      ...(options.maxKeysPerTenant === undefined ? {} : { maxKeysPerTenant: options.maxKeysPerTenant }),
    });
    this.#onError = options.onError ?? (() => undefined);
  }

  get bucketMs(): number {
    return this.#window.bucketMs;
  }

  /** Events this process appended (each run's in order). */
  observe(events: readonly RunEvent[]): void {
    const now = this.#now();
    if (!this.#applyAtOnce(events, now)) this.#enqueueByRun(events);
    // Without a refresh timer, appends are what moves the forgetting of old runs on.
    if (now - this.#sweptAt >= this.bucketMs) this.#sweep(now);
  }

  /**
   * The common case, on every append: one run's events, that run known and nothing of it queued, the events next in
   * its log. They are applied now: no promise chain for what needs no read.
   */
  #applyAtOnce(events: readonly RunEvent[], now: number): boolean {
    const runId = events[0]?.runId;
    if (runId === undefined) return true;
    const tracked = this.#runs.get(runId);
    const state = tracked?.state;
    if (state === undefined || tracked?.pending !== 0) return false;
    let next = state.lastId + 1;
    for (const event of events) {
      if (event.runId !== runId || event.id > next) return false;
      if (event.id === next) next += 1;
    }
    try {
      for (const event of events) if (event.id > state.lastId) this.#apply(state, event, now);
    } catch (error) {
      // As on the queued path: the append that told us of these events succeeded whatever the statistics make of them.
      this.#onError(`live statistics of run ${runId}: ${describeError(error)}`);
    }
    return true;
  }

  #enqueueByRun(events: readonly RunEvent[]): void {
    const byRun = new Map<string, RunEvent[]>();
    for (const event of events) {
      const list = byRun.get(event.runId);
      if (list === undefined) byRun.set(event.runId, [event]);
      else list.push(event);
    }
    for (const [runId, list] of byRun) void this.#enqueue(runId, undefined, (state) => this.#applyAll(state, list));
  }

  /**
   * Reads what changed in the store since the last refresh (other processes' runs), and warms up after a restart
   * (the first time: the whole window). Only runs changed since the mark are read, each from its last applied event.
   */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** Resolves once everything observed so far is applied. */
  async idle(): Promise<void> {
    await Promise.all([...this.#runs.values()].map((tracked) => tracked.chain));
  }

  snapshot(filter: StatsFilter = {}): StatsSnapshot {
    const now = this.#now();
    return snapshotOf({
      window: this.#window,
      windowMs: this.windowMs,
      now,
      filter,
      rollouts: (tenant) => this.#rollouts(now, tenant),
    });
  }

  /**
   * What the auto router's live bandit reads: auto runs that ended in the window, per intent × strategy — of one
   * tenant (NO_TENANT for runs without one), since the figures are recorded in its runs; of every run when absent.
   */
  routerEvidence(tenant?: string): LiveRouterEvidence {
    const now = this.#now();
    const first = this.#window.firstIndex(now);
    if (first !== this.#evidenceFirst) {
      this.#evidence.clear();
      this.#evidenceFirst = first;
    }
    let evidence = this.#evidence.get(tenant);
    if (evidence === undefined) {
      const rows = this.#window.rows(now, tenant === undefined ? {} : { tenant });
      evidence = routerEvidenceOf({ rows, windowMs: this.windowMs });
      this.#evidence.set(tenant, evidence);
    }
    return structuredClone(evidence);
  }

  /** A rollout's treated and control runs over the last `windowMs` (at most the statistics' window). */
  armFigures(name: string, windowMs?: number): { treated: ArmFigures; control: ArmFigures } {
    const now = this.#now();
    const since = now - Math.min(windowMs ?? this.windowMs, this.windowMs);
    const arms = this.#window.arms({ rollout: name, now, since });
    return { treated: arms.treated.armFigures(), control: arms.control.armFigures() };
  }

  /** Told of each run that ends (once per run), with the rollouts it took part in. Returns the unsubscribe. */
  onRunEnded(listener: RunEndedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A rollout was rolled back: the snapshot says so from now on. */
  markRolledBack(name: string, info: NonNullable<RolloutFigures['rolledBack']>): void {
    this.#rolledBack.set(name, { ...info });
  }

  /**
   * Refreshes every `refreshMs` (0: never) on a timer that does not keep the process alive; `onError` hears what
   * could not be read.
   */
  start(options: { refreshMs?: number; onError?: (message: string) => void } = {}): void {
    if (options.onError !== undefined) this.#onError = options.onError;
    const refreshMs = options.refreshMs ?? DEFAULT_STATS_REFRESH_MS;
    if (this.#timer !== undefined || refreshMs <= 0) return;
    this.#timer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.#onError(`live statistics refresh: ${describeError(error)}`));
    }, refreshMs);
    this.#timer.unref();
  }

  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #refresh(): Promise<void> {
    const list = this.#store.listChangedRuns?.bind(this.#store);
    const now = this.#now();
    if (list === undefined) return;
    const since = new Date(this.#mark === undefined ? now - this.windowMs : this.#mark - REFRESH_MARGIN_MS);
    const pending: Promise<void>[] = [];
    let cursor: string | undefined;
    do {
      const page = await list({ since: since.toISOString(), limit: CHANGED_RUNS_PAGE, ...(cursor ? { cursor } : {}) });
      for (const run of page.runs) {
        const known = this.#runs.get(run.id)?.state;
        if (known !== undefined && known.lastId >= run.lastEventId) continue;
        pending.push(this.#enqueue(run.id, run, (state) => this.#catchUp(run.id, state)));
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    await Promise.all(pending);
    this.#mark = now;
    this.#sweep(now);
  }

  #enqueue(runId: string, record: Run | undefined, task: (state: RunState) => Promise<void>): Promise<void> {
    let tracked = this.#runs.get(runId);
    if (tracked === undefined) {
      tracked = { state: undefined, chain: Promise.resolve(), pending: 0 };
      this.#runs.set(runId, tracked);
    }
    const run = tracked;
    run.pending += 1;
    run.chain = run.chain
      .then(async () => {
        run.state ??= newRunState(factsOf(record ?? (await this.#store.getRun(runId))));
        await task(run.state);
      })
      .catch((error: unknown) => this.#onError(`live statistics of run ${runId}: ${describeError(error)}`))
      .finally(() => {
        run.pending -= 1;
      });
    return run.chain;
  }

  async #applyAll(state: RunState, events: readonly RunEvent[]): Promise<void> {
    for (const event of events) {
      if (event.id <= state.lastId) continue;
      // Appends that came out of order, or events written another way (a run's creation, a fork): read them.
      if (event.id > state.lastId + 1) await this.#catchUp(event.runId, state);
      else this.#apply(state, event, this.#now());
    }
  }

  async #catchUp(runId: string, state: RunState): Promise<void> {
    for (;;) {
      const events = await this.#store.readEvents(runId, { after: state.lastId, limit: EVENTS_PAGE });
      for (const event of events) if (event.id > state.lastId) this.#apply(state, event, this.#now());
      if (events.length < EVENTS_PAGE) return;
    }
  }

  #apply(state: RunState, event: RunEvent, now: number): void {
    const wasEnded = state.ended;
    applyEvent({ event, run: state, window: this.#window, now });
    if (wasEnded || !state.ended || state.facts.uncounted) return;
    this.#evidence.clear();
    const rollouts = state.facts.rollouts.map((arm) => ({ ...arm }));
    for (const listener of this.#listeners) {
      try {
        listener({ runId: event.runId, rollouts });
      } catch (error) {
        this.#onError(`live statistics listener: ${describeError(error)}`);
      }
    }
  }

  /**
   * Forgets runs whose last event left the window: re-reading one later counts nothing twice, since its old events
   * fall outside the window.
   */
  #sweep(now: number): void {
    for (const [runId, tracked] of this.#runs) {
      const state = tracked.state;
      if (tracked.pending === 0 && (state === undefined || !this.#window.holds(state.lastTime, now)))
        this.#runs.delete(runId);
    }
    this.#sweptAt = now;
  }

  #rollouts(now: number, tenant: string | undefined): RolloutFigures[] {
    const names = new Set(this.#window.rolloutNames(now, tenant));
    if (tenant === undefined) for (const name of this.#rolledBack.keys()) names.add(name);
    return [...names].sort().map((name) => {
      const arms = this.#window.arms({ rollout: name, now, since: now - this.windowMs, ...(tenant ? { tenant } : {}) });
      const rolledBack = this.#rolledBack.get(name);
      return {
        name,
        treated: arms.treated.armFigures(),
        control: arms.control.armFigures(),
        ...(rolledBack === undefined ? {} : { rolledBack: { ...rolledBack } }),
      };
    });
  }
}
