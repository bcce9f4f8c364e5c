import {
  ACTIVE_RUN_STATUSES,
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  draft,
  toErrorInfo,
  type Message,
  type Run,
  type RunSettings,
  type RunEventDataMap,
  type RunStore,
  type TodoItem,
  type ToolListing,
  type ToolSource,
} from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';
import { sharedValidator } from '../validation/index.ts';
import type { ConversationState, OpenTurn } from './conversation-state.ts';
import { DeltaBuffer } from './delta-buffer.ts';
import { executeToolCall, injectionContext, previewToolCall, recordUnsent, type ToolCallContext } from './execute-tool-call.ts';
import { finishTurn, untrustedBefore } from './finish-turn.ts';
import { runModelTurn, type ModelTurnResult } from './model-turn.ts';
import { checkGuard, checkToolBudget, type GuardTrip } from './run-guard.ts';
import type { RunEnvironment } from './run-options.ts';
import { runSideCall } from './side-call.ts';
import { strategyFor, type Checkpoint, type GateFn, type StrategyContext, type StrategyOutcome, type TurnOptions } from './strategies/index.ts';
import { TODO_REMINDER, runTodoTool, withTodos } from './todo-tools.ts';
import { trimHistory } from './trim-history.ts';
import { buildToolCatalog } from './tool-catalog.ts';
import { transition, type AppendFn } from './transition.ts';

export interface PassInput {
  store: RunStore;
  run: Run;
  settings: RunSettings;
  /** Resolved inside the pass: a model that cannot be created any more fails the run, with the reason. */
  environment: () => Promise<RunEnvironment>;
  state: ConversationState;
  /** Appends as the run's owner (fenced by its lease); the state follows before it resolves. */
  append: AppendFn;
  /** Aborts model and tool calls: a cancel request, or the lease was lost. */
  signal: AbortSignal;
  /** Shutdown: stop at the next safe point without ending the run. */
  stopSignal?: AbortSignal | undefined;
  /** The lease was lost: stop without writing anything more. */
  lost: () => boolean;
}

/** How a pass left the run. */
export type PassEnd = 'ended' | 'waiting' | 'paused' | 'lost';

/**
 * One pass over a run by its owner: from wherever the log says it is, through
 * the run's strategy, until it ends, waits for a person, or must pause.
 * Model, tool and input trouble end the run `failed` with the reason; only a
 * store failure (or a lost lease) is left for the caller.
 */
export async function drivePass(input: PassInput): Promise<PassEnd> {
  const { run, state, settings, append } = input;
  if (state.terminal) return 'ended';
  // Still waiting for a decision: nothing to do until input arrives.
  if (state.status === 'waiting_approval' && (run.pendingApproval === undefined || !state.decisions.has(run.pendingApproval.toolCallId))) return 'waiting';
  // Escalated: waits for a person's message (which moves it back to running) or a cancel.
  if (state.status === 'escalated') return 'waiting';
  const deltas = new DeltaBuffer({ append });
  let env: RunEnvironment | undefined;
  try {
    const environment = await input.environment();
    env = environment;
    const { model } = environment;
    const todo = settings.todo?.enabled === true;
    const tools = environment.tools;
    const listed = await listTools(tools, input.signal);
    const listing = todo ? { ...listed, tools: withTodos(listed.tools) } : listed;
    const catalog = buildToolCatalog(listing.tools, {
      ...(env.policy === undefined ? {} : { policy: env.policy }),
      tenantId: run.tenantId,
    });
    const fullHistory = env.history ?? (run.threadId === undefined ? [] : ((await input.store.getThread(run.threadId, run.tenantId))?.messages ?? []));
    const trimmed = settings.historyMaxTokens === undefined ? { messages: [...fullHistory] } : trimHistory(fullHistory, settings.historyMaxTokens);
    const history = trimmed.messages;
    const prefix: Message[] = [...(env.systemPrompt === undefined ? [] : [{ role: 'system' as const, content: env.systemPrompt }]), ...history];
    const historyCalls = history.filter((m) => m.role === 'assistant').length;
    const callIndex = (): number => historyCalls + state.modelCalls;
    const strategy = strategyFor(settings.strategy);
    if (!state.started) {
      const carried = todo && run.threadId !== undefined ? await threadTodos(input.store, run) : undefined;
      await transition(append, state, strategy.startStatus ?? 'running', [
        draft('run_started', {
          input: run.input,
          model: model.id,
          tools: [...catalog.visible.keys()],
          maxSteps: settings.maxSteps,
          toolMode: settings.toolMode,
          strategy: settings.strategy,
          ...(run.dryRun === true ? { dryRun: true } : {}),
          ...(run.threadId === undefined ? {} : { threadId: run.threadId }),
          ...(listing.unavailable.length === 0 ? {} : { unavailable: listing.unavailable }),
        }),
        ...(trimmed.trimmed === undefined ? [] : [draft('history_trimmed', trimmed.trimmed)]),
        ...(carried === undefined ? [] : [draft('todo_updated', { todos: carried, fromThread: true })]),
        draft('user_message', { text: run.input }),
      ]);
      await callHook(() => environment.hooks?.onRunStart?.(run));
    } else if (!ACTIVE_RUN_STATUSES.has(state.status)) {
      await transition(append, state, 'running', [], { patch: { pendingApproval: null } });
    }
    const validator = env.validator ?? sharedValidator();
    const redact = createRedactor(env.redact);
    const callContext: Omit<ToolCallContext, 'step'> = {
      runId: run.id,
      append,
      tools,
      catalog,
      policy: env.policy,
      validator,
      redact,
      dryRun: run.dryRun === true,
      tenantId: run.tenantId,
      userId: run.userId,
      context: run.context,
      hooks: env.hooks,
      signal: input.signal,
      toolTimeoutMs: env.toolTimeoutMs,
      maxToolLatencyMs: settings.guard?.maxToolLatencyMs,
      builtin: todo ? (request) => runTodoTool(request, state, append) : undefined,
    };
    const gate: GateFn = (call, options) =>
      executeToolCall({ ...callContext, step: options.step, truncated: options.truncated === true, untrusted: untrustedBefore(state, options.step) }, call, options.approval);
    const mode = (): 'native' | 'prompted' => state.toolMode ?? (settings.toolMode === 'prompted' ? 'prompted' : 'native');
    const modelTurn = async (options: TurnOptions = {}): Promise<ModelTurnResult> => {
      const turn = await runModelTurn({
        model,
        state,
        catalog,
        prefix,
        mode: mode(),
        allowFallback: settings.toolMode === 'auto',
        constrain: settings.constrain,
        stream: settings.stream,
        parseRetries: settings.parseRetries,
        textToolCalls: settings.textToolCalls,
        signal: input.signal,
        deltas,
        append,
        callIndex,
        ...(options.tools === false ? { offerTools: false } : {}),
        ...(options.instruction === undefined ? {} : { instruction: options.instruction }),
      });
      if (state.turn !== undefined) state.turn.truncated = turn.truncated;
      return turn;
    };
    /** Closes what is open and asks for an answer from what is known, with no more tools (degrade mode). */
    const degrade = async (trip: GuardTrip): Promise<StrategyOutcome> => {
      if (state.turn !== undefined) {
        const open = state.turn.calls.filter((c) => !state.turn?.results.has(c.id)).map((c) => c.id);
        await skip(open, 'skipped', `not run: ${trip.message}`);
      }
      const answer = await modelTurn({
        tools: false,
        instruction: `${trip.message}. No more tools can be used in this run. Answer the request now from what you already know, and say what is missing.`,
      });
      return { kind: 'completed', output: answer.content };
    };
    const breach = async (trip: GuardTrip): Promise<StrategyOutcome> => {
      await append([draft('guard_tripped', guardData(trip))]);
      if (trip.action === 'degrade') return degrade(trip);
      throw new ToolgateError(trip.code, trip.message);
    };
    const skip = async (callIds: readonly string[], code: 'skipped' | 'rejected', message: string): Promise<void> => {
      const turn = state.turn;
      if (turn === undefined) return;
      for (const call of turn.calls) {
        if (!callIds.includes(call.id) || turn.results.has(call.id)) continue;
        await recordUnsent({ ...callContext, step: turn.step }, call, code, message);
      }
    };
    const ctx: StrategyContext = {
      runId: run.id,
      input: run.input,
      state,
      settings,
      dryRun: run.dryRun === true,
      toolDefinitions: catalog.definitions,
      writeTools: new Set([...catalog.visible.values()].filter((e) => e.policy.effect === 'write').map((e) => e.tool.name)),
      get mode() {
        return mode();
      },
      prefix,
      gate,
      modelTurn,
      sideCall: (request) => runSideCall({ model, state, catalog, append, signal: input.signal, callIndex, mode: mode() }, request),
      finishTurn: async (options) => {
        const turn = state.turn as OpenTurn;
        const pending = turn.calls.filter((c) => !turn.results.has(c.id) && !turn.started.has(c.id) && (options?.only === undefined || options.only.includes(c.id)));
        // Calls a person rejected or marked done are not sent; the others may be.
        const sendable = pending.filter((c) => {
          const decision = state.decisions.get(c.id)?.decision;
          return decision !== 'reject' && decision !== 'mark_done';
        });
        const trip = checkToolBudget(state, settings, sendable.length);
        if (trip !== undefined) return { kind: 'direct', output: outputOf(await breach(trip)) };
        const outcome = await finishTurn({ state, append, gate, catalog, validator, redact, injection: injectionContext(run) }, options);
        // A round closed without todo_write for remindAfter rounds: the reminder goes first in the results the model gets next.
        const remindAfter = settings.todo?.remindAfter ?? 0;
        if (todo && remindAfter > 0 && state.turn === undefined && state.roundsSinceTodo >= remindAfter) {
          await append([draft('reminder_injected', { step: state.step, rounds: state.roundsSinceTodo, text: TODO_REMINDER })]);
        }
        return outcome;
      },
      preview: (call, step) => previewToolCall({ ...callContext, step, untrusted: untrustedBefore(state, step) }, call),
      skip,
      record: async (drafts, status) => {
        if (status === undefined || status.to === state.status) {
          if (drafts.length > 0) await append(drafts, status?.patch);
          return;
        }
        await transition(append, state, status.to, drafts, { ...(status.reason === undefined ? {} : { reason: status.reason }), ...(status.patch === undefined ? {} : { patch: status.patch }) });
      },
      askPlanApproval: async (plan) => {
        const data = { step: plan.step, toolCallId: plan.planId, name: 'plan', arguments: plan.arguments, effect: 'write' as const, reason: 'policy' as const, kind: 'plan' as const };
        const eventId = state.lastEventId + (state.status === 'waiting_approval' ? 1 : 2);
        await transition(append, state, 'waiting_approval', [draft('approval_required', data)], {
          reason: 'the plan needs approval',
          patch: { pendingApproval: { toolCallId: plan.planId, name: 'plan', arguments: plan.arguments, effect: 'write', reason: 'policy', kind: 'plan', eventId } },
        });
      },
      checkpoint: async (): Promise<Checkpoint> => {
        if (!checkpoint(input)) return { kind: 'pause' };
        const trip = checkGuard(state, settings);
        if (trip === undefined) return { kind: 'go' };
        if (trip.action === 'warn' || trip.action === 'reflect') {
          await append([draft('guard_tripped', guardData(trip))]);
          return trip.action === 'warn' ? { kind: 'go' } : { kind: 'reflect', trip };
        }
        return { kind: 'end', outcome: await breach(trip) };
      },
      breach,
    };
    const outcome = await strategy.run(ctx);
    if (outcome.kind === 'completed') {
      await complete(input, env, outcome.output);
      return 'ended';
    }
    return outcome.kind;
  } catch (error) {
    await deltas.flush().catch(() => undefined);
    return fail(input, error, env);
  }
}

/** The safe point between steps (see StrategyContext.checkpoint). */
function checkpoint(input: PassInput): boolean {
  const { state, settings } = input;
  if (input.lost()) return false;
  if (input.signal.aborted || state.cancelRequested !== undefined) throw new ToolgateError('cancelled', state.cancelRequested ?? 'the run was cancelled');
  // Shutting down: the run stays `running` and is resumed from its log.
  if (input.stopSignal?.aborted === true) return false;
  if (state.unusableTurns > settings.parseRetries) {
    throw new ToolgateError(
      'unparseable_tool_call',
      `the model's tool-call arguments could not be read in ${state.unusableTurns} turns in a row (parseRetries: ${settings.parseRetries}); the model was told what was wrong each time. A model that supports native tool calls better, or toolMode: prompted, may help`,
    );
  }
  return true;
}

async function fail(input: PassInput, error: unknown, env: RunEnvironment | undefined): Promise<PassEnd> {
  const { state, append } = input;
  if (input.lost() || (error instanceof ToolgateError && error.code === 'lease_lost')) return 'lost';
  const cancelled = input.signal.aborted || state.cancelRequested !== undefined || (error instanceof ToolgateError && error.code === 'cancelled');
  const info = cancelled ? { code: 'cancelled' as const, message: state.cancelRequested ?? 'the run was cancelled' } : toErrorInfo(error);
  try {
    if (info.code === 'cancelled') {
      await transition(append, state, 'cancelled', [draft('run_cancelled', { reason: info.message, usage: state.usage, steps: state.step })], {
        patch: { pendingApproval: null },
      });
    } else {
      await transition(append, state, 'failed', [draft('run_failed', { error: info, usage: state.usage, steps: state.step })], { patch: { error: info, pendingApproval: null } });
    }
  } catch (ending) {
    if (input.lost() || (ending instanceof ToolgateError && ending.code === 'lease_lost')) return 'lost';
    // The run has ended already (cancelled elsewhere, or completed just before the error): the store keeps that end.
    const current = await input.store.getRun(input.run.id);
    if (current === undefined || !TERMINAL_RUN_STATUSES.has(current.status)) throw ending;
    return 'ended';
  }
  await runEndHook(input, env);
  return 'ended';
}

async function complete(input: PassInput, env: RunEnvironment, output: string): Promise<void> {
  const { run, state, append } = input;
  await transition(append, state, 'completed', [draft('run_completed', { output, usage: state.usage, steps: state.step })], { patch: { output } });
  if (run.threadId !== undefined) {
    // The run is complete whatever happens here: a thread that cannot be
    // extended (a store error) leaves the run as it is.
    try {
      await input.store.appendThreadMessages(run.threadId, threadMessages(state, output), run.tenantId);
    } catch (error) {
      process.emitWarning(`run ${run.id}: thread ${run.threadId} not extended: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  await runEndHook(input, env);
}

/**
 * What a completed run adds to its thread: its conversation (tool calls and
 * outputs included, so a later run can see them, shortened first when the
 * history is trimmed) and the answer, when the conversation does not end with it.
 */
function threadMessages(state: ConversationState, output: string): Message[] {
  const messages = [...state.messages, ...state.deferred];
  const last = messages.at(-1);
  if (last?.role === 'assistant' && last.content === output && (last.toolCalls ?? []).length === 0) return messages;
  return [...messages, { role: 'assistant', content: output }];
}

/** The todo list the thread's latest earlier run ended with. */
async function threadTodos(store: RunStore, run: Run): Promise<TodoItem[] | undefined> {
  const page = await store.listRuns({ threadId: run.threadId as string, ...(run.tenantId === undefined ? {} : { tenantId: run.tenantId }), limit: 20 });
  const earlier = page.runs.filter((r) => r.id !== run.id && r.createdAt <= run.createdAt).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  for (const previous of earlier) {
    const events = await store.readEvents(previous.id);
    const last = events.findLast((e) => e.type === 'todo_updated');
    if (last !== undefined && last.type === 'todo_updated') return last.data.todos;
  }
  return undefined;
}

function guardData(trip: GuardTrip): RunEventDataMap['guard_tripped'] {
  return { code: trip.code, action: trip.action, limit: trip.limit, value: trip.value, message: trip.message, ...(trip.tool === undefined ? {} : { tool: trip.tool }) };
}

function outputOf(outcome: StrategyOutcome): string {
  return outcome.kind === 'completed' ? outcome.output : '';
}

/** onRunEnd with the run as stored at its end (read only when there is a hook to hand it to). */
async function runEndHook(input: PassInput, env: RunEnvironment | undefined): Promise<void> {
  const hook = env?.hooks?.onRunEnd;
  if (hook === undefined) return;
  await callHook(async () => hook(await finalRun(input.store, input.run.id)));
}

export async function finalRun(store: RunStore, runId: string): Promise<Run> {
  const run = await store.getRun(runId);
  if (run === undefined) throw new ToolgateError('internal', `run ${runId} vanished from the store`);
  return run;
}

async function callHook(fn: () => void | Promise<void> | undefined): Promise<void> {
  try {
    await fn();
  } catch (error) {
    process.emitWarning(`run hook failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The run's tools: a registry says which sources are missing (their tools are
 * left out, the run goes on with the rest); a plain source lists or throws.
 */
async function listTools(tools: ToolSource, signal: AbortSignal | undefined): Promise<ToolListing> {
  const options = signal === undefined ? {} : { signal };
  if (tools.listing === undefined) return { tools: await tools.listTools(options), unavailable: [] };
  const listing = await tools.listing(options);
  // Nothing listed and something missing: listTools rejects when no source at all is up, failing the run with every cause.
  if (listing.tools.length === 0 && listing.unavailable.length > 0) await tools.listTools(options);
  return listing;
}
