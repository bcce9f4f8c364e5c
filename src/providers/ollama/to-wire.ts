import type { Message } from '../../core/messages.ts';
import type { ModelRequest, ModelToolDefinition } from '../../core/ports/model-adapter.ts';
import { chatWireMessage } from '../shared/chat-message.ts';
import { bodyText, ToolsJson } from '../shared/tools-json.ts';
import { argumentsObject } from '../shared/wire.ts';

/** One message as Ollama's `/api/chat` expects it (api.Message in ollama/api/types.go). */
export type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: WireToolCall[] }
  | { role: 'tool'; content: string; tool_name: string; tool_call_id: string };

export interface WireToolCall {
  id: string;
  function: { name: string; arguments: Record<string, unknown> };
}

/** Ollama's `think`: on/off, or a level for models that have levels. */
export type OllamaThink = boolean | 'low' | 'medium' | 'high';

export function toWireMessage(message: Message): WireMessage {
  return chatWireMessage<WireMessage, WireMessage>(message, {
    withCalls: (turn, calls) => ({
      role: 'assistant',
      content: turn.content,
      tool_calls: calls.map((c) => ({ id: c.id, function: { name: c.name, arguments: argumentsObject(c.arguments) } })),
    }),
    // tool_name is what Ollama's chat templates read; tool_call_id pairs the result on servers that know it (older ones
    // ignore it).
    result: (result) => ({
      role: 'tool',
      content: result.content,
      tool_name: result.name,
      tool_call_id: result.toolCallId,
    }),
  });
}

export interface ToWireBodyInput {
  model: string;
  request: ModelRequest;
  think?: OllamaThink;
  keepAlive?: string | number;
  /**
   * Ollama model options (num_ctx, top_k…): configured values win over the request's temperature and maxTokens, as
   * extraBody does.
   */
  options?: Record<string, unknown>;
  /** Merged last, shallowly: an `options` here replaces the whole options object. */
  extraBody?: Record<string, unknown>;
}

const TOOLS = new ToolsJson((t: ModelToolDefinition) => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: t.parameters },
}));

/** Whether the request offers its tools (Ollama has no tool_choice: 'none' offers none). */
function offersTools(request: ModelRequest): boolean {
  return request.tools.length > 0 && request.toolChoice !== 'none';
}

/**
 * The JSON body of a `POST /api/chat` request.
 * `withTools: false` leaves the `tools` array out, for toWireBodyText.
 */
export function toWireBody(input: ToWireBodyInput, shape: { withTools?: boolean } = {}): Record<string, unknown> {
  const { model, request } = input;
  // `stream` always explicit: Ollama streams when it is absent.
  const body: Record<string, unknown> = {
    model,
    messages: request.messages.map(toWireMessage),
    stream: request.stream,
  };
  // Ollama has no tool_choice. 'none' is honoured by offering no tools; 'required' cannot be
  // enforced — the model may still answer in text, and the strategy deals with that answer.
  if (offersTools(request) && shape.withTools !== false) body['tools'] = TOOLS.objects(request.tools);
  // A JSON schema in `format` constrains decoding to it (structured outputs): what makes prompted mode reliable for
  // small models.
  if (request.responseFormat !== undefined) body['format'] = request.responseFormat.schema;
  const options: Record<string, unknown> = {};
  if (request.temperature !== undefined) options['temperature'] = request.temperature;
  if (request.maxTokens !== undefined) options['num_predict'] = request.maxTokens;
  Object.assign(options, input.options);
  if (Object.keys(options).length > 0) body['options'] = options;
  if (input.think !== undefined) body['think'] = input.think;
  if (input.keepAlive !== undefined) body['keep_alive'] = input.keepAlive;
  return input.extraBody === undefined ? body : { ...body, ...input.extraBody };
}

/**
 * toWireBody as JSON text, the tool definitions written from text kept per definitions array (ToolsJson); `tools` comes
 * last.
 */
export function toWireBodyText(input: ToWireBodyInput): string {
  return bodyText({
    tools: TOOLS,
    definitions: input.request.tools,
    offered: offersTools(input.request),
    extraBody: input.extraBody,
    build: (withTools) => toWireBody(input, { withTools }),
  });
}
