import {
  ToolgateError,
  addUsage,
  draft,
  type Message,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type RunEventDataMap,
} from '../../core/index.ts';
import {
  CALL_FAILURE_CODES,
  createStreamFilter,
  extractMessageDetailed,
  formatParseFeedback,
  turnCalls,
  withoutReasoning,
  type ParseDiagnostic,
  type TurnCall,
} from '../../parsing/index.ts';
import type { CallFormat } from '../../parsing/formats/call-format.ts';
import { askWhileCommitting } from './ask-while-committing.ts';
import type { ConversationState } from '../state/run-state.ts';
import type { DeltaBuffer } from './delta-buffer.ts';
import { buildModelRequest } from './model-request.ts';
import type { ModelTurnResult } from '../strategies/strategy.ts';
import type { ToolCatalog } from '../call/tool-catalog.ts';
import type { AppendFn } from '../log/transition.ts';
import type { TextToolCalls } from '../state/run-options.ts';
import {
  DEFAULT_TEXT_CALLS_BEFORE_PROMPTED,
  namesOfTextCalls,
  textCallDiagnostic,
  textCallFeedback,
} from './text-call-retry.ts';

export interface ModelTurnInput {
  model: ModelAdapter;
  state: ConversationState;
  catalog: ToolCatalog;
  /** Messages before the run's own: system prompt and thread history. */
  prefix: readonly Message[];
  mode: 'native' | 'prompted';
  /** `auto` mode: fall back to prompted when the endpoint rejects tools. */
  allowFallback: boolean;
  constrain: boolean;
  stream: boolean;
  parseRetries: number;
  /** Native mode: whether calls written in the answer text are executed (see TextToolCalls). */
  textToolCalls: TextToolCalls;
  /** Call formats read besides the built-in lexicon (config `parsing.formats`, the model's chat template). */
  formats?: readonly CallFormat[] | undefined;
  signal?: AbortSignal | undefined;
  deltas: DeltaBuffer;
  append: AppendFn;
  /** false: no tools are offered (an answer from what is known). Default true. */
  offerTools?: boolean;
  /** A last user message for this request only (not part of the conversation). */
  instruction?: string | undefined;
  /** Model calls before the next one (see ModelRequest.callIndex), read when the request is made. */
  callIndex: () => number;
  /** Whether what is held back is committed while the model is asked (see PassInput.commitAlongside); default yes. */
  commitAlongside?: (() => boolean) | undefined;
}

/**
 * One model step: ask the model, read its tool calls (native ones, or calls
 * written in the text), and when the calls cannot be used — unparseable, an
 * unknown tool, cut off — tell the model exactly what was wrong and ask
 * again, up to `parseRetries` times; then fail with `unparseable_tool_call`.
 * Each attempt is recorded (assistant_message, parse_retry).
 */
export async function runModelTurn(input: ModelTurnInput): Promise<ModelTurnResult & { mode: 'native' | 'prompted' }> {
  const step = input.state.step + 1;
  let mode = input.mode;
  const offer = input.offerTools !== false;
  const refs = offer ? input.catalog.refs : [];
  // The configured and template formats are read, and their markers held back from the stream,
  // as the built-in ones are.
  const formats = input.formats === undefined || input.formats.length === 0 ? {} : { formats: input.formats };
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    let response: ModelResponse;
    // With textToolCalls: never, text is only text: nothing is held back from the stream.
    const readText = mode === 'prompted' || input.textToolCalls !== 'never';
    // Made on the first streamed text: a turn that does not stream has none.
    let filter: ReturnType<typeof createStreamFilter> | undefined;
    let shown = '';
    try {
      // Anything held back (the step before) is committed while the model is asked: before its answer is used.
      response = await askWhileCommitting(
        input.append,
        () =>
          input.model.generate(requestOf(input, mode), {
            ...(input.signal === undefined ? {} : { signal: input.signal }),
            onTextDelta: (text) => {
              const visible = readText ? (filter ??= createStreamFilter(formats)).push(text) : text;
              shown += visible;
              input.deltas.push(step, visible);
            },
          }),
        input.commitAlongside?.() ?? true,
      );
    } catch (error) {
      if (
        mode === 'native' &&
        input.allowFallback &&
        error instanceof ToolgateError &&
        error.code === 'tools_unsupported'
      ) {
        const reason =
          'the endpoint refused tool definitions (toolMode: auto): ' + 'tools are described in the prompt from now on';
        await input.append([
          draft('tool_mode_changed', {
            step,
            from: 'native',
            to: 'prompted',
            cause: 'tools_unsupported',
            reason,
            model: input.model.id,
          }),
        ]);
        mode = 'prompted';
        attempt--;
        continue;
      }
      throw error;
    }
    const truncated = response.finishReason === 'length';
    // Text and reasoning are read for calls unless text is only text (textToolCalls: never).
    const useText = readText && refs.length > 0;
    const extraction = extractMessageDetailed({
      ...(useText ? { text: response.text } : {}),
      ...(useText && response.reasoning !== undefined ? { reasoning: response.reasoning } : {}),
      toolCalls: response.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
      finishReason: response.finishReason,
      tools: refs,
      ...formats,
    });
    const result = extraction.result;
    const diagnostics: { code: string; message: string; repairs?: string[] }[] = result.diagnostics.map((d) => ({
      code: d.code,
      message: d.message,
      ...(d.repairs === undefined || d.repairs.length === 0 ? {} : { repairs: [...d.repairs] }),
    }));
    let content = response.text;
    let failures: ParseDiagnostic[] = [];
    // Every call gets an id of toolgate's own: models repeat ids (within a turn and
    // across turns), and decisions, approvals and results must name one call only.
    let calls: TurnCall[] = [];
    /** Native mode: the declared tools a call written as text (after prose) named; it is never run from here. */
    let textCall: string[] | undefined;
    if (response.toolCalls.length > 0) {
      // Native calls, their arguments repaired and typed; one that cannot be read goes on
      // as it came, and the gate answers it (invalid arguments, unknown tool) as a tool result.
      calls = turnCalls(extraction, { calls: response.toolCalls, truncated });
      if (extraction.removed.length > 0) content = result.content;
    } else {
      failures = result.diagnostics.filter((d) => CALL_FAILURE_CODES.includes(d.code));
      // The text minus calls, failed attempts and format tokens (a Harmony reply's final channel);
      // otherwise the text as it came.
      if (useText && (result.calls.length > 0 || failures.length > 0 || result.content !== response.text.trim()))
        content = result.content;
      // In native mode a call the model writes inside an answer is usually quoted
      // (or planted by a tool's output it repeats): `auto` runs it only when the
      // reply is nothing but the call. Either way it is not shown as answer text.
      const quoted =
        mode === 'native' &&
        input.textToolCalls === 'auto' &&
        withoutReasoning(result.content).trim() !== '' &&
        (result.calls.length > 0 || failures.length > 0);
      if (quoted) {
        diagnostics.push({
          code: 'text_call_ignored',
          message:
            'the answer text contains a tool call, but the reply is more than the call: ' +
            'it was not executed (textToolCalls: auto)',
        });
        textCall = namesOfTextCalls(
          result,
          failures,
          refs.map((r) => r.name),
        );
        failures = [];
      } else if (result.calls.length > 0) {
        calls = turnCalls(extraction, { calls: [], truncated });
      }
    }
    // A call written as text in native mode: the model is asked to make it properly, within parseRetries
    // (see text-call-retry.ts).
    const retryTextCall = textCall !== undefined && attempt <= input.parseRetries;
    // Counted from the log: this reply is the run's n-th such reply.
    const switchMode = retryTextCall && input.state.textCallsInNative + 1 >= DEFAULT_TEXT_CALLS_BEFORE_PROMPTED;
    const willRetry = (calls.length === 0 && failures.length > 0) || retryTextCall;
    // Text the stream filter held back (a possible envelope that was not one) is shown now.
    if (input.stream) {
      const rest = content.startsWith(shown) ? content.slice(shown.length) : '';
      input.deltas.push(step, rest, { last: true });
    }
    filter?.end();
    // The answer's last text goes with the answer itself (deferred with it, below).
    await input.deltas.flush({ defer: !willRetry });
    // Parsed here, once: the turn takes these calls, not their recorded strings.
    for (const { parsed } of calls) input.state.handover.set(parsed.id, parsed);
    await input.append(
      [
        draft('assistant_message', {
          ...assistantMessageData(response, { step, started, mode, attempt }),
          ...(content !== response.text ? { content } : {}),
          ...(calls.length > 0 ? { calls: calls.map((c) => c.recorded) } : {}),
          ...(diagnostics.length > 0 ? { diagnostics } : {}),
        }),
      ],
      { steps: step, usage: addUsage(input.state.usage, response.usage) },
      // The answer is committed with what follows it (the first call's decision, the run's end):
      // one transaction less per step, and nothing acts on it before then (see RunWriter).
      { defer: !willRetry },
    );
    if (!willRetry) return { calls: calls.map((c) => c.parsed), content, truncated, mode };
    if (textCall !== undefined) {
      const maxAttempts = input.parseRetries + 1;
      const feedback = textCallFeedback({ names: textCall, attempt, maxAttempts, switched: switchMode });
      const retry = draft('parse_retry', {
        step,
        attempt,
        maxAttempts,
        diagnostics: [textCallDiagnostic(textCall, switchMode)],
        feedback,
      });
      if (!switchMode) {
        await input.append([retry]);
        continue;
      }
      const reason =
        `the model wrote its tool calls as text instead of native calls ${input.state.textCallsInNative} times ` +
        'in this run (textToolCalls: auto): tools are described in the prompt from now on';
      await input.append([
        draft('tool_mode_changed', {
          step,
          from: 'native',
          to: 'prompted',
          cause: 'text_calls',
          reason,
          model: input.model.id,
        }),
        retry,
      ]);
      mode = 'prompted';
      continue;
    }
    if (attempt > input.parseRetries) {
      throw new ToolgateError(
        'unparseable_tool_call',
        `the model's tool calls could not be used after ${attempt} attempts: ` +
          failures.map((f) => f.message).join('; '),
      );
    }
    const toolNames = refs.map((r) => r.name);
    const feedback = formatParseFeedback({
      diagnostics: failures,
      text: response.text,
      tools: toolNames,
      attempt,
      maxAttempts: input.parseRetries + 1,
    });
    await input.append([
      draft('parse_retry', {
        step,
        attempt,
        maxAttempts: input.parseRetries + 1,
        diagnostics: failures.map((d) => ({ code: d.code, message: d.message })),
        feedback,
      }),
    ]);
  }
}

/** What every assistant_message records of a model response (a turn's or a strategy's side call). */
export function assistantMessageData(
  response: ModelResponse,
  turn: { step: number; started: number; mode: 'native' | 'prompted'; attempt: number },
): RunEventDataMap['assistant_message'] {
  return {
    step: turn.step,
    text: response.text,
    ...(response.reasoning === undefined ? {} : { reasoning: response.reasoning }),
    ...(response.providerData === undefined ? {} : { providerData: response.providerData }),
    toolCalls: response.toolCalls,
    finishReason: response.finishReason,
    latencyMs: Math.round(performance.now() - turn.started),
    toolMode: turn.mode,
    attempt: turn.attempt,
    ...(response.usage === undefined ? {} : { usage: response.usage }),
  };
}

function requestOf(input: ModelTurnInput, mode: 'native' | 'prompted'): ModelRequest {
  return buildModelRequest({
    messages: [...input.prefix, ...input.state.messages],
    instruction: input.instruction,
    catalog: input.catalog,
    mode,
    offerTools: input.offerTools !== false,
    constrain: input.constrain,
    stream: input.stream,
    callIndex: input.callIndex(),
  });
}
