/** Reading untrusted JSON from a model endpoint: every field is checked before use. */
import { ToolgateError } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';

type Obj = Record<string, unknown>;

export function asObject(value: unknown): Obj | undefined {
  return isJsonObject(value) ? (value as Obj) : undefined;
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

