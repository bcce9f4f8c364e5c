import { ToolgateError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { FinishReason, ModelResponse } from '../../core/ports/model-adapter.ts';
import { newId } from '../../core/runs.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';
import { DEFAULT_MAX_TOOL_CALLS, tooManyToolCalls } from '../shared/limits.ts';
import { argumentsText, asObject, modelResponse, previewJson, type WireReadOptions } from '../shared/wire.ts';
import type { ThinkingBlock } from './to-wire.ts';

/** The wire's token counts, as far as they were reported. */
export interface WireUsage {
  input?: number;
  cacheWrite?: number;
  cacheRead?: number;
  output?: number;
}

/**
 * Reads a wire `usage` object into `into`, overwriting what it carries: in a
 * stream, message_delta repeats cumulative totals, never increments.
 */
export function readUsage(value: unknown, into: WireUsage): void {
  const usage = asObject(value);
  if (usage === undefined) return;
  const read = (key: string): number | undefined => (typeof usage[key] === 'number' ? usage[key] : undefined);
  const input = read('input_tokens');
  const cacheWrite = read('cache_creation_input_tokens');
  const cacheRead = read('cache_read_input_tokens');
  const output = read('output_tokens');
  if (input !== undefined) into.input = input;
  if (cacheWrite !== undefined) into.cacheWrite = cacheWrite;
  if (cacheRead !== undefined) into.cacheRead = cacheRead;
  if (output !== undefined) into.output = output;
}

/**
 * Usage in toolgate's terms: promptTokens counts every input token, cached ones included (the API reports them apart).
 */
export function toUsage(wire: WireUsage): Usage | undefined {
  if (
    wire.input === undefined &&
    wire.output === undefined &&
    wire.cacheRead === undefined &&
    wire.cacheWrite === undefined
  )
    return undefined;
  const promptTokens = (wire.input ?? 0) + (wire.cacheWrite ?? 0) + (wire.cacheRead ?? 0);
  const completionTokens = wire.output ?? 0;
  const usage: Usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  if (wire.cacheRead !== undefined && wire.cacheRead > 0) usage.cacheReadTokens = wire.cacheRead;
  if (wire.cacheWrite !== undefined && wire.cacheWrite > 0) usage.cacheWriteTokens = wire.cacheWrite;
  return usage;
}

const STOP_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
};

/** stop_reason in toolgate's words; others (pause_turn, model_context_window_exceeded…) pass through as they are. */
export function finishReasonOf(stopReason: unknown, toolCallCount: number): FinishReason {
  if (typeof stopReason === 'string' && stopReason !== '') return STOP_REASONS[stopReason] ?? stopReason;
  return toolCallCount > 0 ? 'tool_calls' : 'stop';
}

/** A thinking or redacted_thinking block from the wire, or undefined for anything else. */
export function thinkingBlockOf(block: Record<string, unknown>): ThinkingBlock | undefined {
  if (block['type'] === 'thinking') {
    return {
      type: 'thinking',
      thinking: typeof block['thinking'] === 'string' ? block['thinking'] : '',
      signature: typeof block['signature'] === 'string' ? block['signature'] : '',
    };
  }
  if (block['type'] === 'redacted_thinking')
    return { type: 'redacted_thinking', data: typeof block['data'] === 'string' ? block['data'] : '' };
  return undefined;
}

/** providerData carrying a turn's thinking blocks, to be sent back with it (see toWireMessages). */
export function thinkingProviderData(blocks: readonly ThinkingBlock[]): JsonObject | undefined {
  if (blocks.length === 0) return undefined;
  return { anthropic: { thinking: blocks.map((b) => ({ ...b })) } };
}

/** The parts of a response every path builds the same way (a whole message, or a finished stream). */
export function buildResponse(input: {
  text: string;
  reasoning: string;
  toolCalls: RawToolCall[];
  stopReason: unknown;
  usage: WireUsage;
  thinking: readonly ThinkingBlock[];
}): ModelResponse {
  return modelResponse({
    text: input.text,
    toolCalls: input.toolCalls,
    finishReason: finishReasonOf(input.stopReason, input.toolCalls.length),
    usage: toUsage(input.usage),
    reasoning: input.reasoning,
    providerData: thinkingProviderData(input.thinking),
  });
}

/** A complete non-streamed Messages API `message` body → ModelResponse. */
export function parseMessage(body: unknown, options: WireReadOptions): ModelResponse {
  const maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  const root = asObject(body);
  const content = root?.['content'];
  if (root === undefined || !Array.isArray(content)) {
    throw new ToolgateError(
      'model_error',
      `response from ${options.url} is not a Messages API message (no content array): ${previewJson(body, 300)}`,
    );
  }
  let text = '';
  let reasoning = '';
  const toolCalls: RawToolCall[] = [];
  const thinking: ThinkingBlock[] = [];
  for (const item of content) {
    const block = asObject(item);
    if (block === undefined) continue;
    if (block['type'] === 'text' && typeof block['text'] === 'string') {
      text += block['text'];
    } else if (block['type'] === 'tool_use') {
      if (toolCalls.length >= maxToolCalls) throw tooManyToolCalls({ limit: maxToolCalls, provider: options.provider });
      const id = block['id'];
      toolCalls.push({
        id: typeof id === 'string' && id !== '' ? id : newId('toolu'),
        name: typeof block['name'] === 'string' ? block['name'] : '',
        arguments: argumentsText(block['input']),
      });
    } else {
      const entry = thinkingBlockOf(block);
      if (entry === undefined) continue;
      thinking.push(entry);
      if (entry.type === 'thinking') reasoning += entry.thinking;
    }
  }
  const usage: WireUsage = {};
  readUsage(root['usage'], usage);
  return buildResponse({ text, reasoning, toolCalls, stopReason: root['stop_reason'], usage, thinking });
}
