import { isOneOf } from '../core/is-one-of.ts';
import { isJsonObject } from '../core/json.ts';
import type { JsonObject, JsonValue } from '../core/json.ts';

/**
 * The JSON shapes a tool call comes in, read into name + arguments:
 * - `{name, arguments | parameters | args | input | params}` (Hermes, Llama, Anthropic-like)
 * - `{type: "function", function: {name, arguments}}`, `{function_call: {…}}` (OpenAI),
 *   `{functionCall: {name, args}}` (Gemini); never a tool's definition
 *   (`{name, description, parameters: {type: "object", …}}`)
 * - `{tool_calls: […], answer?}` (OpenAI message, our structured-output schema)
 * - `{action: "call_tool", tool_name, arguments}` (seed 001)
 * - `{actions: [{action, arguments}], final_answer}` (seed 000's plan)
 * - `{action, action_input}` (LangChain agents)
 * - JSON-RPC: MCP's `{jsonrpc, method: "tools/call", params: {name, arguments}}`,
 *   and `{method: "<tool>", params: {…}}` (the method names the tool; the
 *   resolver keeps it only when that tool is declared)
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
  /**
   * A name that is not a declared tool is no attempt at a call (a JSON-RPC `method` is usually a protocol's): no
   * diagnostic.
   */
  quiet?: boolean;
}

export interface ShapeReading {
  intents: CallIntent[];
  /** Text answer carried next to the calls (`answer`, `final_answer`). */
  answer?: string;
}

const NAME_KEYS = ['name', 'tool_name', 'tool', 'function', 'function_name'] as const;
const ARG_KEYS = [
  'arguments',
  'parameters',
  'args',
  'input',
  'params',
  'tool_input',
  'action_input',
  'kwargs',
] as const;
/** Keys of a tool result or message the model repeats back. */
const ECHO_KEYS = [
  'result',
  'results',
  'output',
  'observation',
  'response',
  'content',
  'data',
  'error',
  'return_value',
] as const;
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

/** MCP's method for calling a tool. */
const MCP_TOOLS_CALL = 'tools/call';
/** HTTP verbs: `{"method": "GET", …}` is a request description, not a call. */
const HTTP_METHODS = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'connect', 'trace']);
/** Keys of an HTTP request or a URL: `method` there is a verb. */
const HTTP_KEYS = ['url', 'uri', 'href', 'path', 'endpoint', 'headers', 'host', 'body', 'query'] as const;
const METHOD_NAME_RE = /^[A-Za-z_][\w.-]{0,127}$/;

/** A JSON-RPC request as a call: MCP's tools/call, or a method named like a tool with object params. */
function readJsonRpc(obj: JsonObject): CallIntent | undefined {
  const method = obj['method'];
  const params = obj['params'];
  if (typeof method !== 'string' || !isJsonObject(params)) return undefined;
  if (method === MCP_TOOLS_CALL) {
    const name = firstString(params, ['name']);
    return name === undefined ? undefined : { name, args: firstArgs(params), explicit: true, echo: false };
  }
  // Protocol methods (`notifications/initialized`, `$/cancel`, `rpc.discover`) and HTTP data are not tool calls.
  if (
    !METHOD_NAME_RE.test(method) ||
    method.startsWith('rpc.') ||
    HTTP_METHODS.has(method.toLowerCase()) ||
    hasAny(obj, HTTP_KEYS)
  )
    return undefined;
  return { name: method, args: params, explicit: false, echo: hasAny(obj, ['result', 'error']), quiet: true };
}

const SCHEMA_KEYS = ['parameters', 'input_schema', 'inputSchema'] as const;

/**
 * A tool's definition (`{name, description, parameters: {type: "object",
 * properties: …}}`, as in a tools list or an OpenAI request) describes a
 * tool; it does not call it.
 */
function isToolDefinition(obj: JsonObject): boolean {
  if (typeof obj['description'] !== 'string') return false;
  return SCHEMA_KEYS.some((key) => {
    const schema = obj[key];
    return isJsonObject(schema) && (schema['type'] === 'object' || isJsonObject(schema['properties']));
  });
}

/** One object as one call, or undefined. */
function readSingle(obj: JsonObject, explicit: boolean): CallIntent | undefined {
  if (isToolDefinition(obj)) return undefined;
  for (const key of ['function', 'function_call', 'functionCall'] as const) {
    const inner = obj[key];
    if (isJsonObject(inner)) {
      if (isToolDefinition(inner)) return undefined;
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
  if (name === undefined && Object.hasOwn(obj, 'method')) return readJsonRpc(obj);
  const args = firstArgs(obj);
  if (name === undefined && typeof obj['action'] === 'string' && args !== undefined) name = obj['action'].trim();
  if (name === undefined) return undefined;
  const echo = args === undefined && hasAny(obj, ECHO_KEYS);
  return {
    name,
    args,
    explicit: explicit || typed,
    echo: echo || (args !== undefined && hasAny(obj, ['result', 'output', 'observation'])),
  };
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
  if (!isOneOf(ECHO_KEYS, only)) return [];
  const inner = obj[only];
  const intent = isJsonObject(inner) ? readSingle(inner, false) : undefined;
  return intent === undefined ? [] : [{ ...intent, echo: true }];
}

export function readCallShapes(value: JsonValue): ShapeReading {
  if (Array.isArray(value)) return { intents: readList(value, false) };
  if (!isJsonObject(value)) return { intents: [] };
  const answer = firstString(value, ANSWER_KEYS);
  const withAnswer = (intents: CallIntent[], text = answer): ShapeReading =>
    text === undefined ? { intents } : { intents, answer: text };
  if (Array.isArray(value['tool_calls']))
    return withAnswer(readList(value['tool_calls'], true), firstString(value, MESSAGE_ANSWER_KEYS));
  const actions = value['actions'];
  if (
    Array.isArray(actions) &&
    (actions.length === 0 || actions.some((a) => isJsonObject(a) && typeof a['action'] === 'string'))
  ) {
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
