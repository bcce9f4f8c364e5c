import { z } from 'zod';
import { ToolgateError } from '../../core/errors.ts';
import type { AssistantMessage, Message, ToolMessage } from '../../core/messages.ts';

/**
 * A part of a UIMessage. toolgate reads text and tool parts, and `step-start` as the boundary of a turn; reasoning,
 * files, sources and data are passed over. Loose: the AI SDK adds fields of its own to parts and messages.
 */
export const uiPartSchema = z.looseObject({ type: z.string() });

export const uiTextPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

export const uiToolPartSchema = z.looseObject({
  type: z.string(),
  toolCallId: z.string().min(1),
  toolName: z.string().optional(),
  state: z.string(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  errorText: z.string().optional(),
  approval: z
    .looseObject({ id: z.string().min(1), approved: z.boolean().optional(), reason: z.string().optional() })
    .optional(),
});

export type UiToolPart = z.output<typeof uiToolPartSchema>;

export const uiMessageSchema = z.looseObject({
  id: z.string(),
  role: z.enum(['system', 'user', 'assistant'], { error: 'must be "system", "user" or "assistant"' }),
  parts: z.array(uiPartSchema),
});

export type UiMessage = z.output<typeof uiMessageSchema>;

/** A tool part: `tool-<name>` (a tool the page declared) or `dynamic-tool` (toolgate's server-side tools). */
export function isToolPartType(type: string): boolean {
  return type === 'dynamic-tool' || type.startsWith('tool-');
}

/** The text of a message's text parts, joined. */
export function messageText(message: UiMessage): string {
  return message.parts
    .map((part) => uiTextPartSchema.safeParse(part))
    .map((parsed) => (parsed.success ? parsed.data.text : ''))
    .join('');
}

/** A part whose type says it is a tool part, checked as one (`where` names it in the 400 when it is malformed). */
export function parseToolPart(part: z.output<typeof uiPartSchema>, where: string): UiToolPart {
  const parsed = uiToolPartSchema.safeParse(part);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue === undefined || issue.path.length === 0 ? '' : `.${issue.path.map(String).join('.')}`;
  throw new ToolgateError('usage', `invalid request body: ${where}${field}: ${issue?.message ?? 'not a tool part'}`);
}

/** The tool parts of a message. */
export function toolParts(message: UiMessage, where: string): UiToolPart[] {
  return message.parts.flatMap((part, i) =>
    isToolPartType(part.type) ? [parseToolPart(part, `${where}.parts[${i}]`)] : [],
  );
}

/**
 * The conversation before the question, as toolgate's messages: system and user text; an assistant message as its
 * turns (a `step-start` part, or text after tool calls, begins the next), each with the calls that have an outcome
 * (output, error or a denial) and their results as tool messages. Calls without an outcome (still waiting for a
 * decision, or cut off) are left out: a model must never see a call without its result.
 */
export function toHistory(messages: readonly UiMessage[], where: (index: number) => string): Message[] {
  const history: Message[] = [];
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'assistant') {
      const content = messageText(message);
      if (content !== '') history.push({ role: message.role, content });
      continue;
    }
    history.push(...assistantTurns(message, where(i)));
  }
  return history;
}

function assistantTurns(message: UiMessage, where: string): Message[] {
  const out: Message[] = [];
  let text = '';
  let calls: UiToolPart[] = [];
  const flush = (): void => {
    if (text.trim() === '' && calls.length === 0) return;
    const turn: AssistantMessage = { role: 'assistant', content: text };
    if (calls.length > 0) {
      turn.toolCalls = calls.map((call) => ({
        id: call.toolCallId,
        name: toolName(call),
        arguments: JSON.stringify(call.input ?? {}),
      }));
    }
    out.push(turn, ...calls.map(toolMessage));
    text = '';
    calls = [];
  };
  for (const [i, part] of message.parts.entries()) {
    if (part.type === 'step-start') {
      flush();
    } else if (part.type === 'text') {
      if (calls.length > 0) flush();
      const parsed = uiTextPartSchema.safeParse(part);
      if (parsed.success) text += parsed.data.text;
    } else if (isToolPartType(part.type)) {
      const call = parseToolPart(part, `${where}.parts[${i}]`);
      if (hasOutcome(call)) calls.push(call);
    }
  }
  flush();
  return out;
}

function hasOutcome(part: UiToolPart): boolean {
  return part.state === 'output-available' || part.state === 'output-error' || part.state === 'output-denied';
}

function toolName(part: UiToolPart): string {
  return part.type === 'dynamic-tool' ? (part.toolName ?? 'unknown') : part.type.slice('tool-'.length);
}

function toolMessage(part: UiToolPart): ToolMessage {
  return { role: 'tool', toolCallId: part.toolCallId, name: toolName(part), content: outcomeText(part) };
}

/** What the model is told of a call's outcome, as toolgate renders tool results (errors say so first). */
function outcomeText(part: UiToolPart): string {
  if (part.state === 'output-error') return `Error (tool_error): ${part.errorText ?? 'the tool failed'}`;
  if (part.state === 'output-denied') {
    const reason = part.approval?.reason;
    return `Error (rejected): a person did not approve this call${reason === undefined ? '' : `: ${reason}`}`;
  }
  return typeof part.output === 'string' ? part.output : JSON.stringify(part.output ?? null);
}
