import {
  ToolgateError,
  draft,
  type Message,
  type Run,
  type RunEventDataMap,
  type RunSettings,
} from '../../core/index.ts';
import { createRedactor } from '../../gate/index.ts';
import { sharedValidator } from '../../validation/index.ts';
import { parseToolCall } from '../../parsing/index.ts';
import type { ConversationState } from '../state/run-state.ts';
import { signalIfClosing } from '../state/step-signals.ts';
import type { DeltaBuffer } from './delta-buffer.ts';
import {
  executeToolCall,
  injectionContext,
  previewToolCall,
  recordUnsent,
  type ToolCallContext,
} from '../call/execute-tool-call.ts';
import { finishTurn, untrustedBefore } from './finish-turn.ts';
import { runModelTurn } from './model-turn.ts';
import { checkGuard, checkToolBudget } from './run-guard.ts';
import type { RunEnvironment } from '../state/run-options.ts';
import { runSideCall } from './side-call.ts';
import { askApproval } from './ask-approval.ts';
import type {
  Checkpoint,
  GateFn,
  GuardTrip,
  ModelTurnResult,
  StrategyContext,
  StrategyOutcome,
  TurnOptions,
} from '../strategies/strategy.ts';
import { TODO_REMINDER, runTodoTool } from './todo-tools.ts';
import type { ToolCatalog } from '../call/tool-catalog.ts';
import type { PassTrace } from '../call/tracing.ts';
import { transition, type AppendFn } from '../log/transition.ts';

/** The run a pass works on, as its owner holds it (the engine's PassInput, without what only drivePass uses). */
export interface PassRun {
  run: Run;
  settings: RunSettings;
  state: ConversationState;
  /** Appends as the run's owner (fenced by its lease); the state follows before it resolves. */
  append: AppendFn;
  /** Aborts model and tool calls: a cancel request, or the lease was lost. */
  signal: AbortSignal;
  /** Shutdown: stop at the next safe point without ending the run. */
  stopSignal?: AbortSignal | undefined;
  /** The lease was lost: stop without writing anything more. */
  lost: () => boolean;
  /**
   * Whether what is held back is committed while the model is asked
   * (decision 0019), asked before each model call; default yes.
   */
  commitAlongside?: () => boolean;
}

export interface StrategyContextInput {
  pass: PassRun;
  environment: RunEnvironment;
  catalog: ToolCatalog;
  /** System prompt and (trimmed) thread history. */
  prefix: readonly Message[];
  /** Model calls so far, history included (ModelRequest.callIndex). */
  callIndex: () => number;
  deltas: DeltaBuffer;
  /** The todo tools are offered. */
  todo: boolean;
  /** The pass's span: tool calls get theirs under it. */
  trace: PassTrace;
}

/**
 * What a strategy gets for one pass: the gate (executeToolCall with the run's
 * context), model turns and side calls, the plan helpers, and the guard's
 * checkpoint. Everything it records goes through the pass's fenced append.
 */
export function createStrategyContext(args: StrategyContextInput): StrategyContext {
  const { pass: input, environment: env, catalog, prefix, callIndex, deltas, todo, trace } = args;
  const { run, state, settings, append } = input;
  const { model, tools } = env;
  const validator = env.validator ?? sharedValidator();
  const redact = createRedactor(env.redact);
  const callContext: Omit<ToolCallContext, 'step'> = {
    runId: run.id,
    append: withStepSignal(state, append),
    tools,
    catalog,
    policy: env.policy,
    validator,
    redact,
    dryRun: run.dryRun === true,
    tenantId: run.tenantId,
    userId: run.userId,
    roles: settings.roles,
    context: run.context,
    hooks: env.hooks,
    signal: input.signal,
    toolTimeoutMs: env.toolTimeoutMs,
    maxToolLatencyMs: settings.guard?.maxToolLatencyMs,
    builtin: todo ? (request) => runTodoTool(request, state, append) : undefined,
    trace,
  };
  const gate: GateFn = (call, options) =>
    executeToolCall(
      { ...callContext, step: options.step, untrusted: untrustedBefore(state, options.step) },
      call,
      options.approval,
    );
  const mode = (): 'native' | 'prompted' =>
    state.toolMode ?? (settings.toolMode === 'prompted' ? 'prompted' : 'native');
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
      formats: env.formats,
      signal: input.signal,
      deltas,
      append,
      callIndex,
      commitAlongside: input.commitAlongside,
      ...(options.tools === false ? { offerTools: false } : {}),
      ...(options.instruction === undefined ? {} : { instruction: options.instruction }),
    });
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
      instruction:
        `${trip.message}. No more tools can be used in this run. ` +
        'Answer the request now from what you already know, and say what is missing.',
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
      await recordUnsent({ ...callContext, step: turn.step }, call, { code, message });
    }
  };
  const ctx: StrategyContext = {
    runId: run.id,
    input: run.input,
    state,
    settings,
    dryRun: run.dryRun === true,
    toolDefinitions: catalog.definitions,
    writeTools: new Set(
      [...catalog.visible.values()].filter((e) => e.policy.effect === 'write').map((e) => e.tool.name),
    ),
    get mode() {
      return mode();
    },
    prefix,
    routerEvidence: env.routerEvidence,
    liveEvidence: env.liveEvidence,
    gate,
    modelTurn,
    sideCall: (request) =>
      runSideCall(
        {
          model,
          state,
          catalog,
          append,
          signal: input.signal,
          callIndex,
          mode: mode(),
          commitAlongside: input.commitAlongside,
          formats: env.formats,
        },
        request,
      ),
    finishTurn: async (options) => {
      const turn = state.turn;
      if (turn === undefined) return { kind: 'continue' };
      const pending = turn.calls.filter(
        (c) =>
          !turn.results.has(c.id) &&
          !turn.started.has(c.id) &&
          (options?.only === undefined || options.only.includes(c.id)),
      );
      // Calls a person rejected or marked done are not sent; the others may be.
      const sendable = pending.filter((c) => {
        const decision = state.decisions.get(c.id)?.decision;
        return decision !== 'reject' && decision !== 'mark_done';
      });
      const trip = checkToolBudget(state, settings, sendable.length);
      if (trip !== undefined) return { kind: 'direct', output: outputOf(await breach(trip)) };
      const outcome = await finishTurn(
        { state, append, gate, catalog, validator, redact, injection: injectionContext(callContext) },
        options,
      );
      // A round closed without todo_write for remindAfter rounds: the reminder goes first in the results
      // the model gets next.
      const remindAfter = settings.todo?.remindAfter ?? 0;
      if (todo && remindAfter > 0 && state.turn === undefined && state.roundsSinceTodo >= remindAfter) {
        await append([
          draft('reminder_injected', { step: state.step, rounds: state.roundsSinceTodo, text: TODO_REMINDER }),
        ]);
      }
      return outcome;
    },
    preview: (call, step) => {
      // The plan's turn takes its step as checked here from the handover, not from its recorded text.
      const parsed = 'arguments' in call ? parseToolCall(call) : call;
      state.handover.set(call.id, parsed);
      return previewToolCall({ ...callContext, step, untrusted: untrustedBefore(state, step) }, parsed);
    },
    skip,
    record: async (drafts, status) => {
      if (status === undefined || status.to === state.status) {
        if (drafts.length > 0) await append(drafts, status?.patch);
        return;
      }
      await transition(append, state, {
        to: status.to,
        events: drafts,
        ...(status.reason === undefined ? {} : { reason: status.reason }),
        ...(status.patch === undefined ? {} : { patch: status.patch }),
      });
    },
    askPlanApproval: (plan) =>
      askApproval(
        { state, append },
        {
          step: plan.step,
          toolCallId: plan.planId,
          name: 'plan',
          arguments: plan.arguments,
          effect: 'write',
          reason: 'policy',
          kind: 'plan',
        },
        'the plan needs approval',
      ),
    checkpoint: async (): Promise<Checkpoint> => {
      if (!checkpoint(input)) return { kind: 'pause' };
      // The last tool turn's signals, committed with the next append (the guard reads them at once).
      const due = state.signalDue;
      if (due !== undefined) await append([draft('step_signal', due)], undefined, { defer: true });
      const trip = checkGuard(state, settings);
      if (trip === undefined) return { kind: 'go' };
      if (trip.action === 'warn' || trip.action === 'reflect' || trip.action === 'replan') {
        // `replan`: the trip sets the state's pending re-plan, which the strategy's loop acts on next.
        await append([draft('guard_tripped', guardData(trip))]);
        return trip.action === 'reflect' ? { kind: 'reflect', trip } : { kind: 'go' };
      }
      return { kind: 'end', outcome: await breach(trip) };
    },
    breach,
  };
  return ctx;
}

/** The safe point between steps (see StrategyContext.checkpoint). */
function checkpoint(input: PassRun): boolean {
  const { state, settings } = input;
  if (input.lost()) return false;
  if (input.signal.aborted || state.cancelRequested !== undefined)
    throw new ToolgateError('cancelled', state.cancelRequested ?? 'the run was cancelled');
  // Shutting down: the run stays `running` and is resumed from its log.
  if (input.stopSignal?.aborted === true) return false;
  if (state.unusableTurns > settings.parseRetries) {
    throw new ToolgateError(
      'unparseable_tool_call',
      `the model's tool-call arguments could not be read in ${state.unusableTurns} turns in a row ` +
        `(parseRetries: ${settings.parseRetries}); the model was told what was wrong each time. ` +
        'A model that supports native tool calls better, or toolMode: prompted, may help',
    );
  }
  return true;
}

/**
 * The tool calls' appends: the result that closes a turn carries the turn's step_signal, in the same append (no
 * commit of its own). A turn closed otherwise (results appended side by side) has it recorded at the next safe point.
 */
function withStepSignal(state: ConversationState, append: AppendFn): AppendFn {
  return (drafts, patch, options) => {
    const last = drafts.at(-1);
    const signal = last?.type === 'tool_result' ? signalIfClosing(state, last.data) : undefined;
    return append(signal === undefined ? drafts : [...drafts, draft('step_signal', signal)], patch, options);
  };
}

function guardData(trip: GuardTrip): RunEventDataMap['guard_tripped'] {
  return {
    code: trip.code,
    action: trip.action,
    limit: trip.limit,
    value: trip.value,
    message: trip.message,
    ...(trip.tool === undefined ? {} : { tool: trip.tool }),
  };
}

function outputOf(outcome: StrategyOutcome): string {
  return outcome.kind === 'completed' ? outcome.output : '';
}
