import { isJsonObject } from '../core/json.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';

/**
 * The JSON shapes a tool call comes in, read into name + arguments:
 * - `{name, arguments | parameters | args | input | params}` (Hermes, Llama, Anthropic-like)
 * - `{type: "function", function: {name, arguments}}`, `{function_call: {…}}` (OpenAI)
 * - `{tool_calls: […], answer?}` (OpenAI message, our structured-output schema)
 * - `{action: "call_tool", tool_name, arguments}` (seed 001)
 * - `{actions: [{action, arguments}], final_answer}` (seed 000's plan)
 * - `{action, action_input}` (LangChain agents)
 * - arrays of any of these.
 */

export interface CallIntent {
  name: string;
  /** As written: undefined when absent (validation happens in the resolver). */
  args: JsonValue | undefined;
  /** The shape says "this is a call" by itself (a type tag, a tool_calls list…). */
  explicit: boolean;
  /** Only a name and something that looks like a tool result: an echo, not a call. */
  echo: boolean;
}

export interface ShapeReading {
  intents: CallIntent[];
  /** Text answer carried next to the calls (`answer`, `final_answer`). */
  answer?: string;
}

const NAME_KEYS = ['name', 'tool_name', 'tool', 'function', 'function_name'] as const;
const ARG_KEYS = ['arguments', 'parameters', 'args', 'input', 'params', 'tool_input', 'action_input', 'kwargs'] as const;
/** Keys of a tool result or message the model repeats back. */
const ECHO_KEYS = ['result', 'results', 'output', 'observation', 'response', 'content', 'data', 'error', 'return_value'] as const;
const ANSWER_KEYS = ['answer', 'final_answer', 'finalAnswer'] as const;
/** An assistant message written as JSON carries its text in `content`. */
const MESSAGE_ANSWER_KEYS = [...ANSWER_KEYS, 'content'] as const;
const EXPLICIT_TYPES = new Set(['function', 'tool_use', 'tool_call', 'function_call']);

function firstString(obj: JsonObject, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = obj[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

function firstArgs(obj: JsonObject): JsonValue | undefined {
  for (const key of ARG_KEYS) if (Object.hasOwn(obj, key)) return obj[key];
  return undefined;
}

function hasAny(obj: JsonObject, keys: readonly string[]): boolean {
  return keys.some((key) => Object.hasOwn(obj, key));
}

/** One object as one call, or undefined. */
function readSingle(obj: JsonObject, explicit: boolean): CallIntent | undefined {
  for (const key of ['function', 'function_call'] as const) {
    const inner = obj[key];
    if (isJsonObject(inner)) {
      const name = firstString(inner, ['name']);
      if (name !== undefined) return { name, args: firstArgs(inner), explicit: true, echo: false };
    }
  }
  const typed = typeof obj['type'] === 'string' && EXPLICIT_TYPES.has(obj['type']);
  if (obj['action'] === 'call_tool') {
    const name = firstString(obj, ['tool_name', 'tool', 'name']);
    return name === undefined ? undefined : { name, args: firstArgs(obj), explicit: true, echo: false };
  }
  let name = firstString(obj, NAME_KEYS);
  const args = firstArgs(obj);
  if (name === undefined && typeof obj['action'] === 'string' && args !== undefined) name = obj['action'].trim();
  if (name === undefined) return undefined;
  const echo = args === undefined && hasAny(obj, ECHO_KEYS);
  return { name, args, explicit: explicit || typed, echo: echo || (args !== undefined && hasAny(obj, ['result', 'output', 'observation'])) };
}

function readList(items: readonly JsonValue[], explicit: boolean): CallIntent[] {
  const intents: CallIntent[] = [];
  for (const item of items) {
    if (!isJsonObject(item)) continue;
    if (Array.isArray(item['tool_calls'])) intents.push(...readList(item['tool_calls'], true));
    else {
      const intent = readSingle(item, explicit);
      if (intent !== undefined) intents.push(intent);
    }
  }
  return intents;
}

/** An echoed result wrapping a call: `{"result": {"name": …}}`. */
function readWrappedEcho(obj: JsonObject): CallIntent[] {
  const keys = Object.keys(obj);
  const only = keys.length === 1 ? keys[0] : undefined;
  if (only === undefined || !(ECHO_KEYS as readonly string[]).includes(only)) return [];
  const inner = obj[only];
  const intent = isJsonObject(inner) ? readSingle(inner, false) : undefined;
  return intent === undefined ? [] : [{ ...intent, echo: true }];
}

export function readCallShapes(value: JsonValue): ShapeReading {
  if (Array.isArray(value)) return { intents: readList(value, false) };
  if (!isJsonObject(value)) return { intents: [] };
  const answer = firstString(value, ANSWER_KEYS);
  const withAnswer = (intents: CallIntent[], text = answer): ShapeReading => (text === undefined ? { intents } : { intents, answer: text });
  if (Array.isArray(value['tool_calls'])) return withAnswer(readList(value['tool_calls'], true), firstString(value, MESSAGE_ANSWER_KEYS));
  const actions = value['actions'];
  if (Array.isArray(actions) && (actions.length === 0 || actions.some((a) => isJsonObject(a) && typeof a['action'] === 'string'))) {
    const intents: CallIntent[] = [];
    for (const item of actions) {
      if (!isJsonObject(item)) continue;
      const name = firstString(item, ['action', 'name', 'tool']);
      if (name !== undefined) intents.push({ name, args: firstArgs(item), explicit: true, echo: false });
    }
    return withAnswer(intents);
  }
  const single = readSingle(value, false);
  if (single !== undefined) return { intents: [single] };
  return withAnswer(readWrappedEcho(value));
}
