/** Reading untrusted JSON from a model endpoint: every field is checked before use. */
import { ToolgateError } from '../../core/errors.ts';
import { isRecord, type JsonObject } from '../../core/json.ts';
import { parseJson } from '../../core/parse-json.ts';
import type { FinishReason, ModelResponse } from '../../core/ports/model-adapter.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';

/** A plain object from the wire, its members still unchecked; undefined for anything else. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

/** What reading a whole answer needs besides its body. */
export interface WireReadOptions {
  /** Named in errors. */
  url: string;
  maxToolCalls?: number;
  /** The config key named in limit messages. */
  provider?: string;
}

/**
 * JSON text of a value from the wire, cut to `maxChars`, for a message.
 * JSON.stringify recurses: an answer nested a few thousand levels deep (cheap
 * to send) would overflow the stack, so that case gets a description instead.
 */
export function previewJson(value: unknown, maxChars: number): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return '(a value nested too deeply to show)';
  }
  if (text === undefined) return String(value);
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

/**
 * The raw arguments text. A string (every OpenAI-compatible server, a
 * streamed Anthropic `partial_json`) is passed on byte for byte; an object
 * (Anthropic's `input`, Ollama's `arguments`, a few proxies) has only one
 * faithful text form.
 */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  try {
    return JSON.stringify(value);
  } catch {
    // Only a stack overflow gets here: parsed JSON has no cycles or BigInts.
    throw new ToolgateError('model_error', 'the arguments of a tool call are an object nested too deeply to pass on');
  }
}

/**
 * A call's arguments text as the object Ollama's and Anthropic's APIs demand
 * (a string is refused). Text that is not a JSON object is a model's broken
 * call that toolgate already answered with an error result: `{}` keeps the
 * history sendable, and the tool result next to it says what went wrong.
 * parseJson, not JSON.parse: escaped keys must stay as they were written.
 */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    return asObject(parseJson(text)) ?? {};
  } catch {
    return {};
  }
}

/** A ModelResponse without its empty parts: no usage, reasoning or providerData that was not given. */
export function modelResponse(input: {
  text: string;
  toolCalls: RawToolCall[];
  finishReason: FinishReason;
  usage?: Usage | undefined;
  reasoning?: string;
  providerData?: JsonObject | undefined;
}): ModelResponse {
  const response: ModelResponse = { text: input.text, toolCalls: input.toolCalls, finishReason: input.finishReason };
  if (input.usage !== undefined) response.usage = input.usage;
  if (input.reasoning !== undefined && input.reasoning !== '') response.reasoning = input.reasoning;
  if (input.providerData !== undefined) response.providerData = input.providerData;
  return response;
}
