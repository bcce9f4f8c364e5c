import type { JsonObject } from './json.ts';
import type { RawToolCall } from './tools.ts';

/** The conversation a model sees. Provider adapters translate it to their wire format. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string;
  /** Calls the assistant made in this turn; `arguments` as JSON text. */
  toolCalls?: RawToolCall[];
  /** The ModelResponse's providerData of this turn, for the adapter that produced it. */
  providerData?: JsonObject;
}

export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  name: string;
  /** The result rendered for the model (see renderToolResult). */
  content: string;
}
