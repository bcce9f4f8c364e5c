import type { RunEvent } from '../../core/events.ts';
import type { UiChunk, UiFinishReason } from './ui-chunks.ts';
import { UiToolParts } from './ui-tool-parts.ts';

/**
 * One run's events as the chunks of the AI SDK's UI message stream, event by event (docs/ai-sdk.md has the table).
 * Pure: the same events give the same chunks (part ids come from event ids), so a stream replayed from the log, or
 * resumed in the middle of it, says exactly what the first one said. Every event of the run must be pushed, in
 * order, from the first: a stream that resumes later pushes the earlier ones too and sends none of their chunks.
 *
 * A model turn is a step (`start-step` … `finish-step`, the step closing when the next turn starts or the run ends,
 * so its tool calls belong to it). Its text streams from `assistant_delta` (already without call envelopes: the run's
 * stream filter holds them back) and is checked against the turn's `content ?? text`: text the turn did not end
 * with, or reasoning that only arrived with the turn, makes the step `reset-step` and say its parts again, in order.
 * A strategy's side call (`purpose`) is not a turn of the conversation and sends nothing.
 */
export class UiStreamMapper {
  readonly #tools = new UiToolParts();
  /** The model step whose `start-step` was sent and whose `finish-step` was not. */
  #step: number | undefined;
  /** Parts were sent in the open step: a `reset-step` has something to remove. */
  #stepHasParts = false;
  /** The open text part of the turn streaming now, and the text it got. */
  #text: { id: string; streamed: string } | undefined;

  push(event: RunEvent): UiChunk[] {
    switch (event.type) {
      case 'assistant_delta':
        return this.#delta(event);
      case 'assistant_message':
        return this.#turn(event);
      case 'parse_retry':
        return this.#retry(event.data.step);
      case 'gate_decision':
        this.#tools.decided(event.data);
        return [];
      case 'tool_call':
        return this.#inStep(event.data.step, this.#tools.called(event.data));
      case 'approval_required':
        return this.#inStep(event.data.step, this.#tools.approvalRequested(event));
      case 'input_received':
        return this.#tools.inputReceived(event.data.input);
      case 'tool_result':
        return this.#inStep(event.data.step, this.#tools.result(event.data));
      case 'run_completed':
        return this.#end([], 'stop');
      case 'run_failed': {
        const { code, message } = event.data.error;
        return this.#end([{ type: 'error', errorText: `${code}: ${message}` }], 'error');
      }
      case 'run_cancelled': {
        const reason = event.data.reason;
        return this.#end([{ type: 'abort', ...(reason === undefined ? {} : { reason }) }], 'other');
      }
      default:
        return [];
    }
  }

  /**
   * The stream stops while the run waits for a person: `tool-calls` after an approval request (the decision
   * continues the same assistant message), `other` for a run that escalated.
   */
  pause(reason: Extract<UiFinishReason, 'tool-calls' | 'other'>): UiChunk[] {
    return this.#end([], reason);
  }

  #delta(event: RunEvent<'assistant_delta'>): UiChunk[] {
    const chunks = this.#enterStep(event.data.step);
    if (this.#text === undefined) {
      this.#text = { id: `text-${event.id}`, streamed: '' };
      chunks.push({ type: 'text-start', id: this.#text.id });
    }
    this.#text.streamed += event.data.text;
    this.#stepHasParts = true;
    chunks.push({ type: 'text-delta', id: this.#text.id, delta: event.data.text });
    return chunks;
  }

  #turn(event: RunEvent<'assistant_message'>): UiChunk[] {
    const { data } = event;
    if (data.purpose !== undefined) return [];
    this.#tools.noteTurn(data);
    const chunks = this.#enterStep(data.step);
    const final = data.content ?? data.text;
    const reasoning = data.reasoning ?? '';
    const text = this.#text;
    this.#text = undefined;
    // The turn's text may be trimmed where the stream was not: a trailing newline sent already is harmless.
    const continues = text !== undefined && (final.startsWith(text.streamed) || final === text.streamed.trimEnd());
    if (text !== undefined && continues && reasoning.trim() === '') {
      const rest = final.startsWith(text.streamed) ? final.slice(text.streamed.length) : '';
      if (rest !== '') chunks.push({ type: 'text-delta', id: text.id, delta: rest });
      chunks.push({ type: 'text-end', id: text.id });
      return chunks;
    }
    if (text !== undefined) {
      chunks.push({ type: 'reset-step' });
      this.#stepHasParts = false;
    }
    if (reasoning.trim() !== '') {
      this.#stepHasParts = true;
      const id = `reasoning-${event.id}`;
      chunks.push(
        { type: 'reasoning-start', id },
        { type: 'reasoning-delta', id, delta: reasoning },
        { type: 'reasoning-end', id },
      );
    }
    if (final.trim() !== '') {
      this.#stepHasParts = true;
      const id = `text-${event.id}`;
      chunks.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: final }, { type: 'text-end', id });
    }
    return chunks;
  }

  /** The turn's calls could not be used and the model is asked again: what it showed of the failed try goes. */
  #retry(step: number): UiChunk[] {
    this.#text = undefined;
    if (this.#step !== step || !this.#stepHasParts) return [];
    this.#stepHasParts = false;
    return [{ type: 'reset-step' }];
  }

  #inStep(step: number, parts: UiChunk[]): UiChunk[] {
    if (parts.length === 0) return parts;
    this.#stepHasParts = true;
    return [...this.#enterStep(step), ...parts];
  }

  /** Opens `step`, closing the step before it; nothing when it is open already. */
  #enterStep(step: number): UiChunk[] {
    if (this.#step === step) return [];
    const chunks = this.#closeStep();
    this.#step = step;
    this.#stepHasParts = false;
    chunks.push({ type: 'start-step' });
    return chunks;
  }

  #closeStep(): UiChunk[] {
    const chunks: UiChunk[] = [];
    if (this.#text !== undefined) chunks.push({ type: 'text-end', id: this.#text.id });
    this.#text = undefined;
    if (this.#step !== undefined) chunks.push({ type: 'finish-step' });
    this.#step = undefined;
    return chunks;
  }

  #end(before: UiChunk[], finishReason: UiFinishReason): UiChunk[] {
    return [...this.#closeStep(), ...before, { type: 'finish', finishReason }];
  }
}
