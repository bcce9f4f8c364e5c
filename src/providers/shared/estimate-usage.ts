import type { Message } from '../../core/messages.ts';
import type { ModelAdapter, ModelRequest, ModelResponse, ModelToolDefinition } from '../../core/ports/model-adapter.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';
import { loadTokenCounter, type CountTokens } from './token-counter.ts';

/**
 * What a chat message costs beside its content (role and separators), and what priming
 * the reply costs: OpenAI's published accounting for its chat format, which the
 * open models' chat templates resemble.
 */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_REPLY = 3;

/** Which of a response's counts toolgate must estimate. */
export interface MissingCounts {
  prompt: boolean;
  completion: boolean;
}

/**
 * A count is missing when the provider left it out (no usage at all, a stream without
 * its usage chunk, Ollama without `prompt_eval_count`) or reported 0 for something
 * that is not empty: no request or answer with content is free, so a 0 there is a
 * server that does not count, not a count.
 */
export function missingCounts(request: ModelRequest, response: ModelResponse): MissingCounts {
  const usage = response.usage;
  const asked = request.messages.length > 0 || request.tools.length > 0;
  const answered = response.text !== '' || (response.reasoning ?? '') !== '' || response.toolCalls.length > 0;
  return {
    prompt: usage === undefined || (usage.promptTokens === 0 && asked),
    completion: usage === undefined || (usage.completionTokens === 0 && answered),
  };
}

export interface EstimateUsageInput {
  request: ModelRequest;
  response: ModelResponse;
  count: CountTokens;
  /** Default: missingCounts(request, response). */
  missing?: MissingCounts;
}

/**
 * The response's usage with its missing counts counted by the tokenizer: the request
 * (every message, the tool definitions, a response schema) as prompt, the answer (text,
 * reasoning, tool calls) as completion. Counts the provider reported are kept as they
 * are. Marked `estimated: true` when anything was counted here, with `estimatedOnly`
 * naming the one count that was when the provider reported the other. Returns the
 * response's own usage when nothing is missing.
 */
export function estimateUsage(input: EstimateUsageInput): Usage | undefined {
  const { request, response, count } = input;
  const missing = input.missing ?? missingCounts(request, response);
  const reported = response.usage;
  if (!missing.prompt && !missing.completion && reported !== undefined) return reported;
  const promptTokens =
    missing.prompt || reported === undefined ? promptEstimate(request, count) : reported.promptTokens;
  const completionTokens =
    missing.completion || reported === undefined ? completionEstimate(response, count) : reported.completionTokens;
  const usage: Usage = {
    ...reported,
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    estimated: true,
  };
  if (missing.prompt !== missing.completion && reported !== undefined)
    usage.estimatedOnly = missing.prompt ? 'promptTokens' : 'completionTokens';
  return usage;
}

/**
 * The adapter, with the usage of every answer completed by estimateUsage where the
 * provider left counts out, so token and cost budgets hold for every model. The
 * tokenizer is loaded at the first answer that needs it; answers with full usage
 * pass through unchanged.
 */
export function withEstimatedUsage(
  model: ModelAdapter,
  options: { loadCounter?: () => Promise<CountTokens> } = {},
): ModelAdapter {
  if (ESTIMATING.has(model)) return model;
  const load = options.loadCounter ?? loadTokenCounter;
  const wrapped: ModelAdapter = {
    id: model.id,
    async generate(request, generateOptions) {
      const response = await model.generate(request, generateOptions);
      const missing = missingCounts(request, response);
      if (!missing.prompt && !missing.completion) return response;
      const usage = estimateUsage({ request, response, count: await load(), missing });
      return usage === undefined ? response : { ...response, usage };
    },
  };
  ESTIMATING.add(wrapped);
  return wrapped;
}

/** Adapters that already estimate: wrapping one again changes nothing. */
const ESTIMATING = new WeakSet<ModelAdapter>();

/**
 * Counts per message and per tool definition: a run sends the same messages again at
 * every step (with one or two more), and neither is changed once made, so each is
 * tokenized once however long the conversation grows.
 */
const counted = new WeakMap<object, number>();

function cached<T extends object>(item: T, measure: (item: T) => number): number {
  let n = counted.get(item);
  if (n === undefined) {
    n = measure(item);
    counted.set(item, n);
  }
  return n;
}

function promptEstimate(request: ModelRequest, count: CountTokens): number {
  let total = TOKENS_PER_REPLY;
  for (const message of request.messages) total += cached(message, (m) => messageTokens(m, count));
  for (const tool of request.tools) total += cached(tool, (t) => toolTokens(t, count));
  if (request.responseFormat !== undefined) total += count(JSON.stringify(request.responseFormat.schema));
  return total;
}

function messageTokens(message: Message, count: CountTokens): number {
  let n = TOKENS_PER_MESSAGE + count(message.content);
  if (message.role === 'assistant') n += callTokens(message.toolCalls ?? [], count);
  if (message.role === 'tool') n += count(message.name);
  return n;
}

function toolTokens(tool: ModelToolDefinition, count: CountTokens): number {
  return count(JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }));
}

function callTokens(calls: readonly RawToolCall[], count: CountTokens): number {
  return calls.reduce((n, call) => n + count(call.name) + count(call.arguments), 0);
}

function completionEstimate(response: ModelResponse, count: CountTokens): number {
  return count(response.text) + count(response.reasoning ?? '') + callTokens(response.toolCalls, count);
}
