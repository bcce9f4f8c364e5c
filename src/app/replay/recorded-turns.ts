import {
  canonicalJson,
  type Message,
  type ModelRequest,
  type RunEvent,
  type RunEventDataMap,
} from '../../core/index.ts';
import { applyEvents, emptyConversation } from '../../orchestrator/state/run-state.ts';

export type RecordedAnswer = RunEventDataMap['assistant_message'];
export type SidePurpose = NonNullable<RecordedAnswer['purpose']>;

/** A conversation turn of the original: what the model answered, and the conversation it answered (as keys). */
export interface RecordedTurn {
  answer: RecordedAnswer;
  /** The run's own messages the original sent for this turn (system prompt and history left out), as keys. */
  before: string[];
}

export interface RecordedModelCalls {
  turns: RecordedTurn[];
  /** Side calls of the strategies, per purpose, in order. */
  side: Map<SidePurpose, RecordedAnswer[]>;
}

/**
 * The model calls of a run's log: its conversation turns (assistant_message without `purpose`), each with the
 * conversation it answered — rebuilt by the run reducer from the events before it, exactly as the run saw it — and
 * the strategies' side calls by purpose.
 */
export function recordedModelCalls(events: readonly RunEvent[]): RecordedModelCalls {
  const state = emptyConversation();
  const turns: RecordedTurn[] = [];
  const side = new Map<SidePurpose, RecordedAnswer[]>();
  for (const event of events) {
    if (event.type === 'assistant_message') {
      const purpose = event.data.purpose;
      if (purpose === undefined) turns.push({ answer: event.data, before: state.messages.map(messageKey) });
      else side.set(purpose, [...(side.get(purpose) ?? []), event.data]);
    }
    applyEvents(state, [event]);
  }
  return { turns, side };
}

/**
 * Whether a request carries the conversation a recorded turn answered: its messages end with that conversation (the
 * system prompt and history before it), or with it and one more user message (an instruction for this request only).
 */
export function sameConversation(request: ModelRequest, before: readonly string[]): boolean {
  const keys = request.messages.map(messageKey);
  const n = before.length;
  const endsWith = (end: number): boolean => end - n >= 0 && before.every((key, i) => key === keys[end - n + i]);
  if (endsWith(keys.length)) return true;
  return request.messages.at(-1)?.role === 'user' && endsWith(keys.length - 1);
}

/**
 * A message as the comparison sees it: what the model reads, without ids (a replay's calls get ids of their own, and
 * prompted-mode results name them).
 */
export function messageKey(message: Message): string {
  switch (message.role) {
    case 'system':
      return `system\u0000${message.content}`;
    case 'user':
      return `user\u0000${message.content.replaceAll(/(<tool_response name="[^"]*") id="[^"]*"/g, '$1')}`;
    case 'tool':
      return `tool\u0000${message.name}\u0000${message.content}`;
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map((c) => `${c.name}\u0001${argumentsKey(c.arguments)}`);
      return `assistant\u0000${message.content}\u0000${calls.join('\u0002')}`;
    }
  }
}

function argumentsKey(text: string): string {
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text;
  }
}
