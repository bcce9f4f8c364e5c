import type { Message } from '../../core/messages.ts';
import type { ModelRequest, ModelToolDefinition } from '../../core/ports/model-adapter.ts';

/** One message as `/chat/completions` expects it. */
export type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export function toWireMessage(message: Message): WireMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        // OpenAI's own shape for a tool-only turn; some servers reject "" next to tool_calls.
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

export interface WireBodyInput {
  model: string;
  request: ModelRequest;
  extraBody?: Record<string, unknown>;
}

function wireTool(t: ModelToolDefinition): Record<string, unknown> {
  return { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } };
}

/**
 * The JSON body of a `/chat/completions` request. `extraBody` is merged last, so it can override.
 * `withTools: false` leaves the `tools` array out (and keeps `tool_choice`), for toWireBodyText.
 */
export function toWireBody(input: WireBodyInput, options: { withTools?: boolean } = {}): Record<string, unknown> {
  const { model, request } = input;
  const body: Record<string, unknown> = { model, messages: request.messages.map(toWireMessage) };
  if (request.tools.length > 0) {
    if (options.withTools !== false) body['tools'] = request.tools.map(wireTool);
    // OpenAI rejects tool_choice without tools ("tool_choice is only allowed when tools are specified").
    if (request.toolChoice !== undefined) body['tool_choice'] = request.toolChoice;
  }
  if (request.temperature !== undefined) body['temperature'] = request.temperature;
  if (request.maxTokens !== undefined) body['max_tokens'] = request.maxTokens;
  if (request.responseFormat !== undefined) {
    body['response_format'] = {
      type: 'json_schema',
      // strict: false — strict mode demands every property be required, which MCP schemas rarely are.
      json_schema: { name: request.responseFormat.name, schema: request.responseFormat.schema, strict: false },
    };
  }
  if (request.stream) {
    body['stream'] = true;
    body['stream_options'] = { include_usage: true };
  }
  return input.extraBody === undefined ? body : { ...body, ...input.extraBody };
}

/** The `tools` JSON per definitions array: a run offers the same array at every step (its tool catalog), and definitions are not changed once made. */
const toolsJson = new WeakMap<readonly ModelToolDefinition[], string>();

/**
 * toWireBody as JSON text, with the tool definitions serialised once per
 * definitions array rather than at every call: with many tools, or large
 * schemas, they are most of a request's body. Parses to what
 * `JSON.stringify(toWireBody(input))` does (`tools` comes last).
 */
export function toWireBodyText(input: WireBodyInput): string {
  const tools = input.request.tools;
  if (tools.length === 0 || (input.extraBody !== undefined && Object.hasOwn(input.extraBody, 'tools'))) return JSON.stringify(toWireBody(input));
  let json = toolsJson.get(tools);
  if (json === undefined) {
    json = JSON.stringify(tools.map(wireTool));
    toolsJson.set(tools, json);
  }
  const rest = JSON.stringify(toWireBody(input, { withTools: false }));
  // `rest` is an object with at least model and messages: its closing brace is its last character.
  return `${rest.slice(0, -1)},"tools":${json}}`;
}
