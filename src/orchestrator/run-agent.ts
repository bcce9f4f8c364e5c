import {
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  draft,
  toErrorInfo,
  type EventDraft,
  type Message,
  type Run,
  type RunEvent,
  type RunPatch,
  type RunStore,
} from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';
import { createValidator } from '../validation/index.ts';
import { applyEvents, emptyConversation, type ConversationState } from './conversation-state.ts';
import { DeltaBuffer } from './delta-buffer.ts';
import { runModelTurn } from './model-turn.ts';
import { DEFAULT_MAX_STEPS, DEFAULT_PARSE_RETRIES, DEFAULT_TEXT_TOOL_CALLS, type RunAgentOptions } from './run-options.ts';
import { buildToolCatalog } from './tool-catalog.ts';
import { finishTurn } from './finish-turn.ts';
import { transition, type AppendFn } from './transition.ts';

export { DEFAULT_MAX_STEPS, type RunAgentOptions } from './run-options.ts';

const READ_PAGE = 1000;

/**
 * Drives a run from wherever its event log says it is — a new run, a run
 * resumed after an approval, or one recovered after a crash — until it
 * completes, fails, is cancelled or waits for a person. Never throws for
 * model, tool or input trouble: the run ends `failed` with the reason.
 * Returns the run as stored at the end.
 */
export async function runAgent(options: RunAgentOptions): Promise<Run> {
  const { store, runId } = options;
  const run = await store.getRun(runId);
  if (run === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
  // Follow the log, not only our own appends: input from clients (messages,
  // decisions) joins the conversation in log order. Subscribe before reading
  // so nothing falls between history and live.
  const state = emptyConversation();
  const early: RunEvent[] = [];
  let live = false;
  const unsubscribe = store.subscribe(runId, (events) => {
    if (live) applyEvents(state, events);
    else early.push(...events);
  });
  try {
    applyEvents(state, await readAll(store, runId));
    applyEvents(state, early);
    live = true;
    return await drive(options, run, state);
  } finally {
    unsubscribe();
  }
}

async function drive(options: RunAgentOptions, run: Run, state: ConversationState): Promise<Run> {
  const { store, runId } = options;
  if (state.terminal) return run;
  // Still waiting for a decision: nothing to do until input arrives.
  if (state.status === 'waiting_approval' && (run.pendingApproval === undefined || !state.decisions.has(run.pendingApproval.toolCallId))) return run;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const append = (drafts: EventDraft[], patch?: RunPatch): Promise<RunEvent[]> => store.append(runId, drafts, patch);
  const deltas = new DeltaBuffer({ store, runId });

  try {
    const catalog = buildToolCatalog(await options.tools.listTools(options.signal === undefined ? {} : { signal: options.signal }), {
      ...(options.policy === undefined ? {} : { policy: options.policy }),
      tenantId: run.tenantId,
    });
    const requestedMode = options.toolMode ?? 'native';
    const history = options.history ?? (run.threadId === undefined ? [] : ((await store.getThread(run.threadId, run.tenantId))?.messages ?? []));
    const prefix: Message[] = [...(options.systemPrompt === undefined ? [] : [{ role: 'system' as const, content: options.systemPrompt }]), ...history];
    if (!state.started) {
      await transition(append, state, 'running', [
        draft('run_started', {
          input: run.input,
          model: options.model.id,
          tools: [...catalog.visible.keys()],
          maxSteps,
          toolMode: requestedMode,
          ...(run.dryRun === true ? { dryRun: true } : {}),
          ...(run.threadId === undefined ? {} : { threadId: run.threadId }),
        }),
        draft('user_message', { text: run.input }),
      ]);
      await callHook(() => options.hooks?.onRunStart?.(run));
    } else if (state.status !== 'running') {
      await transition(append, state, 'running', [], { patch: { pendingApproval: null } });
    }
    const turnContext = {
      runId,
      append,
      tools: options.tools,
      catalog,
      policy: options.policy,
      validator: options.validator ?? createValidator(),
      redact: createRedactor(options.redact),
      dryRun: run.dryRun === true,
      tenantId: run.tenantId,
      userId: run.userId,
      context: run.context,
      hooks: options.hooks,
      signal: options.signal,
      toolTimeoutMs: options.toolTimeoutMs,
    };

    for (;;) {
      if (state.turn !== undefined) {
        const outcome = await finishTurn({ ctx: turnContext, state, append });
        if (outcome.kind === 'waiting') return await finalRun(store, runId);
        if (outcome.kind === 'direct') return await complete(options, append, state, run, outcome.output);
      }
      if (options.signal?.aborted === true) throw new ToolgateError('cancelled', 'the run was cancelled');
      // Shutting down: stop at this safe point; the run stays `running` and is resumed from its log.
      if (options.stopSignal?.aborted === true) return await finalRun(store, runId);
      if (state.step >= maxSteps) {
        throw new ToolgateError(
          'max_steps',
          `the run reached maxSteps (${maxSteps}) without a final answer; the model kept calling tools. Raise --max-steps (config maxSteps) if the task needs more steps, or check the tools' answers for a loop`,
        );
      }
      const turn = await runModelTurn({
        model: options.model,
        state,
        catalog,
        prefix,
        mode: state.toolMode ?? (requestedMode === 'prompted' ? 'prompted' : 'native'),
        allowFallback: requestedMode === 'auto',
        constrain: options.constrain === true,
        stream: options.stream ?? true,
        parseRetries: options.parseRetries ?? DEFAULT_PARSE_RETRIES,
        textToolCalls: options.textToolCalls ?? DEFAULT_TEXT_TOOL_CALLS,
        signal: options.signal,
        deltas,
        append,
      });
      if (turn.calls.length === 0) return await complete(options, append, state, run, turn.content);
      if (state.turn !== undefined) state.turn.truncated = turn.truncated;
    }
  } catch (error) {
    await deltas.flush().catch(() => undefined);
    const info = options.signal?.aborted === true ? { code: 'cancelled' as const, message: 'the run was cancelled' } : toErrorInfo(error);
    try {
      if (info.code === 'cancelled') {
        await transition(append, state, 'cancelled', [draft('run_cancelled', { reason: info.message, usage: state.usage, steps: state.step })]);
      } else {
        await transition(append, state, 'failed', [draft('run_failed', { error: info, usage: state.usage, steps: state.step })], { patch: { error: info } });
      }
    } catch (ending) {
      // The run has ended already (cancelled elsewhere, or completed just before the error): the store keeps that end.
      const current = await store.getRun(runId);
      if (current === undefined || !TERMINAL_RUN_STATUSES.has(current.status)) throw ending;
      return current;
    }
    const final = await finalRun(store, runId);
    await callHook(() => options.hooks?.onRunEnd?.(final));
    return final;
  }
}

async function complete(options: RunAgentOptions, append: AppendFn, state: ConversationState, run: Run, output: string): Promise<Run> {
  await transition(append, state, 'completed', [draft('run_completed', { output, usage: state.usage, steps: state.step })], { patch: { output } });
  if (run.threadId !== undefined) {
    // The run is complete whatever happens here: a thread that cannot be
    // extended (a store error) leaves the run as it is.
    try {
      await options.store.appendThreadMessages(
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
  const final = await finalRun(options.store, run.id);
  await callHook(() => options.hooks?.onRunEnd?.(final));
  return final;
}

async function readAll(store: RunStore, runId: string): Promise<RunEvent[]> {
  const all: RunEvent[] = [];
  for (;;) {
    const page = await store.readEvents(runId, { after: all.length, limit: READ_PAGE });
    all.push(...page);
    if (page.length < READ_PAGE) return all;
  }
}

async function finalRun(store: RunStore, runId: string): Promise<Run> {
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

