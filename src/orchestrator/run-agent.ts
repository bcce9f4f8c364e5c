import {
  ToolgateError,
  ZERO_USAGE,
  addUsage,
  draft,
  renderToolResult,
  toErrorInfo,
  type EventDraft,
  type Message,
  type ModelAdapter,
  type ModelResponse,
  type Run,
  type RunPatch,
  type RunStatus,
  type RunStore,
  type ToolSource,
  type ToolSpec,
  type Usage,
} from '../core/index.ts';
import { DeltaBuffer } from './delta-buffer.ts';
import { executeToolCall } from './execute-tool-call.ts';

export const DEFAULT_MAX_STEPS = 20;

export interface RunAgentOptions {
  runId: string;
  store: RunStore;
  model: ModelAdapter;
  tools: ToolSource;
  maxSteps?: number;
  /** Stream model output (assistant_delta events). Default true. */
  stream?: boolean;
  signal?: AbortSignal;
  systemPrompt?: string;
  /** Earlier messages of the conversation (a thread). */
  history?: readonly Message[];
  toolTimeoutMs?: number;
}

interface LoopState {
  status: RunStatus;
  usage: Usage;
  steps: number;
}

/**
 * Runs the model ⇄ tools loop for a run the store already holds, appending
 * every step as events, until a final answer, a failure, maxSteps or
 * cancellation. Never throws for model, tool or input trouble: the run ends
 * `failed` with the reason. Returns the run as stored at the end.
 */
export async function runAgent(options: RunAgentOptions): Promise<Run> {
  const { store, runId } = options;
  const run = await store.getRun(runId);
  if (run === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const state: LoopState = { status: run.status, usage: { ...ZERO_USAGE }, steps: 0 };
  const deltas = new DeltaBuffer({ store, runId });

  try {
    const catalog = await listCatalog(options.tools, options.signal);
    await transition(store, runId, state, 'running', [
      draft('run_started', {
        input: run.input,
        model: options.model.id,
        tools: [...catalog.keys()],
        maxSteps,
        ...(run.threadId === undefined ? {} : { threadId: run.threadId }),
      }),
      draft('user_message', { text: run.input }),
    ]);
    const messages: Message[] = [
      ...(options.systemPrompt === undefined ? [] : [{ role: 'system' as const, content: options.systemPrompt }]),
      ...(options.history ?? []),
      { role: 'user', content: run.input },
    ];
    const toolDefs = [...catalog.values()].map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));

    for (;;) {
      if (state.steps >= maxSteps) {
        throw new ToolgateError(
          'max_steps',
          `the run reached maxSteps (${maxSteps}) without a final answer; the model kept calling tools. Raise --max-steps (config maxSteps) if the task needs more steps, or check the tools' answers for a loop`,
        );
      }
      const step = state.steps + 1;
      const started = performance.now();
      const response: ModelResponse = await options.model.generate(
        { messages, tools: toolDefs, stream: options.stream ?? true },
        {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          onTextDelta: (text) => deltas.push(step, text),
        },
      );
      await deltas.flush();
      state.steps = step;
      state.usage = addUsage(state.usage, response.usage);
      await store.append(
        runId,
        [
          draft('assistant_message', {
            step,
            text: response.text,
            toolCalls: response.toolCalls,
            finishReason: response.finishReason,
            latencyMs: Math.round(performance.now() - started),
            ...(response.usage === undefined ? {} : { usage: response.usage }),
          }),
        ],
        { steps: state.steps, usage: state.usage },
      );
      messages.push({ role: 'assistant', content: response.text, ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}) });

      if (response.toolCalls.length === 0) {
        await transition(store, runId, state, 'completed', [draft('run_completed', { output: response.text, usage: state.usage, steps: state.steps })], {
          output: response.text,
        });
        return await finalRun(store, runId);
      }

      const ctx = {
        runId,
        step,
        store,
        tools: options.tools,
        catalog,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: options.toolTimeoutMs }),
      };
      // Parallel calls of one turn run concurrently; results go back in call order.
      const results = await Promise.all(response.toolCalls.map((call) => executeToolCall(ctx, call)));
      response.toolCalls.forEach((call, i) => {
        const result = results[i];
        if (result !== undefined) messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: renderToolResult(result) });
      });
      if (options.signal?.aborted === true) throw new ToolgateError('cancelled', 'the run was cancelled');
    }
  } catch (error) {
    await deltas.flush().catch(() => undefined);
    const info = options.signal?.aborted === true ? { code: 'cancelled' as const, message: 'the run was cancelled' } : toErrorInfo(error);
    if (info.code === 'cancelled') {
      await transition(store, runId, state, 'cancelled', [draft('run_cancelled', { reason: info.message, usage: state.usage, steps: state.steps })]);
    } else {
      await transition(store, runId, state, 'failed', [draft('run_failed', { error: info, usage: state.usage, steps: state.steps })], { error: info });
    }
    return await finalRun(store, runId);
  }
}

async function listCatalog(tools: ToolSource, signal: AbortSignal | undefined): Promise<Map<string, ToolSpec>> {
  const list = await tools.listTools(signal === undefined ? {} : { signal });
  return new Map(list.map((t) => [t.name, t]));
}

/** Appends the status change and its companion events in one atomic step. */
async function transition(
  store: RunStore,
  runId: string,
  state: LoopState,
  to: RunStatus,
  events: EventDraft[],
  patch: RunPatch = {},
): Promise<void> {
  const from = state.status;
  const drafts: EventDraft[] = from === to ? events : [draft('run_status', { from, to }), ...events];
  await store.append(runId, drafts, { ...patch, status: to, usage: state.usage, steps: state.steps });
  state.status = to;
}

async function finalRun(store: RunStore, runId: string): Promise<Run> {
  const run = await store.getRun(runId);
  if (run === undefined) throw new ToolgateError('internal', `run ${runId} vanished from the store`);
  return run;
}
