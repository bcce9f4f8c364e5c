import {
  ACTIVE_RUN_STATUSES,
  ToolgateError,
  describeError,
  listRunsFiltered,
  type Caller,
  type ForkRunRequest,
  type IdempotencyOptions,
  type JsonValue,
  type ModelChoices,
  type Readiness,
  type Run,
  type RunEvent,
  type RunInput,
  type RunListQuery,
  type RunPage,
  type RunService,
  type StartRunRequest,
  type ToolsView,
} from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';
import { checkApprovalEdit } from './check-approval-edit.ts';
import { checkDecider } from './check-decider.ts';
import { createFork, prepareFork } from './fork-run.ts';
import { checkModelAllowed, overloadedError } from './admission.ts';
import { redactRunContext } from './redact-run.ts';
import { RunScheduler } from './run-scheduler.ts';
import type { StoreRetryOptions } from './store-retry.ts';
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
 * The runs API over a Toolgate: which runs this process drives and when is
 * the RunScheduler's (a fair queue, a concurrency limit, sweeps for runs whose
 * owner stopped, backoff while the store is unavailable, a graceful stop);
 * what a run is and how it is driven, cancelled or resumed belongs to the
 * engine (toolgate.engine). Admission (a bound on the queue in all and per
 * tenant: full → `overloaded`) and per-tenant isolation of the API are applied here.
 */
export class RunManager implements RunService {
  readonly #toolgate: Toolgate;
  readonly #scheduler: RunScheduler;
  readonly #concurrency: number;
  readonly #queueLimit: number;
  readonly #queueLimitPerTenant: number;
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
    /**
     * Backoff after `store_unavailable` (defaults: DEFAULT_STORE_RETRY_MS doubling up to DEFAULT_STORE_RETRY_MAX_MS).
     */
    storeRetry?: StoreRetryOptions;
  }) {
    this.#toolgate = options.toolgate;
    this.#redact = createRedactor(options.toolgate.settings.redact);
    this.#concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.#queueLimit = options.queueLimit ?? DEFAULT_QUEUE_LIMIT;
    // The tenants that can reach the runs API: those with keys.
    const tenants = Object.values(options.toolgate.settings.tenants).filter(
      (tenant) => (tenant.apiKeys?.length ?? 0) > 0,
    ).length;
    this.#queueLimitPerTenant = options.queueLimitPerTenant ?? defaultQueueLimitPerTenant(this.#queueLimit, tenants);
    this.#scheduler = new RunScheduler({
      toolgate: options.toolgate,
      concurrency: this.#concurrency,
      onError: options.onError ?? ((m) => process.emitWarning(m)),
      onEvents: options.onEvents,
      storeRetry: options.storeRetry,
    });
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
      const page = await this.#toolgate.store.listRuns({
        status: 'waiting_approval',
        limit: 200,
        ...(cursor === undefined ? {} : { cursor }),
      });
      waiting.push(...page.runs.filter((run) => run.settings === undefined));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    // Logs written before decisions moved a run back to running: the driver leaves a run that is still waiting
    // untouched.
    return this.#scheduler.recover(waiting.reverse());
  }

  async startRun(
    caller: Caller,
    request: StartRunRequest,
    idempotency?: IdempotencyOptions,
  ): Promise<{ run: Run; created: boolean }> {
    this.#mustBeOpen();
    // Checked before anything reads the model id: a client never learns what lies behind one it may not use.
    if (request.model !== undefined) checkModelAllowed(this.#toolgate, request.model, caller.tenantId);
    const init = await this.#toolgate.newRun({
      ...request,
      ...(caller.tenantId === undefined ? {} : { tenantId: caller.tenantId }),
      ...(caller.userId === undefined ? {} : { userId: caller.userId }),
      ...(caller.roles === undefined ? {} : { roles: caller.roles }),
    });
    // No tools reachable: refuse now, as an HTTP error, rather than start a run that can only fail.
    await this.#toolgate.tools.listTools();
    if (init.settings.clientTools !== undefined) await this.#clientToolsApart(caller, init.settings.clientTools);
    this.#mustHaveRoom(caller.tenantId);
    const now = idempotency === undefined ? await this.#scheduler.startNow(init) : undefined;
    if (now !== undefined) return { run: this.#present(now), created: true };
    const result = await this.#toolgate.start(
      init,
      idempotency === undefined ? undefined : { key: idempotency.key, requestHash: idempotency.requestHash },
    );
    if (result.created) this.#scheduler.schedule(result.run.id, result.run.tenantId);
    return { run: this.#present(result.run), created: result.created };
  }

  /** A client tool named like one of the tenant's tools would make every call to that name ambiguous. */
  async #clientToolsApart(caller: Caller, clientTools: readonly { name: string }[]): Promise<void> {
    const { tools } = await this.listTools(caller);
    const names = new Set(tools.map((tool) => tool.name));
    const clash = clientTools.filter((tool) => names.has(tool.name)).map((tool) => tool.name);
    if (clash.length > 0) {
      throw new ToolgateError(
        'usage',
        `client tool ${clash.join(', ')} has the name of a tool toolgate runs for you; ` +
          'rename the client tool (or leave it out: toolgate runs the server-side one through its gate)',
      );
    }
  }

  async forkRun(caller: Caller, runId: string, request: ForkRunRequest): Promise<{ run: Run }> {
    this.#mustBeOpen();
    // The run as stored: its context holds the real values the fork's injected arguments are made of.
    const original = await this.#toolgate.store.getRun(runId);
    if (original === undefined || !visible(caller, original))
      throw new ToolgateError('not_found', `run ${runId} does not exist`);
    const model = request.settings?.model;
    if (model !== undefined) checkModelAllowed(this.#toolgate, model, caller.tenantId);
    const fork = await prepareFork({ toolgate: this.#toolgate, original, request });
    this.#mustHaveRoom(caller.tenantId);
    const run = await createFork(this.#toolgate, fork);
    this.#scheduler.schedule(run.id, run.tenantId);
    return { run: this.#present(run) };
  }

  async getRun(caller: Caller, runId: string): Promise<Run | undefined> {
    const run = await this.#toolgate.store.getRun(runId);
    return run !== undefined && visible(caller, run) ? this.#present(run) : undefined;
  }

  async listRuns(caller: Caller, query: RunListQuery): Promise<RunPage> {
    const { strategy, q, ...storeQuery } = query;
    const store = this.#toolgate.store;
    const page = await listRunsFiltered(
      (page) => store.listRuns(page),
      { ...storeQuery, ...(caller.tenantId === undefined ? {} : { tenantId: caller.tenantId }) },
      { strategy, q },
    );
    return { ...page, runs: page.runs.map((run) => this.#present(run)) };
  }

  /**
   * A run as clients see it: `context` holds the values injected arguments are
   * made of (user tokens, account ids), so secret-looking keys are redacted
   * like everywhere else; the run keeps the real values.
   */
  #present(run: Run): Run {
    return redactRunContext(run, this.#redact);
  }

  async submitInput(caller: Caller, runId: string, given: RunInput): Promise<Run> {
    const seen = await this.#mustSee(caller, runId);
    // Who may decide (tenants.<id>.approvers): refused before anything is written.
    const input = await checkDecider({
      policy: this.#toolgate.policy,
      store: this.#toolgate.store,
      knownTools: () => this.#toolgate.tools.knownTools(),
      escalationApprovers: this.#toolgate.settings.approvals?.escalation?.approvers,
      run: seen,
      caller,
      input: given,
    });
    if (input.type === 'approval' && input.decision === 'edit') {
      const tools = (await this.#toolgate.tools.knownTools()).map(({ spec }) => spec);
      checkApprovalEdit({
        run: seen,
        input,
        tools,
        policy: this.#toolgate.policy,
        validator: this.#toolgate.validator,
      });
    }
    const withUser: RunInput =
      caller.userId === undefined || input.userId !== undefined ? input : { ...input, userId: caller.userId };
    const run = await this.#toolgate.engine.input(runId, withUser);
    // A decision, or a message that answered an escalated run, moves it back to running: drive it.
    if (input.type === 'approval' || ACTIVE_RUN_STATUSES.has(run.status)) this.#scheduler.schedule(runId, run.tenantId);
    return this.#present(run);
  }

  async cancelRun(caller: Caller, runId: string, reason?: string): Promise<Run> {
    await this.#mustSee(caller, runId);
    const unobserve = this.#scheduler.observe(runId);
    let run: Run;
    try {
      run = await this.#toolgate.engine.cancel(runId, {
        reason: reason ?? 'cancelled by a client',
        ...(caller.userId === undefined ? {} : { userId: caller.userId }),
      });
    } finally {
      unobserve();
    }
    this.#scheduler.unqueue(runId);
    return this.#present(run);
  }

  async listTools(caller: Caller): Promise<ToolsView> {
    const tools = await this.#toolgate.listClassifiedTools(caller.tenantId, caller.roles);
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
    if (this.#scheduler.closing) return { ready: false, reason: 'shutting down' };
    const servers = this.#toolgate.toolHealth();
    try {
      await this.#toolgate.store.listRuns({ limit: 1 });
    } catch (error) {
      return { ready: false, reason: `run store unavailable: ${describeError(error)}`, servers };
    }
    const down = servers.filter((s) => s.state === 'down');
    if (servers.length > 0 && down.length === servers.length) {
      return {
        ready: false,
        reason: `no tool server is up: ${down.map((s) => `"${s.name}": ${s.error ?? 'down'}`).join('; ')}`,
        servers,
      };
    }
    return { ready: true, servers };
  }

  /** Runs being driven or waiting for a slot. */
  get load(): { active: number; queued: number } {
    return this.#scheduler.load;
  }

  /**
   * Stops taking runs and lets running ones reach a safe point (between steps);
   * after `graceMs` the rest is left to recovery — by the next start, or by
   * another process once their leases expire; their logs say where they are.
   */
  async shutdown(options: { graceMs?: number } = {}): Promise<void> {
    await this.#scheduler.shutdown(options.graceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
  }

  /** Refuses a new run (`overloaded`) when the queue, in all or the tenant's share of it, is full. */
  #mustHaveRoom(tenantId: string | undefined): void {
    const { all: waiting, ofTenant } = this.#scheduler.waiting(tenantId);
    if (waiting < this.#queueLimit && ofTenant < this.#queueLimitPerTenant) return;
    throw overloadedError({
      waiting,
      ofTenant,
      tenantId,
      queueLimit: this.#queueLimit,
      queueLimitPerTenant: this.#queueLimitPerTenant,
      concurrency: this.#concurrency,
    });
  }

  #mustBeOpen(): void {
    if (this.#scheduler.closing)
      throw new ToolgateError(
        'shutting_down',
        'the server is shutting down and takes no new runs; retry on another instance or after the restart',
      );
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
