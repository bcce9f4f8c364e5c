import { ToolgateError } from '../../core/errors.ts';
import type { FinishReason, ModelResponse } from '../../core/ports/model-adapter.ts';
import { newId } from '../../core/runs.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';
import { DEFAULT_MAX_TOOL_CALLS, tooManyToolCalls } from '../shared/limits.ts';
import { argumentsText, asObject, modelResponse, previewJson, type WireReadOptions } from '../shared/wire.ts';

type Obj = Record<string, unknown>;

/** Token usage from a wire `usage` object; `undefined` when absent or empty. */
export function parseUsage(value: unknown): Usage | undefined {
  const usage = asObject(value);
  if (usage === undefined) return undefined;
  const prompt = usage['prompt_tokens'];
  const completion = usage['completion_tokens'];
  const total = usage['total_tokens'];
  if (typeof prompt !== 'number' && typeof completion !== 'number' && typeof total !== 'number') return undefined;
  const promptTokens = typeof prompt === 'number' ? prompt : 0;
  const completionTokens = typeof completion === 'number' ? completion : 0;
  const result: Usage = {
    promptTokens,
    completionTokens,
    totalTokens: typeof total === 'number' ? total : promptTokens + completionTokens,
  };
  // OpenAI reports cache hits inside prompt_tokens (prompt_tokens_details.cached_tokens); DeepSeek as
  // prompt_cache_hit_tokens.
  const cached = asObject(usage['prompt_tokens_details'])?.['cached_tokens'] ?? usage['prompt_cache_hit_tokens'];
  if (typeof cached === 'number' && cached > 0) result.cacheReadTokens = cached;
  return result;
}

/** Message content: a string, null, or (some servers) an array of text parts. */
export function contentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return '';
  return value
    .map((part) => {
      const text = asObject(part)?.['text'];
      return typeof text === 'string' ? text : '';
    })
    .join('');
}

/** A complete non-streaming `chat.completion` body → ModelResponse. */
export function parseCompletion(body: unknown, options: WireReadOptions): ModelResponse {
  const { url } = options;
  const maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  const root = asObject(body);
  const choices = root?.['choices'];
  const choice = Array.isArray(choices) ? asObject(choices[0]) : undefined;
  const message = asObject(choice?.['message']);
  if (message === undefined) {
    throw new ToolgateError(
      'model_error',
      `response from ${url} is not a chat completion (no choices[0].message): ${previewJson(body, 300)}`,
    );
  }
  const toolCalls: RawToolCall[] = [];
  const wireCalls = message['tool_calls'];
  if (Array.isArray(wireCalls)) {
    if (wireCalls.length > maxToolCalls)
      throw tooManyToolCalls({ limit: maxToolCalls, provider: options.provider, count: wireCalls.length });
    for (const item of wireCalls) {
      const call = asObject(item);
      const fn = asObject(call?.['function']);
      if (fn === undefined) continue;
      const id = call?.['id'];
      toolCalls.push({
        id: typeof id === 'string' && id !== '' ? id : newId('call'),
        name: typeof fn['name'] === 'string' ? fn['name'] : '',
        arguments: argumentsText(fn['arguments']),
      });
    }
  }
  return modelResponse({
    text: contentText(message['content']),
    toolCalls,
    finishReason: defaultFinishReason(choice?.['finish_reason'], toolCalls.length),
    usage: parseUsage(root?.['usage']),
    reasoning: reasoningText(message),
  });
}

/**
 * Reasoning sent apart from the answer: `reasoning_content` (DeepSeek, vLLM, SGLang) or `reasoning` (Ollama,
 * OpenRouter).
 */
export function reasoningText(message: Obj): string {
  const content = contentText(message['reasoning_content']);
  return content !== '' ? content : contentText(message['reasoning']);
}

/** The provider's word when it gave one; otherwise what the content implies. */
export function defaultFinishReason(finish: unknown, toolCallCount: number): FinishReason {
  if (typeof finish === 'string' && finish !== '') return finish;
  return toolCallCount > 0 ? 'tool_calls' : 'stop';
}
