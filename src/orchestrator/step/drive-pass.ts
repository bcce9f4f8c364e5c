import {
  ACTIVE_RUN_STATUSES,
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  describeError,
  draft,
  toErrorInfo,
  type EventDraft,
  type Message,
  type Run,
  type RunStore,
  type TodoItem,
  type ToolListing,
  type ToolSource,
} from '../../core/index.ts';
import { HOLD_BACK } from '../call/call-events.ts';
import type { ConversationState } from '../state/run-state.ts';
import { DeltaBuffer } from './delta-buffer.ts';
import type { RunEnvironment } from '../state/run-options.ts';
import { strategyFor } from '../strategies/index.ts';
import { createStrategyContext, type PassRun } from './strategy-context.ts';
import { withTodos } from './todo-tools.ts';
import { startPassSpan, tracedModel, type PassTrace } from '../call/tracing.ts';
import { trimHistory } from './trim-history.ts';
import { buildToolCatalog, withClientTools } from '../call/tool-catalog.ts';
import { transition } from '../log/transition.ts';

export interface PassInput extends PassRun {
  store: RunStore;
  /** Resolved inside the pass: a model that cannot be created any more fails the run, with the reason. */
  environment: () => Promise<RunEnvironment>;
}

/** How a pass left the run. */
export type PassEnd = 'ended' | 'waiting' | 'paused' | 'lost';

/**
 * One pass over a run by its owner: from wherever the log says it is, through
 * the run's strategy, until it ends, waits for a person, or must pause.
 * Model, tool and input trouble end the run `failed` with the reason; only a
 * store failure (or a lost lease) is left for the caller: a store that is
 * unavailable (`store_unavailable`) is thrown without ending the run.
 */
export async function drivePass(input: PassInput): Promise<PassEnd> {
  const { run, state } = input;
  if (state.terminal) return 'ended';
  // Still waiting for a decision: nothing to do until input arrives.
  if (
    state.status === 'waiting_approval' &&
    (run.pendingApproval === undefined || !state.decisions.has(run.pendingApproval.toolCallId))
  )
    return 'waiting';
  // Escalated: waits for a person's message (which moves it back to running) or a cancel.
  if (state.status === 'escalated') return 'waiting';
  const passTrace = startPassSpan(run);
  let end: PassEnd = 'lost';
  try {
    end = await tracedPass(input, passTrace);
    return end;
  } finally {
    const error =
      end === 'ended' && state.status === 'failed'
        ? (await input.store.getRun(run.id).catch(() => undefined))?.error
        : undefined;
    passTrace.end({ status: end === 'ended' ? state.status : end, error });
  }
}

async function tracedPass(input: PassInput, passTrace: PassTrace): Promise<PassEnd> {
  const { run, state, settings, append } = input;
  const deltas = new DeltaBuffer({ append });
  let env: RunEnvironment | undefined;
  try {
    const given = await input.environment();
    // Every model call of the pass is a `chat` span under the pass's span.
    const environment: RunEnvironment = { ...given, model: tracedModel(given.model, passTrace) };
    env = environment;
    const { model } = environment;
    const todo = settings.todo?.enabled === true;
    const tools = environment.tools;
    const listed = await listTools(tools, input.signal);
    const listing = todo ? { ...listed, tools: withTodos(listed.tools) } : listed;
    const catalog = withClientTools(
      buildToolCatalog(listing.tools, {
        ...(env.policy === undefined ? {} : { policy: env.policy }),
        tenantId: run.tenantId,
        roles: settings.roles,
      }),
      settings.clientTools ?? [],
    );
    const fullHistory =
      env.history ??
      settings.history ??
      (run.threadId === undefined ? [] : ((await input.store.getThread(run.threadId, run.tenantId))?.messages ?? []));
    const trimmed =
      settings.historyMaxTokens === undefined
        ? { messages: [...fullHistory] }
        : trimHistory(fullHistory, settings.historyMaxTokens);
    const history = trimmed.messages;
    const prefix: Message[] = [
      ...(env.systemPrompt === undefined ? [] : [{ role: 'system' as const, content: env.systemPrompt }]),
      ...history,
    ];
    const historyCalls = history.filter((m) => m.role === 'assistant').length;
    const callIndex = (): number => historyCalls + state.modelCalls;
    const strategy = strategyFor(settings.strategy);
    if (!state.started) {
      const carried = todo ? await threadTodos(input.store, run) : undefined;
      await transition(append, state, {
        to: strategy.startStatus ?? 'running',
        events: [
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
        ],
        // Held back and committed while the model is asked the first time (decision 0019), or on its own
        // if the strategy does anything else first for READ_COMMIT_DELAY_MS.
        append: HOLD_BACK,
      });
      const onRunStart = environment.hooks?.onRunStart;
      if (onRunStart !== undefined) {
        // The hook is told of a run whose start is in the store.
        await append([]);
        await callHook(() => onRunStart(run));
      }
    } else if (!ACTIVE_RUN_STATUSES.has(state.status)) {
      await transition(append, state, { to: 'running', patch: { pendingApproval: null } });
    }
    const ctx = createStrategyContext({
      pass: input,
      environment,
      catalog,
      prefix,
      callIndex,
      deltas,
      todo,
      trace: passTrace,
    });
    const outcome = await strategy.run(ctx);
    if (outcome.kind === 'completed') {
      await complete(input, env, { output: outcome.output });
      return 'ended';
    }
    if (outcome.kind === 'handed_back') {
      const handed = draft('client_tool_calls', { step: outcome.step, calls: outcome.calls });
      await complete(input, env, { output: outcome.output, before: [handed] });
      return 'ended';
    }
    return outcome.kind;
  } catch (error) {
    await deltas.flush().catch(() => undefined);
    return fail(input, error, env);
  }
}

async function fail(input: PassInput, error: unknown, env: RunEnvironment | undefined): Promise<PassEnd> {
  const { state, append } = input;
  if (leaseLost(input, error)) return 'lost';
  // The database is gone for the moment: the run has not failed, its pass stopped. It is driven again from
  // its log once the store answers (RunManager retries it with backoff, decision 0023).
  if (error instanceof ToolgateError && error.code === 'store_unavailable') throw error;
  const cancelled =
    input.signal.aborted ||
    state.cancelRequested !== undefined ||
    (error instanceof ToolgateError && error.code === 'cancelled');
  const info = cancelled
    ? { code: 'cancelled' as const, message: state.cancelRequested ?? 'the run was cancelled' }
    : toErrorInfo(error);
  try {
    if (info.code === 'cancelled') {
      await transition(append, state, {
        to: 'cancelled',
        events: [draft('run_cancelled', { reason: info.message, usage: state.usage, steps: state.step })],
        patch: { pendingApproval: null },
      });
    } else {
      await transition(append, state, {
        to: 'failed',
        events: [draft('run_failed', { error: info, usage: state.usage, steps: state.step })],
        patch: { error: info, pendingApproval: null },
      });
    }
  } catch (ending) {
    if (leaseLost(input, ending)) return 'lost';
    // The run has ended already (cancelled elsewhere, or completed just before the error): the store keeps that end.
    const current = await input.store.getRun(input.run.id);
    if (current === undefined || !TERMINAL_RUN_STATUSES.has(current.status)) throw ending;
    return 'ended';
  }
  await runEndHook(input, env);
  return 'ended';
}

/** The pass no longer owns the run: it must stop without writing anything more. */
function leaseLost(input: PassInput, error: unknown): boolean {
  return input.lost() || (error instanceof ToolgateError && error.code === 'lease_lost');
}

async function complete(
  input: PassInput,
  env: RunEnvironment,
  end: { output: string; before?: EventDraft[] },
): Promise<void> {
  const { run, state, append } = input;
  const { output } = end;
  await transition(append, state, {
    to: 'completed',
    events: [...(end.before ?? []), draft('run_completed', { output, usage: state.usage, steps: state.step })],
    patch: { output },
  });
  if (run.threadId !== undefined) {
    // The run is complete whatever happens here: a thread that cannot be
    // extended (a store error) leaves the run as it is.
    try {
      await input.store.appendThreadMessages(run.threadId, threadMessages(state, output), run.tenantId);
    } catch (error) {
      process.emitWarning(`run ${run.id}: thread ${run.threadId} not extended: ${describeError(error)}`);
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
  if (run.threadId === undefined) return undefined;
  const page = await store.listRuns({
    threadId: run.threadId,
    ...(run.tenantId === undefined ? {} : { tenantId: run.tenantId }),
    limit: 20,
  });
  const earlier = page.runs
    .filter((r) => r.id !== run.id && r.createdAt <= run.createdAt)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  for (const previous of earlier) {
    const events = await store.readEvents(previous.id);
    const last = events.findLast((e) => e.type === 'todo_updated');
    if (last !== undefined && last.type === 'todo_updated') return last.data.todos;
  }
  return undefined;
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
    process.emitWarning(`run hook failed: ${describeError(error)}`);
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
  // Nothing listed and something missing: listTools rejects when no source at all is up, failing the run
  // with every cause.
  if (listing.tools.length === 0 && listing.unavailable.length > 0) await tools.listTools(options);
  return listing;
}
