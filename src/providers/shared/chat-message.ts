import type { AssistantMessage, Message, ToolMessage } from '../../core/messages.ts';
import type { RawToolCall } from '../../core/tools.ts';

/** A message that is nothing but text, as every chat API takes it. */
export interface PlainWireMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What differs between chat APIs: how a turn's tool calls, and a tool's result, are written. */
export interface ChatWireShape<Calls, Result> {
  /** An assistant turn that made tool calls (`calls` is never empty). */
  withCalls: (turn: AssistantMessage, calls: readonly RawToolCall[]) => Calls;
  result: (message: ToolMessage) => Result;
}

/**
 * One message in a chat API's shape (OpenAI-compatible, Ollama): text as it is, tool calls and results as `shape`
 * writes them.
 */
export function chatWireMessage<Calls, Result>(
  message: Message,
  shape: ChatWireShape<Calls, Result>,
): PlainWireMessage | Calls | Result {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      return calls.length === 0 ? { role: 'assistant', content: message.content } : shape.withCalls(message, calls);
    }
    case 'tool':
      return shape.result(message);
  }
}
