import {
  ACTIVE_RUN_STATUSES,
  ToolgateError,
  type Caller,
  type IdempotencyOptions,
  type JsonObject,
  type JsonValue,
  listRunsFiltered,
  type ModelChoices,
  type Run,
  type RunEvent,
  type RunInput,
  type RunLease,
  type RunPage,
  type RunListQuery,
  type RunService,
  type StartRunRequest,
  type Readiness,
  type ToolsView,
} from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';
import { checkApprovalEdit } from './check-approval-edit.ts';
import { FairQueue } from './fair-queue.ts';
import { RunRetries, StoreBackoff, type StoreRetryOptions } from './store-retry.ts';
import type { Toolgate } from './toolgate.ts';

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** Runs waiting for a slot in one process before POST /v1/runs answers 429 `overloaded`. */
export const DEFAULT_QUEUE_LIMIT = 256;

/**
 * Default `server.queueLimitPerTenant`: the queue divided among the tenants
 * that have API keys (all of it for one, half each for two), never less than a quarter of it, so
 * one tenant's flood leaves room for the others.
 */
export function defaultQueueLimitPerTenant(queueLimit: number, tenants: number): number {
  return Math.ceil(queueLimit / Math.min(4, Math.max(1, tenants)));
}

/**
 * Scheduling for the runs API: which runs this process drives, and when. A
 * queue served tenant by tenant in turn (FairQueue) with a concurrency limit
 * and a bound in all and per tenant (full → `overloaded`), a
 * sweep that takes over runs whose owner stopped (their lease expired), and a
 * graceful stop at safe points. Once recovery has started, a slot that frees
 * with nothing queued here claims the next run from the store at once while
 * the store may hold more (a backlog after a restart drains at full speed, not
 * one sweep at a time). A run whose pass stopped because the store was
 * unavailable is driven again after a backoff (decision 0023). What a run is
 * and how it is driven, cancelled or resumed belongs to the engine
 * (toolgate.engine); this class only decides when. Per-tenant isolation of
 * the API is applied here too.
 */
export class RunManager implements RunService {
  readonly #toolgate: Toolgate;
  readonly #concurrency: number;
  readonly #queueLimit: number;
  readonly #queueLimitPerTenant: number;
  readonly #queue = new FairQueue();
  readonly #active = new Map<string, Promise<void>>();
  /** Slots held for runs being created and claimed (startRun), until they are driven. */
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
  #onError: (message: string) => void;
  readonly #onEvents: ((events: readonly RunEvent[]) => void) | undefined;
  readonly #redact: (value: JsonValue) => JsonValue;

  /**
   * `onEvents` sees the events this process appends to the runs it drives or
   * cancels (not those appended by other processes sharing the store): for
   * logs and notices, never for decisions — the store stays the source of truth.
   */
  constructor(options: {
    toolgate: Toolgate;
    concurrency?: number;
    queueLimit?: number;
    /** Default: defaultQueueLimitPerTenant of queueLimit and the configured tenants that have API keys. */
    queueLimitPerTenant?: number;
    onError?: (message: string) => void;
    onEvents?: (events: readonly RunEvent[]) => void;
    /** Backoff after `store_unavailable` (defaults: DEFAULT_STORE_RETRY_MS doubling up to DEFAULT_STORE_RETRY_MAX_MS). */
    storeRetry?: StoreRetryOptions;
  }) {
    this.#toolgate = options.toolgate;
    this.#redact = createRedactor(options.toolgate.settings.redact);
    this.#concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.#queueLimit = options.queueLimit ?? DEFAULT_QUEUE_LIMIT;
    // The tenants that can reach the runs API: those with keys.
    const tenants = Object.values(options.toolgate.settings.tenants).filter((tenant) => (tenant.apiKeys?.length ?? 0) > 0).length;
    this.#queueLimitPerTenant = options.queueLimitPerTenant ?? defaultQueueLimitPerTenant(this.#queueLimit, tenants);
    this.#onError = options.onError ?? ((m) => process.emitWarning(m));
    this.#onEvents = options.onEvents;
    this.#claimBackoff = new StoreBackoff(options.storeRetry);
    this.#retries = new RunRetries({ ...options.storeRetry, // A run driven again after an outage waits in the lane of runs without a tenant: its tenant is not
    // known here, and an outage delays every tenant alike.
    retry: (runId) => this.#schedule(runId, undefined) });
  }

  /**
   * Resumes runs that were queued or running when their owner stopped — as
   * soon as their lease has expired, so never a run another live process
   * drives — and waiting runs whose decision arrived just before a stop. From
   * then on, sweeps every half lease for runs whose owner went away. Returns
   * the ids of the runs taken over now.
   */
  async recover(): Promise<string[]> {
    const waiting: Run[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#toolgate.store.listRuns({ status: 'waiting_approval', limit: 200, ...(cursor === undefined ? {} : { cursor }) });
      waiting.push(...page.runs.filter((run) => run.settings === undefined));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    // Logs written before decisions moved a run back to running: the driver leaves a run that is still waiting untouched.
    for (const run of waiting.reverse()) this.#schedule(run.id, run.tenantId);
    this.#storeMayHaveMore = true;
    const taken = await this.#sweep();
    if (this.#sweeper === undefined && !this.#closing) {
      this.#sweeper = setInterval(() => void this.#sweep().catch((error: unknown) => this.#onError(`sweep for orphaned runs failed: ${describe(error)}`)), Math.max(50, Math.floor(this.#toolgate.engine.leaseMs / 2)));
      this.#sweeper.unref();
    }
    return taken;
  }

  async startRun(caller: Caller, request: StartRunRequest, idempotency?: IdempotencyOptions): Promise<{ run: Run; created: boolean }> {
    if (this.#closing) throw new ToolgateError('shutting_down', 'the server is shutting down and takes no new runs; retry on another instance or after the restart');
    // Checked before anything reads the model id: a client never learns what lies behind one it may not use.
    if (request.model !== undefined) {
      const access = this.#toolgate.modelAccess(request.model, caller.tenantId);
      if (!access.allowed) {
        const named = request.model.length > 80 ? `${request.model.slice(0, 80)}…` : request.model;
        throw new ToolgateError(
          'model_not_allowed',
          `model ${JSON.stringify(named)} is not allowed here; ${access.choices.length === 0 ? 'no model is configured (the operator sets `model:` and `models:` in toolgate.yaml)' : `allowed: ${access.choices.join(', ')}`}`,
        );
      }
    }
    const init = await this.#toolgate.newRun({
      ...request,
      ...(caller.tenantId === undefined ? {} : { tenantId: caller.tenantId }),
      ...(caller.userId === undefined ? {} : { userId: caller.userId }),
    });
    // No tools reachable: refuse now, as an HTTP error, rather than start a run that can only fail.
    await this.#toolgate.tools.listTools();
    this.#mustHaveRoom(caller.tenantId);
    // A slot is free and nobody waits for one: the run is created and claimed in one write and driven at once.
    if (idempotency === undefined && this.#queue.size === 0 && this.#busySlots() < this.#concurrency) {
      this.#reserved += 1;
      let started: { run: Run; lease: RunLease | undefined };
      try {
        started = await this.#toolgate.engine.startClaimed(init);
      } finally {
        this.#reserved -= 1;
      }
      const { run, lease } = started;
      if (lease === undefined) this.#schedule(run.id, run.tenantId);
      // Shutting down meanwhile: left to recovery, as queued runs are, without waiting for its lease to expire.
      else if (this.#closing) await this.#toolgate.store.releaseRun(lease).catch(() => undefined);
      else this.#start(run.id, lease, run);
      return { run: this.#present(run), created: true };
    }
    const result = await this.#toolgate.start(init, idempotency === undefined ? undefined : { key: idempotency.key, requestHash: idempotency.requestHash });
    if (result.created) this.#schedule(result.run.id, result.run.tenantId);
    return { run: this.#present(result.run), created: result.created };
  }

  /** Slots taken: runs being driven, and runs being created and claimed to be driven at once. */
  #busySlots(): number {
    return this.#active.size + this.#reserved;
  }

  async getRun(caller: Caller, runId: string): Promise<Run | undefined> {
    const run = await this.#toolgate.store.getRun(runId);
    return run !== undefined && visible(caller, run) ? this.#present(run) : undefined;
  }

  async listRuns(caller: Caller, query: RunListQuery): Promise<RunPage> {
    const { strategy, q, ...storeQuery } = query;
    const store = this.#toolgate.store;
    const page = await listRunsFiltered((page) => store.listRuns(page), { ...storeQuery, ...(caller.tenantId === undefined ? {} : { tenantId: caller.tenantId }) }, { strategy, q });
    return { ...page, runs: page.runs.map((run) => this.#present(run)) };
  }

  /**
   * A run as clients see it: `context` holds the values injected arguments are
   * made of (user tokens, account ids), so secret-looking keys are redacted
   * like everywhere else; the run keeps the real values.
   */
  #present(run: Run): Run {
    return run.context === undefined ? run : { ...run, context: this.#redact(run.context) as JsonObject };
  }

  async submitInput(caller: Caller, runId: string, input: RunInput): Promise<Run> {
    const seen = await this.#mustSee(caller, runId);
    if (input.type === 'approval' && input.decision === 'edit') {
      const tools = (await this.#toolgate.tools.knownTools()).map(({ spec }) => spec);
      checkApprovalEdit({ run: seen, input, tools, policy: this.#toolgate.policy, validator: this.#toolgate.validator });
    }
    const withUser: RunInput = caller.userId === undefined || input.userId !== undefined ? input : { ...input, userId: caller.userId };
    const run = await this.#toolgate.engine.input(runId, withUser);
    // A decision, or a message that answered an escalated run, moves it back to running: drive it.
    if (input.type === 'approval' || ACTIVE_RUN_STATUSES.has(run.status)) this.#schedule(runId, run.tenantId);
    return this.#present(run);
  }

  async cancelRun(caller: Caller, runId: string, reason?: string): Promise<Run> {
    await this.#mustSee(caller, runId);
    const unobserve = this.#observe(runId);
    let run: Run;
    try {
      run = await this.#toolgate.engine.cancel(runId, { reason: reason ?? 'cancelled by a client', ...(caller.userId === undefined ? {} : { userId: caller.userId }) });
    } finally {
      unobserve();
    }
    this.#queue.delete(runId);
    return this.#present(run);
  }

  async listTools(caller: Caller): Promise<ToolsView> {
    const tools = await this.#toolgate.listClassifiedTools(caller.tenantId);
    return { tools, servers: this.#toolgate.toolHealth() };
  }

  async listModels(caller: Caller): Promise<ModelChoices> {
    return this.#toolgate.modelChoices(caller.tenantId);
  }

  /**
   * Ready while the store answers and, when tool servers are configured, at
   * least one of them is up: a server that is down is reported, not fatal.
   */
  async ready(): Promise<Readiness> {
    if (this.#closing) return { ready: false, reason: 'shutting down' };
    const servers = this.#toolgate.toolHealth();
    try {
      await this.#toolgate.store.listRuns({ limit: 1 });
    } catch (error) {
      return { ready: false, reason: `run store unavailable: ${describe(error)}`, servers };
    }
    const down = servers.filter((s) => s.state === 'down');
    if (servers.length > 0 && down.length === servers.length) {
      return { ready: false, reason: `no tool server is up: ${down.map((s) => `"${s.name}": ${s.error ?? 'down'}`).join('; ')}`, servers };
    }
    return { ready: true, servers };
  }

  /** Runs being driven or waiting for a slot. */
  get load(): { active: number; queued: number } {
    return { active: this.#active.size, queued: this.#queue.size };
  }

  /**
   * Stops taking runs and lets running ones reach a safe point (between steps);
   * after `graceMs` the rest is left to recovery — by the next start, or by
   * another process once their leases expire; their logs say where they are.
   */
  async shutdown(options: { graceMs?: number } = {}): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweeper);
    this.#retries.close();
    this.#queue.clear();
    this.#stop.abort();
    const all = Promise.all([...this.#active.values()]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, options.graceMs ?? DEFAULT_SHUTDOWN_GRACE_MS)))]);
    clearTimeout(timer);
  }

  #mustHaveRoom(tenantId: string | undefined): void {
    const waiting = this.#queue.size;
    const ofTenant = this.#queue.sizeOf(tenantId);
    if (waiting < this.#queueLimit && ofTenant < this.#queueLimitPerTenant) return;
    // A rough wait: the queue drains at about one slot per run length; a few seconds is an honest first guess.
    const retryAfterSeconds = Math.min(60, Math.max(1, Math.ceil(waiting / Math.max(1, this.#concurrency))));
    const retry = `retry after ${retryAfterSeconds} s or on another instance`;
    throw new ToolgateError(
      'overloaded',
      waiting >= this.#queueLimit
        ? `this server has ${waiting} runs waiting for a slot (server.queueLimit ${this.#queueLimit}, ${this.#concurrency} at a time); ${retry}`
        : `tenant "${tenantId ?? '(anonymous)'}" has ${ofTenant} runs waiting for a slot, its share of the queue (server.queueLimitPerTenant ${this.#queueLimitPerTenant}; other tenants still get in); ${retry}`,
      { details: { retryAfterSeconds, limit: waiting >= this.#queueLimit ? 'server.queueLimit' : 'server.queueLimitPerTenant' } },
    );
  }

  #schedule(runId: string, tenantId: string | undefined): void {
    if (this.#closing) return;
    if (this.#active.has(runId)) {
      // Being driven: the engine looks again when its pass ends.
      void this.#toolgate.engine.drive(runId);
      return;
    }
    this.#queue.push(runId, tenantId);
    this.#pump();
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
    if (this.#sweeper === undefined || this.#closing || !this.#storeMayHaveMore || this.#freeSlots() <= 0 || !this.#claimBackoff.ready()) return;
    void this.#sweep().catch((error: unknown) => this.#onError(`claiming runs from the store failed: ${describe(error)}`));
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
    const unobserve = this.#observe(runId);
    const done = this.#toolgate.engine
      .drive(runId, { stopSignal: this.#stop.signal, lease, run: created })
      .then(
        () => this.#retries.forget(runId),
        (error: unknown) => {
          if (!(error instanceof ToolgateError && error.code === 'store_unavailable')) {
            this.#onError(`run ${runId} could not be driven: ${describe(error)}`);
            return;
          }
          // Not a failure of the run: its log stays as it is, and it is driven again from there once the store answers.
          if (this.#closing) return;
          const delayMs = this.#retries.later(runId);
          this.#onError(`run ${runId} paused, the run store is unavailable: ${describe(error)}; trying again in ${delayMs} ms`);
        },
      )
      .finally(() => {
        unobserve();
        this.#active.delete(runId);
        this.#pump();
      });
    this.#active.set(runId, done);
  }

  /** Hands the run's live events to onEvents until the returned function is called. */
  #observe(runId: string): () => void {
    const onEvents = this.#onEvents;
    if (onEvents === undefined) return () => undefined;
    return this.#toolgate.store.subscribe(runId, (events) => onEvents(events));
  }

  async #mustSee(caller: Caller, runId: string): Promise<Run> {
    const run = await this.getRun(caller, runId);
    if (run === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
    return run;
  }
}

/** Another tenant's run does not exist for the caller. */
function visible(caller: Caller, run: Run): boolean {
  return caller.tenantId === undefined || run.tenantId === caller.tenantId;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
