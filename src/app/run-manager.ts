import {
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  draft,
  type Caller,
  type IdempotencyOptions,
  type JsonObject,
  type JsonValue,
  type ListRunsQuery,
  type Run,
  type RunInput,
  type RunPage,
  type RunService,
  type StartRunRequest,
  type TenantTool,
} from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';
import { submitInput } from '../orchestrator/submit-input.ts';
import type { Toolgate } from './toolgate.ts';

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

interface Active {
  abort: AbortController;
  done: Promise<void>;
  /** Input arrived while driving: drive again when this pass ends. */
  again: boolean;
}

/**
 * Runs in the background for the runs API: a FIFO queue with a concurrency
 * limit, cancellation, approvals, per-tenant isolation, recovery of
 * interrupted runs at start, and a graceful stop at safe points.
 */
export class RunManager implements RunService {
  readonly #toolgate: Toolgate;
  readonly #concurrency: number;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #active = new Map<string, Active>();
  readonly #stop = new AbortController();
  readonly #locks = new Map<string, Promise<unknown>>();
  #closing = false;
  #onError: (message: string) => void;
  readonly #redact: (value: JsonValue) => JsonValue;

  constructor(options: { toolgate: Toolgate; concurrency?: number; onError?: (message: string) => void }) {
    this.#toolgate = options.toolgate;
    this.#redact = createRedactor(options.toolgate.settings.redact);
    this.#concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.#onError = options.onError ?? ((m) => process.emitWarning(m));
  }

  /**
   * Resumes every run that was queued or running when the process stopped, and
   * waiting runs whose decision arrived just before it stopped (the driver
   * leaves a run that is still waiting untouched). Returns the ids of the
   * interrupted (queued or running) ones.
   */
  async recover(): Promise<string[]> {
    const interrupted: string[] = [];
    const waiting: string[] = [];
    for (const status of ['running', 'queued', 'waiting_approval'] as const) {
      let cursor: string | undefined;
      do {
        const page = await this.#toolgate.store.listRuns({ status, limit: 200, ...(cursor === undefined ? {} : { cursor }) });
        for (const run of page.runs.reverse()) (status === 'waiting_approval' ? waiting : interrupted).push(run.id);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    }
    for (const id of [...interrupted, ...waiting]) this.#schedule(id);
    return interrupted;
  }

  async startRun(caller: Caller, request: StartRunRequest, idempotency?: IdempotencyOptions): Promise<{ run: Run; created: boolean }> {
    if (this.#closing) throw new ToolgateError('shutting_down', 'the server is shutting down and takes no new runs; retry on another instance or after the restart');
    const { maxSteps: _maxSteps, strategy: _strategy, ...rest } = request;
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
    // No tools reachable: refuse now, as an HTTP error, rather than start a run that can only fail.
    await this.#toolgate.tools.listTools();
    const init = await this.#toolgate.newRun({
      ...rest,
      ...(caller.tenantId === undefined ? {} : { tenantId: caller.tenantId }),
      ...(caller.userId === undefined ? {} : { userId: caller.userId }),
    });
    const result =
      idempotency === undefined
        ? { run: await this.#toolgate.store.createRun(init), created: true }
        : await this.#toolgate.store.createRunIdempotent(init, { key: idempotency.key, requestHash: idempotency.requestHash });
    if (result.created) this.#schedule(result.run.id, request.maxSteps);
    return { run: this.#present(result.run), created: result.created };
  }

  async getRun(caller: Caller, runId: string): Promise<Run | undefined> {
    const run = await this.#toolgate.store.getRun(runId);
    return run !== undefined && visible(caller, run) ? this.#present(run) : undefined;
  }

  async listRuns(caller: Caller, query: Omit<ListRunsQuery, 'tenantId'>): Promise<RunPage> {
    const page = await this.#toolgate.store.listRuns({ ...query, ...(caller.tenantId === undefined ? {} : { tenantId: caller.tenantId }) });
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
    await this.#mustSee(caller, runId);
    return this.#locked(runId, async () => {
      const withUser: RunInput = caller.userId === undefined || input.userId !== undefined ? input : { ...input, userId: caller.userId };
      const run = await submitInput(this.#toolgate.store, runId, withUser);
      if (input.type === 'approval') this.#schedule(runId);
      return this.#present(run);
    });
  }

  async cancelRun(caller: Caller, runId: string): Promise<Run> {
    await this.#mustSee(caller, runId);
    return this.#locked(runId, async () => {
      const run = await this.#toolgate.store.getRun(runId);
      if (run === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
      if (TERMINAL_RUN_STATUSES.has(run.status)) throw new ToolgateError('conflict', `run ${runId} has already ended (${run.status})`);
      const active = this.#active.get(runId);
      if (active !== undefined) {
        active.abort.abort();
        await active.done;
      } else {
        this.#queued.delete(runId);
        const reason = 'cancelled by a client';
        await this.#toolgate.store.append(
          runId,
          [draft('run_status', { from: run.status, to: 'cancelled', reason }), draft('run_cancelled', { reason, usage: run.usage, steps: run.steps })],
          { status: 'cancelled', pendingApproval: null },
        );
      }
      const after = await this.#toolgate.store.getRun(runId);
      if (after === undefined) throw new ToolgateError('internal', `run ${runId} vanished from the store`);
      return this.#present(after);
    });
  }

  listTools(caller: Caller): Promise<TenantTool[]> {
    return this.#toolgate.listClassifiedTools(caller.tenantId);
  }

  async ready(): Promise<{ ready: boolean; reason?: string }> {
    if (this.#closing) return { ready: false, reason: 'shutting down' };
    try {
      await this.#toolgate.store.listRuns({ limit: 1 });
      return { ready: true };
    } catch (error) {
      return { ready: false, reason: `run store unavailable: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /** Runs being driven or waiting for a slot. */
  get load(): { active: number; queued: number } {
    return { active: this.#active.size, queued: this.#queue.length };
  }

  /**
   * Stops taking runs and lets running ones reach a safe point (between steps);
   * after `graceMs` the rest is left to recovery at the next start — their logs
   * say where they are.
   */
  async shutdown(options: { graceMs?: number } = {}): Promise<void> {
    this.#closing = true;
    this.#queue.length = 0;
    this.#queued.clear();
    this.#stop.abort();
    const all = Promise.all([...this.#active.values()].map((a) => a.done));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, options.graceMs ?? DEFAULT_SHUTDOWN_GRACE_MS)))]);
    clearTimeout(timer);
  }

  #schedule(runId: string, maxSteps?: number): void {
    if (this.#closing) return;
    const active = this.#active.get(runId);
    if (active !== undefined) {
      active.again = true;
      return;
    }
    if (this.#queued.has(runId)) return;
    this.#queued.add(runId);
    this.#queue.push(runId);
    if (maxSteps !== undefined) this.#maxSteps.set(runId, maxSteps);
    this.#pump();
  }

  readonly #maxSteps = new Map<string, number>();

  #pump(): void {
    while (this.#active.size < this.#concurrency && this.#queue.length > 0) {
      const runId = this.#queue.shift() as string;
      this.#queued.delete(runId);
      const abort = new AbortController();
      const entry: Active = { abort, again: false, done: Promise.resolve() };
      const maxSteps = this.#maxSteps.get(runId);
      entry.done = this.#toolgate
        .drive(runId, { signal: abort.signal, stopSignal: this.#stop.signal, ...(maxSteps === undefined ? {} : { maxSteps }) })
        .then(
          () => undefined,
          (error: unknown) => this.#onError(`run ${runId} could not be driven: ${error instanceof Error ? error.message : String(error)}`),
        )
        .finally(() => {
          this.#active.delete(runId);
          if (entry.again && !abort.signal.aborted) this.#schedule(runId);
          else this.#maxSteps.delete(runId);
          this.#pump();
        });
      this.#active.set(runId, entry);
    }
  }

  async #mustSee(caller: Caller, runId: string): Promise<void> {
    if ((await this.getRun(caller, runId)) === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
  }

  /** One change at a time per run: two decisions for one call cannot both pass the pending check. */
  #locked<T>(runId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(runId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.#locks.set(runId, settled);
    void settled.then(() => {
      if (this.#locks.get(runId) === settled) this.#locks.delete(runId);
    });
    return next;
  }
}

/** Another tenant's run does not exist for the caller. */
function visible(caller: Caller, run: Run): boolean {
  return caller.tenantId === undefined || run.tenantId === caller.tenantId;
}
