import { ToolgateError } from '../../core/errors.ts';
import type { FinishReason, ModelResponse } from '../../core/ports/model-adapter.ts';
import { newId } from '../../core/runs.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';
import { DEFAULT_MAX_TOOL_CALLS, tooManyToolCalls } from '../shared/limits.ts';
import { argumentsText, asObject, modelResponse, previewJson, type WireReadOptions } from '../shared/wire.ts';

type Obj = Record<string, unknown>;

/**
 * Token counts from a final chat response: `prompt_eval_count` and
 * `eval_count`. Ollama omits a zero count (a fully cached prompt), so one
 * present count is enough; `undefined` when both are absent.
 */
export function parseUsage(root: Obj): Usage | undefined {
  const prompt = root['prompt_eval_count'];
  const completion = root['eval_count'];
  if (typeof prompt !== 'number' && typeof completion !== 'number') return undefined;
  const promptTokens = typeof prompt === 'number' ? prompt : 0;
  const completionTokens = typeof completion === 'number' ? completion : 0;
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

/**
 * Ollama's `done_reason` in toolgate's words. Ollama says "stop" even when the
 * answer is tool calls, so calls win over it; "length" is the token limit;
 * "load"/"unload" (a request that only loads or unloads the model) and words
 * of later versions pass through.
 */
export function finishReasonOf(doneReason: unknown, toolCallCount: number): FinishReason {
  if (typeof doneReason !== 'string' || doneReason === '' || doneReason === 'stop')
    return toolCallCount > 0 ? 'tool_calls' : 'stop';
  return doneReason;
}

/**
 * One whole tool call (`{id?, function: {index, name, arguments}}`): Ollama
 * never splits a call across chunks. Arguments arrive as an object; a string
 * (a proxy, an older server) is passed on byte for byte.
 */
export function toolCallOf(value: unknown): RawToolCall | undefined {
  const call = asObject(value);
  const fn = asObject(call?.['function']);
  if (fn === undefined) return undefined;
  const id = call?.['id'];
  return {
    id: typeof id === 'string' && id !== '' ? id : newId('call'),
    name: typeof fn['name'] === 'string' ? fn['name'] : '',
    arguments: argumentsText(fn['arguments']),
  };
}

/** A string field, or '' when absent or of another type. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A complete non-streamed `/api/chat` body → ModelResponse. */
export function parseChatResponse(body: unknown, options: WireReadOptions): ModelResponse {
  const maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  const root = asObject(body);
  const message = asObject(root?.['message']);
  if (root === undefined || message === undefined) {
    throw new ToolgateError(
      'model_error',
      `response from ${options.url} is not an Ollama chat response (no message): ${previewJson(body, 300)}`,
    );
  }
  const wireCalls = message['tool_calls'];
  const toolCalls: RawToolCall[] = [];
  if (Array.isArray(wireCalls)) {
    if (wireCalls.length > maxToolCalls)
      throw tooManyToolCalls({ limit: maxToolCalls, provider: options.provider, count: wireCalls.length });
    for (const item of wireCalls) {
      const call = toolCallOf(item);
      if (call !== undefined) toolCalls.push(call);
    }
  }
  return modelResponse({
    text: textOf(message['content']),
    toolCalls,
    finishReason: finishReasonOf(root['done_reason'], toolCalls.length),
    usage: parseUsage(root),
    reasoning: textOf(message['thinking']),
  });
}
