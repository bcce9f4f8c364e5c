import type { ErrorInfo } from '../../core/errors.ts';
import type { RunEvent } from '../../core/events.ts';
import type { JsonObject } from '../../core/json.ts';
import type { PendingApproval } from '../../core/runs.ts';
import { addUsage, ZERO_USAGE, type Usage } from '../../core/usage.ts';

/** A client tool call as OpenAI's `tool_calls` carry it: arguments as JSON text. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** What one event adds to a streamed answer. */
export interface AnswerDelta {
  content?: string;
  reasoning?: string;
  toolCalls?: ChatToolCall[];
}

/** How the answer ended. */
export type AnswerEnd =
  | { kind: 'completed'; output: string; finishReason: 'stop' | 'length' }
  | { kind: 'client_tool_calls'; output: string; calls: ChatToolCall[] }
  | { kind: 'hold'; message: string; pendingApproval: PendingApproval }
  | { kind: 'failed'; error: ErrorInfo }
  | { kind: 'cancelled'; reason: string };

/** Between the text of two model turns in a stream. */
export const TURN_SEPARATOR = '\n\n';

/**
 * A run's events as one chat answer. A stream shows the text of every
 * conversation turn as it comes (side calls of the plan, reflect and auto
 * strategies are never streamed by the engine), turns apart by a blank line,
 * so a client sees "Let me look that up." before the tool runs; reasoning goes
 * out as `reasoning_content` when its turn ends. The non-streamed answer is
 * the run's output (the last turn). Usage sums every model call it covers.
 */
export class ChatAnswer {
  #end: AnswerEnd | undefined;
  #usage: Usage = ZERO_USAGE;
  #calls: ChatToolCall[] = [];
  /** Text sent in the turn now streaming, and whether any turn sent text before it. */
  #turnText: string | undefined;
  #sentAny = false;
  #lastFinishReason = 'stop';
  #lastReasoning: string | undefined;

  get end(): AnswerEnd | undefined {
    return this.#end;
  }

  get usage(): Usage {
    return this.#usage;
  }

  /** The reasoning of the last conversation turn, for the non-streamed message. */
  get reasoning(): string | undefined {
    return this.#lastReasoning;
  }

  /** The deltas an event adds to the stream (none for most events). */
  push(event: RunEvent): AnswerDelta[] {
    switch (event.type) {
      case 'assistant_delta':
        return this.#text(event.data.text);
      case 'assistant_message': {
        this.#usage = addUsage(this.#usage, event.data.usage);
        if (event.data.purpose !== undefined) return [];
        const deltas: AnswerDelta[] = [];
        this.#lastFinishReason = event.data.finishReason;
        this.#lastReasoning = event.data.reasoning;
        if (event.data.reasoning !== undefined && event.data.reasoning !== '')
          deltas.push({ reasoning: event.data.reasoning });
        // Whatever the deltas did not show (a turn that did not stream, text held back as a possible call).
        const final = event.data.content ?? event.data.text;
        const sent = this.#turnText ?? '';
        if (final.startsWith(sent)) deltas.push(...this.#text(final.slice(sent.length)));
        this.#turnText = undefined;
        return deltas;
      }
      case 'client_tool_calls': {
        const calls = event.data.calls.map((call) => toolCallOf(call));
        this.#calls.push(...calls);
        return calls.length === 0 ? [] : [{ toolCalls: calls }];
      }
      case 'run_completed':
        this.#end =
          this.#calls.length > 0
            ? { kind: 'client_tool_calls', output: event.data.output, calls: this.#calls }
            : {
                kind: 'completed',
                output: event.data.output,
                finishReason: this.#lastFinishReason === 'length' ? 'length' : 'stop',
              };
        return [];
      case 'run_failed':
        this.#end = { kind: 'failed', error: event.data.error };
        return [];
      case 'run_cancelled':
        this.#end = { kind: 'cancelled', reason: event.data.reason ?? 'cancelled by a client' };
        return [];
      default:
        return [];
    }
  }

  /** The answer ends with the hold message: a call waits for a person. */
  hold(message: string, pendingApproval: PendingApproval): AnswerDelta[] {
    this.#end = { kind: 'hold', message, pendingApproval };
    this.#turnText = undefined;
    return this.#text(message);
  }

  #text(text: string): AnswerDelta[] {
    if (text === '') return [];
    let content = text;
    if (this.#turnText === undefined) {
      if (this.#sentAny) content = TURN_SEPARATOR + text;
      this.#turnText = '';
    }
    this.#turnText += text;
    this.#sentAny = true;
    return [{ content }];
  }
}

function toolCallOf(call: { toolCallId: string; name: string; arguments: JsonObject }): ChatToolCall {
  return {
    id: call.toolCallId,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  };
}
