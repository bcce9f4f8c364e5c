import type { JsonObject, JsonValue } from '../../core/json.ts';

/**
 * The chunks of the AI SDK's UI message stream (protocol v1, `x-vercel-ai-ui-message-stream: v1`) that toolgate
 * sends, spelled as the AI SDK's `uiMessageChunkSchema` reads them. Kept here rather than imported: the server does
 * not depend on the `ai` package; the end-to-end tests read these chunks with the AI SDK's own parser.
 */
export type UiChunk =
  | { type: 'start'; messageId?: string }
  | { type: 'finish'; finishReason: UiFinishReason }
  | { type: 'abort'; reason?: string }
  | { type: 'error'; errorText: string }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  /** Removes the parts of the current step: a model turn that was retried, or re-sent in order. */
  | { type: 'reset-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | {
      type: 'tool-input-available';
      toolCallId: string;
      toolName: string;
      input: JsonValue;
      /** Server-side tools are not declared by the client: dynamic tool parts. */
      dynamic: true;
      /** Executed by toolgate, never by the page: the AI SDK's `onToolCall` is not called for them. */
      providerExecuted: true;
      toolMetadata: ToolgateCallMetadata;
    }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string; reason?: string }
  | { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string }
  | {
      type: 'tool-output-available';
      toolCallId: string;
      output: JsonValue;
      dynamic: true;
      providerExecuted: true;
      toolMetadata: ToolgateCallMetadata;
    }
  | {
      type: 'tool-output-error';
      toolCallId: string;
      errorText: string;
      dynamic: true;
      providerExecuted: true;
      toolMetadata: ToolgateCallMetadata;
    }
  | { type: 'tool-output-denied'; toolCallId: string };

/** The AI SDK's finish reasons that toolgate uses. */
export type UiFinishReason = 'stop' | 'tool-calls' | 'error' | 'other';

/**
 * What the gate made of a call, on the tool part's `toolMetadata`: the arguments it runs with (normalised, injected
 * values redacted), whether it reads or writes, and the gate's decision (`allowed`, `approval_required`, `denied`,
 * `invalid`, `dry_run`). Each key is absent until the run's log says it.
 */
export type ToolgateCallMetadata = JsonObject & {
  normalisedInput?: JsonObject;
  effect?: string;
  decision?: string;
};

/** The headers of a UI message stream response, as the AI SDK's `UI_MESSAGE_STREAM_HEADERS`. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  // Proxies such as nginx buffer responses by default, which would hold chunks back.
  'x-accel-buffering': 'no',
};
