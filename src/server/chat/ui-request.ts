import { z } from 'zod';
import { ToolgateError } from '../../core/errors.ts';
import type { Message } from '../../core/messages.ts';
import type { JsonObject } from '../../core/json.ts';
import { formatIssues } from '../schemas.ts';
import { messageText, toHistory, toolParts, uiMessageSchema } from './ui-history.ts';

/** Longest chat id: it names the runs' thread. */
export const MAX_CHAT_ID_LENGTH = 255;

const CHAT_ID_PROBLEM = `must be the chat's id, 1 to ${MAX_CHAT_ID_LENGTH} characters`;

/**
 * The body the AI SDK's DefaultChatTransport posts: the chat's id and its messages, the trigger, and the fields an app
 * adds with the transport's `body` that toolgate reads (`model`, `metadata`). Other fields are refused, as on every
 * toolgate route: a misspelt one must not be ignored silently.
 */
export const uiChatBodySchema = z.strictObject({
  id: z.string().min(1, CHAT_ID_PROBLEM).max(MAX_CHAT_ID_LENGTH, CHAT_ID_PROBLEM),
  messages: z.array(uiMessageSchema).min(1, 'must hold at least the question (a user message)'),
  trigger: z
    .enum(['submit-message', 'regenerate-message'], { error: 'must be "submit-message" or "regenerate-message"' })
    .optional(),
  messageId: z.string().optional(),
  model: z.string().min(1).optional(),
  metadata: z.record(z.string(), z.json()).optional(),
});

/** A person's answer to a call toolgate holds, as the AI SDK sends it back (`addToolApprovalResponse`). */
export interface UiApprovalResponse {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

export type UiChatRequest =
  /** A question: a new run on the chat's thread, with the messages before it as its history. */
  | { kind: 'ask'; chatId: string; input: string; history: Message[]; model?: string; metadata?: JsonObject }
  /** Decisions on the calls of the last assistant message: its run goes on, on the same message. */
  | { kind: 'decide'; chatId: string; messageId: string; approvals: UiApprovalResponse[] };

/** Validates a POST /v1/ui/chat body into a question or a set of decisions. */
export function parseUiChatBody(body: unknown): UiChatRequest {
  if (body === undefined) {
    throw new ToolgateError(
      'usage',
      'request body is required: {"id": "<chat id>", "messages": [UIMessage…]}, ' +
        "as the AI SDK's chat transport sends it",
    );
  }
  const parsed = uiChatBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new ToolgateError('usage', `invalid request body: ${formatIssues(parsed.error.issues, body)}`, {
      details: { issues: parsed.error.issues },
    });
  }
  const { id: chatId, trigger = 'submit-message', model, metadata } = parsed.data;
  let messages = parsed.data.messages;
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  if (last?.role === 'assistant' && trigger === 'submit-message') {
    return { kind: 'decide', chatId, messageId: last.id, approvals: approvalResponses(last, `messages[${lastIndex}]`) };
  }
  // A regeneration answers the last question again: the answer being replaced is not history.
  if (last?.role === 'assistant') messages = messages.slice(0, -1);
  const questionIndex = messages.length - 1;
  const question = messages[questionIndex];
  if (question?.role !== 'user') {
    const what =
      question === undefined
        ? 'there is no message before the answer to regenerate'
        : `messages[${questionIndex}] is a ${question.role} message`;
    throw new ToolgateError('usage', `the conversation must end with the user's question; ${what}`);
  }
  const input = messageText(question);
  if (input.trim() === '') {
    throw new ToolgateError(
      'usage',
      `messages[${questionIndex}] has no text: toolgate answers the text parts of the question (files are not read)`,
    );
  }
  const history = toHistory(messages.slice(0, -1), (i) => `messages[${i}]`);
  return {
    kind: 'ask',
    chatId,
    input,
    history,
    ...(model === undefined ? {} : { model }),
    ...(metadata === undefined ? {} : { metadata }),
  };
}

function approvalResponses(message: z.output<typeof uiMessageSchema>, where: string): UiApprovalResponse[] {
  const responses: UiApprovalResponse[] = [];
  for (const part of toolParts(message, where)) {
    if (part.state !== 'approval-responded') continue;
    const approval = part.approval;
    if (approval?.approved === undefined) {
      throw new ToolgateError(
        'usage',
        `invalid request body: ${where}: the tool part of call ${part.toolCallId} is "approval-responded" ` +
          'without approval.id and approval.approved',
      );
    }
    responses.push({
      approvalId: approval.id,
      approved: approval.approved,
      ...(approval.reason === undefined ? {} : { reason: approval.reason }),
    });
  }
  if (responses.length === 0) {
    throw new ToolgateError(
      'usage',
      `${where} is an assistant message without approval responses: send the user's next message, or answer the ` +
        'approval requests it holds (addToolApprovalResponse)',
    );
  }
  return responses;
}
