import { z } from 'zod';
import { ToolgateError } from '../../core/errors.ts';
import type { Message } from '../../core/messages.ts';
import type { RawToolCall } from '../../core/tools.ts';

/** A content part as OpenAI's clients send them; only text (and an assistant's refusal) is read. */
const partSchema = z.object({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() });
const contentSchema = z.union([z.string(), z.array(partSchema)], {
  error: 'must be a string or a list of content parts ({"type": "text", "text": "…"})',
});

const toolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal('function', 'only "function" tool calls are supported').optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

/** What an answer of this route put on its assistant message (clients often echo the message back whole). */
const toolgateFieldSchema = z.object({
  runId: z.string().optional(),
  pendingApproval: z.object({ eventId: z.number().int().optional() }).nullish(),
});

export const chatMessageSchema = z.discriminatedUnion(
  'role',
  [
    z.object({ role: z.enum(['system', 'developer']), content: contentSchema }),
    z.object({ role: z.literal('user'), content: contentSchema }),
    z.object({
      role: z.literal('assistant'),
      content: contentSchema.nullish(),
      refusal: z.string().nullish(),
      tool_calls: z.array(toolCallSchema).nullish(),
      toolgate: toolgateFieldSchema.nullish(),
    }),
    z.object({ role: z.literal('tool'), content: contentSchema, tool_call_id: z.string().min(1) }),
  ],
  { error: 'role must be "system", "developer", "user", "assistant" or "tool"' },
);

export type ChatMessage = z.output<typeof chatMessageSchema>;

/** The last assistant message of a conversation: where a run held for approval is named. */
export interface LastAssistant {
  text: string;
  /** `toolgate.runId` of the message, when the client echoed it back. */
  runId?: string;
  /** `toolgate.pendingApproval.eventId` of the message. */
  eventId?: number;
}

/**
 * OpenAI's messages as toolgate's conversation: system and developer become
 * system, text parts are joined, an assistant's `tool_calls` keep their ids and
 * JSON text, and a `tool` message takes its name from the call it answers.
 */
export function toMessages(messages: readonly ChatMessage[]): Message[] {
  const names = new Map<string, string>();
  return messages.map((message, i): Message => {
    const where = `messages[${i}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(message.content, where) };
      case 'user':
        return { role: 'user', content: textOf(message.content, where) };
      case 'assistant': {
        const content = message.content === null || message.content === undefined ? '' : textOf(message.content, where);
        const calls = (message.tool_calls ?? []).map((call): RawToolCall => ({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        }));
        for (const call of calls) names.set(call.id, call.name);
        const text = content === '' && typeof message.refusal === 'string' ? message.refusal : content;
        return calls.length > 0
          ? { role: 'assistant', content: text, toolCalls: calls }
          : { role: 'assistant', content: text };
      }
      case 'tool': {
        const name = names.get(message.tool_call_id);
        if (name === undefined) {
          throw new ToolgateError(
            'usage',
            `${where}.tool_call_id "${message.tool_call_id}" answers no tool call of an earlier assistant message: ` +
              'send the assistant message with its tool_calls before the tool results',
          );
        }
        return { role: 'tool', toolCallId: message.tool_call_id, name, content: textOf(message.content, where) };
      }
    }
  });
}

/** The last assistant message's text and toolgate field, if the conversation has one. */
export function lastAssistantOf(messages: readonly ChatMessage[]): LastAssistant | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'assistant') continue;
    const text = message.content === null || message.content === undefined ? '' : textOf(message.content, '');
    const last: LastAssistant = { text };
    const runId = message.toolgate?.runId;
    const eventId = message.toolgate?.pendingApproval?.eventId;
    if (runId !== undefined) last.runId = runId;
    if (eventId !== undefined) last.eventId = eventId;
    return last;
  }
  return undefined;
}

/** A message's text: a string, or its text parts joined by newlines; other parts are refused by name. */
function textOf(content: string | z.output<typeof partSchema>[], where: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((part, k) => {
      if (part.type === 'text' && part.text !== undefined) return part.text;
      if (part.type === 'refusal' && part.refusal !== undefined) return part.refusal;
      throw new ToolgateError(
        'usage',
        `${where}.content[${k}]: "${part.type.slice(0, 40)}" parts are not supported: toolgate sends text only; ` +
          'send the text as a string or as {"type": "text", "text": "…"} parts',
      );
    })
    .join('\n');
}
