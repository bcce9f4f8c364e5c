/**
 * A scriptable RunService for the server's tests, over any RunStore. startRun
 * writes the opening events; tests append the rest with emit()/finish(). It
 * records every call with its Caller so tests can check what the server passed.
 */
import { ToolgateError } from '../../src/core/errors.ts';
import { draft, type EventDraft, type RunEvent, type RunInput } from '../../src/core/events.ts';
import type {
  Caller,
  ForkRunRequest,
  IdempotencyOptions,
  ModelChoices,
  Readiness,
  RunListQuery,
  RunService,
  StartRunRequest,
  TenantTool,
  ToolsView,
} from '../../src/core/ports/run-service.ts';
import type { ToolSourceHealth } from '../../src/core/ports/tool-source.ts';
import type { RunPage, RunStore } from '../../src/core/ports/run-store.ts';
import { listRunsFiltered } from '../../src/core/run-filter.ts';
import { checkForkPoint, forkPrefix } from '../../src/orchestrator/state/fork-prefix.ts';
import {
  STRATEGY_NAMES,
  TERMINAL_RUN_STATUSES,
  type Run,
  type RunPatch,
  type RunSettings,
  type StrategyName,
} from '../../src/core/runs.ts';
import { ZERO_USAGE } from '../../src/core/usage.ts';

export interface RecordedCall {
  method: keyof RunService;
  caller?: Caller;
  args: unknown[];
}

export class TestRunService implements RunService {
  readonly store: RunStore;
  readonly calls: RecordedCall[] = [];
  tools: TenantTool[] = [];
  servers: ToolSourceHealth[] = [];
  readiness: Readiness = { ready: true };
  /** What listModels answers for a caller. */
  models: (caller: Caller) => ModelChoices = () => ({ models: [] });
  /** Thrown by the next service call (then cleared): to test how errors map to HTTP. */
  failNext: Error | undefined;

  constructor(store: RunStore) {
    this.store = store;
  }

  async startRun(
    caller: Caller,
    request: StartRunRequest,
    idempotency?: IdempotencyOptions,
  ): Promise<{ run: Run; created: boolean }> {
    this.#record('startRun', caller, [request, idempotency]);
    const init = {
      input: request.input,
      model: request.model ?? 'scripted:test',
      ...(caller.tenantId === undefined ? {} : { tenantId: caller.tenantId }),
      ...(caller.userId === undefined ? {} : { userId: caller.userId }),
      ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
      ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
      // Settings only when a strategy is named: runs without them stand for runs stored before settings were kept.
      ...(request.strategy === undefined ? {} : { settings: testSettings(request) }),
    };
    const result =
      idempotency === undefined
        ? { run: await this.store.createRun(init), created: true }
        : await this.store.createRunIdempotent(init, idempotency);
    if (!result.created) return result;
    const model = init.model;
    await this.store.append(
      result.run.id,
      [
        draft('run_status', { from: 'queued', to: 'running' }),
        draft('run_started', { input: request.input, model, tools: [], maxSteps: request.maxSteps ?? 10 }),
        draft('user_message', { text: request.input }),
      ],
      { status: 'running' },
    );
    return { run: (await this.store.getRun(result.run.id)) ?? result.run, created: true };
  }

  async getRun(caller: Caller, runId: string): Promise<Run | undefined> {
    this.#record('getRun', caller, [runId]);
    return this.#visible(caller, runId);
  }

  async listRuns(caller: Caller, query: RunListQuery): Promise<RunPage> {
    this.#record('listRuns', caller, [query]);
    const { strategy, q, ...storeQuery } = query;
    return listRunsFiltered(
      (page) => this.store.listRuns(page),
      { ...storeQuery, ...(caller.tenantId === undefined ? {} : { tenantId: caller.tenantId }) },
      { strategy, q },
    );
  }

  async submitInput(caller: Caller, runId: string, input: RunInput): Promise<Run> {
    this.#record('submitInput', caller, [runId, input]);
    const run = await this.#mustSee(caller, runId);
    if (input.type === 'approval' && run.pendingApproval?.toolCallId !== input.toolCallId) {
      throw new ToolgateError('conflict', `no call ${input.toolCallId} is waiting for a decision in run ${runId}`);
    }
    await this.store.append(runId, [draft('input_received', { input })]);
    return this.#mustSee(caller, runId);
  }

  async cancelRun(caller: Caller, runId: string, reason?: string): Promise<Run> {
    this.#record('cancelRun', caller, reason === undefined ? [runId] : [runId, reason]);
    const run = await this.#mustSee(caller, runId);
    if (TERMINAL_RUN_STATUSES.has(run.status))
      throw new ToolgateError('conflict', `run ${runId} has already ended (${run.status})`);
    await this.finish(runId, 'cancelled');
    return this.#mustSee(caller, runId);
  }

  /** A fork as the engine writes one (its copied conversation, then run_forked), left queued: nothing drives it. */
  async forkRun(caller: Caller, runId: string, request: ForkRunRequest): Promise<{ run: Run }> {
    this.#record('forkRun', caller, [runId, request]);
    const original = await this.#mustSee(caller, runId);
    const events = await this.store.readEvents(runId);
    checkForkPoint(runId, events, request.afterEventId);
    const run = await this.store.createRun({
      input: original.input,
      model: request.settings?.model ?? original.model,
      metadata: { forkOf: { runId, afterEventId: request.afterEventId } },
      ...(original.tenantId === undefined ? {} : { tenantId: original.tenantId }),
      ...(original.userId === undefined ? {} : { userId: original.userId }),
    });
    const forked = draft('run_forked', {
      from: runId,
      afterEventId: request.afterEventId,
      ...(request.settings === undefined ? {} : { settings: { ...request.settings } }),
    });
    await this.store.append(run.id, [...forkPrefix(events, request.afterEventId), forked]);
    return { run: await this.#mustSee(caller, run.id) };
  }

  async listTools(caller: Caller): Promise<ToolsView> {
    this.#record('listTools', caller, []);
    return { tools: structuredClone(this.tools), servers: structuredClone(this.servers) };
  }

  async listModels(caller: Caller): Promise<ModelChoices> {
    this.#record('listModels', caller, []);
    return structuredClone(this.models(caller));
  }

  async ready(): Promise<Readiness> {
    this.#record('ready', undefined, []);
    return this.readiness;
  }

  /** Appends events to a run, as the run loop would. */
  emit(runId: string, drafts: readonly EventDraft[], patch?: RunPatch): Promise<RunEvent[]> {
    return this.store.append(runId, drafts, patch);
  }

  /** Appends `count` assistant deltas of `size` characters each, one append per event. */
  async emitDeltas(runId: string, options: { count: number; size?: number }): Promise<void> {
    for (let i = 0; i < options.count; i += 1) {
      await this.store.append(runId, [
        draft('assistant_delta', { step: 1, text: String(i % 10).repeat(options.size ?? 8) }),
      ]);
    }
  }

  /** Ends a run with its terminal event (and the status change, in one append). */
  async finish(runId: string, status: 'completed' | 'failed' | 'cancelled' = 'completed'): Promise<RunEvent[]> {
    const run = await this.store.getRun(runId);
    const from = run?.status ?? 'running';
    const terminal =
      status === 'completed'
        ? draft('run_completed', { output: 'done', usage: { ...ZERO_USAGE }, steps: 1 })
        : status === 'failed'
          ? draft('run_failed', { error: { code: 'model_error', message: 'scripted failure' } })
          : draft('run_cancelled', { reason: 'cancelled by the client' });
    return this.store.append(runId, [draft('run_status', { from, to: status }), terminal], { status });
  }

  #record(method: keyof RunService, caller: Caller | undefined, args: unknown[]): void {
    this.calls.push({
      method,
      ...(caller === undefined ? {} : { caller: structuredClone(caller) }),
      args: structuredClone(args),
    });
    const failure = this.failNext;
    if (failure !== undefined) {
      this.failNext = undefined;
      throw failure;
    }
  }

  async #visible(caller: Caller, runId: string): Promise<Run | undefined> {
    const run = await this.store.getRun(runId);
    return run === undefined || run.tenantId !== caller.tenantId ? undefined : run;
  }

  async #mustSee(caller: Caller, runId: string): Promise<Run> {
    const run = await this.#visible(caller, runId);
    if (run === undefined) throw new ToolgateError('not_found', `run "${runId}" not found`);
    return run;
  }
}

function testSettings(request: StartRunRequest): RunSettings {
  const strategy = (STRATEGY_NAMES as readonly string[]).includes(request.strategy ?? '')
    ? (request.strategy as StrategyName)
    : 'react';
  return {
    maxSteps: request.maxSteps ?? 10,
    strategy,
    toolMode: 'native',
    parseRetries: 3,
    textToolCalls: 'auto',
    constrain: false,
    stream: true,
  };
}
