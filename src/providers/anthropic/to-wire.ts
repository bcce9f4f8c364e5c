import type { JsonObject } from '../../core/json.ts';
import type { AssistantMessage, Message } from '../../core/messages.ts';
import type { ModelRequest, ModelToolDefinition } from '../../core/ports/model-adapter.ts';
import { bodyText, ToolsJson } from '../shared/tools-json.ts';
import { argumentsObject, asObject } from '../shared/wire.ts';

/** Anthropic requires max_tokens on every request: used when neither the request nor the config sets one. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** A thinking block as the API returned it; sent back unchanged (its signature covers the text). */
export type ThinkingBlock =
  { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

export type WireBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content?: string }
  | ThinkingBlock;

export interface WireMessage {
  role: 'user' | 'assistant';
  content: WireBlock[];
}

/**
 * The thinking blocks kept in an assistant turn's providerData
 * (`{anthropic: {thinking: [...]}}`). It comes from a stored log, so every
 * entry is checked and a malformed one skipped rather than sent.
 */
export function thinkingBlocksOf(providerData: JsonObject | undefined): ThinkingBlock[] {
  const list = asObject(asObject(providerData)?.['anthropic'])?.['thinking'];
  if (!Array.isArray(list)) return [];
  const blocks: ThinkingBlock[] = [];
  for (const item of list) {
    const entry = asObject(item);
    if (
      entry?.['type'] === 'thinking' &&
      typeof entry['thinking'] === 'string' &&
      typeof entry['signature'] === 'string'
    ) {
      blocks.push({ type: 'thinking', thinking: entry['thinking'], signature: entry['signature'] });
    } else if (entry?.['type'] === 'redacted_thinking' && typeof entry['data'] === 'string') {
      blocks.push({ type: 'redacted_thinking', data: entry['data'] });
    }
  }
  return blocks;
}

/**
 * A call id as the API accepts it (`^[a-zA-Z0-9_-]+$`). Ids of its own pass
 * unchanged; one from another provider's turn earlier in a thread (a proxy's
 * `call.1`, say) is mapped the same way in its tool_use and its tool_result.
 */
export function wireId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return clean === '' ? 'call' : clean;
}

function assistantBlocks(message: AssistantMessage): WireBlock[] {
  // The API requires a turn's thinking blocks back, before its tool_use blocks, while thinking is on.
  const blocks: WireBlock[] = [...thinkingBlocksOf(message.providerData)];
  // An empty text block is rejected by the API.
  if (message.content !== '') blocks.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls ?? [])
    blocks.push({ type: 'tool_use', id: wireId(call.id), name: call.name, input: argumentsObject(call.arguments) });
  return blocks;
}

/**
 * toolgate's conversation → Anthropic's `system` and `messages`. System
 * messages go to the top-level `system`; tool results travel as `tool_result`
 * blocks in a user turn. Consecutive same-role turns are merged (the API would
 * merge them anyway) and a user turn lists its tool results before any text,
 * as the API requires. A turn with nothing to send is left out.
 */
export function toWireMessages(messages: readonly Message[]): { system: string; messages: WireMessage[] } {
  const system: string[] = [];
  const out: WireMessage[] = [];
  const add = (role: WireMessage['role'], blocks: WireBlock[]): void => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        if (message.content !== '') system.push(message.content);
        break;
      case 'user':
        add('user', message.content === '' ? [] : [{ type: 'text', text: message.content }]);
        break;
      case 'assistant':
        add('assistant', assistantBlocks(message));
        break;
      case 'tool': {
        const id = wireId(message.toolCallId);
        add('user', [
          message.content === ''
            ? { type: 'tool_result', tool_use_id: id }
            : { type: 'tool_result', tool_use_id: id, content: message.content },
        ]);
        break;
      }
    }
  }
  for (const message of out) {
    if (message.role === 'user')
      message.content = [
        ...message.content.filter((b) => b.type === 'tool_result'),
        ...message.content.filter((b) => b.type !== 'tool_result'),
      ];
  }
  return { system: system.join('\n\n'), messages: out };
}

export interface ToWireBodyInput {
  model: string;
  request: ModelRequest;
  /** max_tokens when the request sets none (the config's maxTokens, else DEFAULT_ANTHROPIC_MAX_TOKENS). */
  maxTokens?: number;
  thinking?: { budgetTokens: number };
  extraBody?: Record<string, unknown>;
}

const TOOLS = new ToolsJson((t: ModelToolDefinition) => ({
  name: t.name,
  ...(t.description === '' ? {} : { description: t.description }),
  // The API insists on an object schema; MCP servers sometimes leave `type` out.
  input_schema: typeof t.parameters['type'] === 'string' ? t.parameters : { type: 'object', ...t.parameters },
}));

/**
 * The JSON body of a `POST /v1/messages` request. `extraBody` is merged last, so it can override.
 * `withTools: false` leaves the `tools` array out (and keeps `tool_choice`), for toWireBodyText.
 */
export function toWireBody(input: ToWireBodyInput, options: { withTools?: boolean } = {}): Record<string, unknown> {
  const { model, request, thinking } = input;
  const answerTokens = input.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  let maxTokens = request.maxTokens ?? answerTokens;
  // budget_tokens must be below max_tokens: leave the answer its usual room on top of the budget.
  if (thinking !== undefined && maxTokens <= thinking.budgetTokens) maxTokens = thinking.budgetTokens + answerTokens;
  const { system, messages } = toWireMessages(request.messages);
  const body: Record<string, unknown> = { model, max_tokens: maxTokens, messages };
  if (system !== '') body['system'] = system;
  if (request.tools.length > 0) {
    if (options.withTools !== false) body['tools'] = TOOLS.objects(request.tools);
    // Forced tool use is refused with (manual) extended thinking, so "required" asks only for auto there.
    if (request.toolChoice === 'auto' || (request.toolChoice === 'required' && thinking !== undefined))
      body['tool_choice'] = { type: 'auto' };
    else if (request.toolChoice === 'required') body['tool_choice'] = { type: 'any' };
    else if (request.toolChoice === 'none') body['tool_choice'] = { type: 'none' };
  }
  if (thinking !== undefined) body['thinking'] = { type: 'enabled', budget_tokens: thinking.budgetTokens };
  // The API does not accept a temperature together with thinking.
  else if (request.temperature !== undefined) body['temperature'] = request.temperature;
  // request.responseFormat (the prompted-mode constraint) is not sent. Anthropic's structured
  // outputs (output_config.format) take only closed object schemas (additionalProperties: false),
  // and tool arguments are open objects: the API would refuse the request. Claude has native tool
  // use, which is what toolgate uses with it; prompted mode works unconstrained.
  if (request.stream) body['stream'] = true;
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
    offered: input.request.tools.length > 0,
    extraBody: input.extraBody,
    build: (withTools) => toWireBody(input, { withTools }),
  });
}
