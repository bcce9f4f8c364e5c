import type { JsonSchema, Message, ModelRequest } from '../../core/index.ts';
import { renderToolPrompt, toolCallJsonSchema } from '../../parsing/index.ts';
import type { ToolCatalog } from '../call/tool-catalog.ts';

export interface ModelRequestInput {
  /** System prompt and thread history, then the run's own messages. */
  messages: readonly Message[];
  /** A last user message for this request only (not part of the conversation). */
  instruction?: string | undefined;
  catalog: ToolCatalog;
  mode: 'native' | 'prompted';
  /** false: no tools are offered (an answer from what is known). */
  offerTools: boolean;
  /** Prompted mode: ask the endpoint for output in the tool-call JSON schema. */
  constrain: boolean;
  stream: boolean;
  callIndex: number;
}

/**
 * The request of one model turn: native mode hands the tools to the endpoint,
 * prompted mode describes them in the system prompt (and, with `constrain`,
 * asks for output in the tool-call schema).
 */
export function buildModelRequest(input: ModelRequestInput): ModelRequest {
  const { stream, callIndex } = input;
  const messages: Message[] = [
    ...input.messages,
    ...(input.instruction === undefined ? [] : [{ role: 'user' as const, content: input.instruction }]),
  ];
  if (!input.offerTools) return { messages, tools: [], stream, callIndex };
  const definitions = input.catalog.definitions;
  if (input.mode === 'native') return { messages, tools: definitions, stream, callIndex };
  const { prompt, schema } = promptedFormat(input.catalog);
  const first = messages[0];
  const withPrompt: Message[] =
    first?.role === 'system'
      ? [{ role: 'system', content: `${first.content}\n\n${prompt}` }, ...messages.slice(1)]
      : [{ role: 'system', content: prompt }, ...messages];
  return {
    messages: withPrompt,
    tools: [],
    stream,
    callIndex,
    ...(input.constrain && definitions.length > 0
      ? { responseFormat: { type: 'json_schema' as const, name: 'tool_calls', schema } }
      : {}),
  };
}

/** The prompted-mode system prompt and output schema, rendered once per run's catalog. */
const promptCache = new WeakMap<ToolCatalog, { prompt: string; schema: JsonSchema }>();

function promptedFormat(catalog: ToolCatalog): { prompt: string; schema: JsonSchema } {
  let cached = promptCache.get(catalog);
  if (cached === undefined) {
    const tools = catalog.definitions.map((d) => ({
      name: d.name,
      description: d.description,
      inputSchema: d.parameters,
    }));
    cached = { prompt: renderToolPrompt(tools), schema: toolCallJsonSchema(tools) };
    promptCache.set(catalog, cached);
  }
  return cached;
}
