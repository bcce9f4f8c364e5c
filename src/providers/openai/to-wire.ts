import type { Message } from '../../core/messages.ts';
import type { ModelRequest, ModelToolDefinition } from '../../core/ports/model-adapter.ts';
import { chatWireMessage } from '../shared/chat-message.ts';
import { bodyText, ToolsJson } from '../shared/tools-json.ts';

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
  return chatWireMessage<WireMessage, WireMessage>(message, {
    withCalls: (turn, calls) => ({
      role: 'assistant',
      // OpenAI's own shape for a tool-only turn; some servers reject "" next to tool_calls.
      content: turn.content === '' ? null : turn.content,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    }),
    result: (result) => ({ role: 'tool', tool_call_id: result.toolCallId, content: result.content }),
  });
}

export interface WireBodyInput {
  model: string;
  request: ModelRequest;
  extraBody?: Record<string, unknown>;
}

const TOOLS = new ToolsJson((t: ModelToolDefinition) => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: t.parameters },
}));

/**
 * The JSON body of a `/chat/completions` request. `extraBody` is merged last, so it can override.
 * `withTools: false` leaves the `tools` array out (and keeps `tool_choice`), for toWireBodyText.
 */
export function toWireBody(input: WireBodyInput, options: { withTools?: boolean } = {}): Record<string, unknown> {
  const { model, request } = input;
  const body: Record<string, unknown> = { model, messages: request.messages.map(toWireMessage) };
  if (request.tools.length > 0) {
    if (options.withTools !== false) body['tools'] = TOOLS.objects(request.tools);
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

/**
 * toWireBody as JSON text, the tool definitions written from text kept per definitions array (ToolsJson); `tools` comes
 * last.
 */
export function toWireBodyText(input: WireBodyInput): string {
  return bodyText({
    tools: TOOLS,
    definitions: input.request.tools,
    offered: input.request.tools.length > 0,
    extraBody: input.extraBody,
    build: (withTools) => toWireBody(input, { withTools }),
  });
}
