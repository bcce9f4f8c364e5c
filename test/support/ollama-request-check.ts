// The checks Ollama's /api/chat makes before it runs a model, as a pure
// function so the mock server and its tests share one definition. Ollama is a
// Go server: a field of the wrong JSON type fails the body binding with Go's
// encoding/json wording, and tool-call arguments sent as a string (the OpenAI
// shape) fail Ollama's ordered-map decoder with its own odd sentence. The
// order follows the handler: binding, "model is required", the model lookup
// (404), capabilities (400), and only then the format, which Ollama checks
// when it starts generating (hence a 500).

export interface OllamaProblem {
  status: number;
  /** The `error` string of Ollama's `{"error": "..."}` body. */
  error: string;
}

export interface OllamaCheckOptions {
  /** Models "pulled" on this server; others get Ollama's 404. Unset: every model exists. */
  models?: readonly string[];
  /** Models whose template has no tool support: a request with `tools` gets Ollama's 400. */
  noTools?: readonly string[];
}

/** What Ollama answers when tool-call arguments are not a JSON object (its ordered-map decoder). */
export const OLLAMA_ARGUMENTS_ERROR = "Value looks like object, but can't find closing '}' symbol";

const ROLES = ['system', 'user', 'assistant', 'tool'] as const;
const DEFAULT_HOST = 'registry.ollama.ai';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON kind as Go's decoder names it in "cannot unmarshal X into ...". */
function goKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function typeError(value: unknown, field: string, goType: string): OllamaProblem {
  return {
    status: 400,
    error: `json: cannot unmarshal ${goKind(value)} into Go struct field ChatRequest.${field} of type ${goType}`,
  };
}

/** Go leaves a field alone when it is null, so only a present, non-null value of another type fails. */
function wrongType(value: unknown, ok: (v: unknown) => boolean): boolean {
  return value !== undefined && value !== null && !ok(value);
}

const isString = (v: unknown): boolean => typeof v === 'string';

/**
 * Ollama's canonical form of a model name: host/namespace/model:tag, with the
 * defaults filled in ("qwen2.5" → "registry.ollama.ai/library/qwen2.5:latest").
 * Names compare case-insensitively.
 */
export function ollamaFullName(name: string): string {
  const parts = name.split('/');
  const last = parts.pop() ?? '';
  const tagged = last.includes(':') ? last : `${last}:latest`;
  if (parts.length === 0) return `${DEFAULT_HOST}/library/${tagged}`;
  if (parts.length === 1) return `${DEFAULT_HOST}/${parts[0] ?? ''}/${tagged}`;
  return [...parts, tagged].join('/');
}

function sameModel(a: string, b: string): boolean {
  return ollamaFullName(a).toLowerCase() === ollamaFullName(b).toLowerCase();
}

function checkMessage(message: unknown): OllamaProblem | undefined {
  if (!isObject(message)) return typeError(message, 'messages', 'api.Message');
  for (const field of ['role', 'content', 'thinking', 'tool_name', 'tool_call_id'] as const) {
    if (wrongType(message[field], isString)) return typeError(message[field], `messages.${field}`, 'string');
  }
  if (wrongType(message['images'], Array.isArray))
    return typeError(message['images'], 'messages.images', '[]api.ImageData');
  const calls = message['tool_calls'];
  if (wrongType(calls, Array.isArray)) return typeError(calls, 'messages.tool_calls', '[]api.ToolCall');
  for (const call of Array.isArray(calls) ? calls : []) {
    if (!isObject(call)) return typeError(call, 'messages.tool_calls', 'api.ToolCall');
    const fn = call['function'];
    if (wrongType(fn, isObject)) return typeError(fn, 'messages.tool_calls.function', 'api.ToolCallFunction');
    if (!isObject(fn)) continue;
    if (wrongType(fn['name'], isString)) return typeError(fn['name'], 'messages.tool_calls.function.name', 'string');
    // A custom decoder: anything but an object, null included, fails with its own message.
    if (fn['arguments'] !== undefined && !isObject(fn['arguments']))
      return { status: 400, error: OLLAMA_ARGUMENTS_ERROR };
  }
  return undefined;
}

/** The request body as Go's encoding/json binds it: the first field of the wrong type fails. */
function checkBinding(body: Json): OllamaProblem | undefined {
  if (wrongType(body['model'], isString)) return typeError(body['model'], 'model', 'string');
  const messages = body['messages'];
  if (wrongType(messages, Array.isArray)) return typeError(messages, 'messages', '[]api.Message');
  for (const message of Array.isArray(messages) ? messages : []) {
    const problem = checkMessage(message);
    if (problem !== undefined) return problem;
  }
  if (wrongType(body['stream'], (v) => typeof v === 'boolean')) return typeError(body['stream'], 'stream', 'bool');
  const tools = body['tools'];
  if (wrongType(tools, Array.isArray)) return typeError(tools, 'tools', 'api.Tools');
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (!isObject(tool)) return typeError(tool, 'tools', 'api.Tool');
  }
  if (wrongType(body['options'], isObject)) return typeError(body['options'], 'options', 'map[string]interface {}');
  return undefined;
}

/** Go's %q of the raw format value: a quoted, escaped string. */
function goQuote(text: string): string {
  return JSON.stringify(text);
}

/**
 * Returns the status and `error` text Ollama would answer this /api/chat body
 * (already parsed from JSON; undefined for an empty body) with, or undefined
 * when it would run the model.
 */
export function checkOllamaRequest(body: unknown, options: OllamaCheckOptions = {}): OllamaProblem | undefined {
  if (body === undefined) return { status: 400, error: 'missing request body' };
  if (!isObject(body))
    return { status: 400, error: `json: cannot unmarshal ${goKind(body)} into Go value of type api.ChatRequest` };

  const binding = checkBinding(body);
  if (binding !== undefined) return binding;

  const model = body['model'];
  if (typeof model !== 'string' || model === '') return { status: 400, error: 'model is required' };

  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  for (const [i, message] of messages.entries()) {
    const role = isObject(message) ? message['role'] : undefined;
    if (!(ROLES as readonly unknown[]).includes(role)) {
      // Ollama itself accepts any role and its chat template silently drops the
      // message; refusing it here makes that adapter bug visible.
      return {
        status: 400,
        error:
          `mock: messages[${i}].role is ${JSON.stringify(role)}; Ollama renders ` +
          `only ${ROLES.join(', ')} (it would drop this message without a word)`,
      };
    }
  }

  if (options.models !== undefined && !options.models.some((m) => sameModel(m, model))) {
    return { status: 404, error: `model '${model}' not found` };
  }
  const tools = Array.isArray(body['tools']) ? body['tools'] : [];
  if (tools.length > 0 && (options.noTools ?? []).some((m) => sameModel(m, model))) {
    return { status: 400, error: `${ollamaFullName(model)} does not support tools` };
  }

  const format = body['format'];
  if (format !== undefined && format !== null && format !== '' && format !== 'json' && !isObject(format)) {
    return {
      status: 500,
      error: `invalid format: ${goQuote(JSON.stringify(format))}; expected "json" or a valid JSON Schema object`,
    };
  }
  return undefined;
}
