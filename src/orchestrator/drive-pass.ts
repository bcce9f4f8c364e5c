import {
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  draft,
  toErrorInfo,
  type Message,
  type Run,
  type RunSettings,
  type RunStore,
  type ToolListing,
  type ToolSource,
} from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';
import { sharedValidator } from '../validation/index.ts';
import type { ConversationState } from './conversation-state.ts';
import { DeltaBuffer } from './delta-buffer.ts';
import { executeToolCall, injectionContext, type ToolCallContext } from './execute-tool-call.ts';
import { finishTurn, untrustedBefore } from './finish-turn.ts';
import { runModelTurn } from './model-turn.ts';
import type { RunEnvironment } from './run-options.ts';
import { strategyFor, type GateFn, type StrategyContext } from './strategies/index.ts';
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
  const deltas = new DeltaBuffer({ append });
  let env: RunEnvironment | undefined;
  try {
    const environment = await input.environment();
    env = environment;
    const { model, tools } = environment;
    const listing = await listTools(tools, input.signal);
    const catalog = buildToolCatalog(listing.tools, {
      ...(env.policy === undefined ? {} : { policy: env.policy }),
      tenantId: run.tenantId,
    });
    const history = env.history ?? (run.threadId === undefined ? [] : ((await input.store.getThread(run.threadId, run.tenantId))?.messages ?? []));
    const prefix: Message[] = [...(env.systemPrompt === undefined ? [] : [{ role: 'system' as const, content: env.systemPrompt }]), ...history];
    if (!state.started) {
      await transition(append, state, 'running', [
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
        draft('user_message', { text: run.input }),
      ]);
      await callHook(() => environment.hooks?.onRunStart?.(run));
    } else if (state.status !== 'running') {
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
    };
    const gate: GateFn = (call, options) =>
      executeToolCall({ ...callContext, step: options.step, truncated: options.truncated === true, untrusted: untrustedBefore(state, options.step) }, call, options.approval);
    const ctx: StrategyContext = {
      runId: run.id,
      state,
      settings,
      gate,
      finishTurn: () => finishTurn({ state, append, gate, catalog, validator, redact, injection: injectionContext(run) }),
      modelTurn: async () => {
        const turn = await runModelTurn({
          model,
          state,
          catalog,
          prefix,
          mode: state.toolMode ?? (settings.toolMode === 'prompted' ? 'prompted' : 'native'),
          allowFallback: settings.toolMode === 'auto',
          constrain: settings.constrain,
          stream: settings.stream,
          parseRetries: settings.parseRetries,
          textToolCalls: settings.textToolCalls,
          signal: input.signal,
          deltas,
          append,
        });
        if (state.turn !== undefined) state.turn.truncated = turn.truncated;
        return turn;
      },
      checkpoint: () => checkpoint(input),
    };
    const outcome = await strategyFor(settings.strategy).run(ctx);
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
  if (state.step >= settings.maxSteps) {
    throw new ToolgateError(
      'max_steps',
      `the run reached maxSteps (${settings.maxSteps}) without a final answer; the model kept calling tools. Raise maxSteps (per run, or --max-steps / config maxSteps) if the task needs more steps, or check the tools' answers for a loop`,
    );
  }
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
      await input.store.appendThreadMessages(
        run.threadId,
        [
          { role: 'user', content: run.input },
          { role: 'assistant', content: output },
        ],
        run.tenantId,
      );
    } catch (error) {
      process.emitWarning(`run ${run.id}: thread ${run.threadId} not extended: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  await runEndHook(input, env);
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
