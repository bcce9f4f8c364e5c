import { ToolgateError } from '../../core/errors.ts';
import type { ModelResponse } from '../../core/ports/model-adapter.ts';
import { newId } from '../../core/runs.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';
import { failedMidStream } from '../shared/http-errors.ts';
import type { AssemblerOptions } from '../shared/limits.ts';
import { StreamAssembly } from '../shared/stream-assembly.ts';
import { argumentsText, asObject, modelResponse, previewJson } from '../shared/wire.ts';
import { contentText, defaultFinishReason, parseUsage, reasoningText } from './from-wire.ts';

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

export type StreamAssemblerOptions = AssemblerOptions;

/**
 * Folds `chat.completion.chunk` objects into one ModelResponse. Text deltas go
 * to `onTextDelta` as they come; tool calls are keyed by their `index` — the id
 * and name arrive in the first delta of an index, `arguments` in fragments that
 * are concatenated exactly as received. An `index` is only a map key, so a
 * server sending `index: 1e9` sizes nothing; the number of calls is bounded.
 */
export class StreamAssembler extends StreamAssembly {
  readonly #calls: PendingCall[] = [];
  /** Wire `index` → position in #calls. */
  readonly #slots = new Map<number, number>();
  #finishReason: string | undefined;
  #usage: Usage | undefined;
  #ended = false;

  /** True once the provider said why it stopped. */
  override get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  /** True once `[DONE]` came: the usage chunk, if any, came before it. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The stream's `[DONE]`: nothing follows it. */
  end(): void {
    this.#ended = true;
  }

  push(chunk: unknown): void {
    const root = asObject(chunk);
    if (root === undefined)
      throw new ToolgateError('model_error', `malformed stream: chunk is not an object: ${previewJson(chunk, 200)}`);
    // OpenRouter and vLLM report failures that happen after the 200 as an in-stream error object.
    const failure = failedMidStream(root);
    if (failure !== undefined) throw failure;
    const usage = parseUsage(root['usage']);
    if (usage !== undefined) this.#usage = usage;
    const choices = root['choices'];
    if (!Array.isArray(choices)) return;
    const choice = choices.map(asObject).find((c) => c !== undefined && (c['index'] ?? 0) === 0);
    if (choice === undefined) return;
    const delta = asObject(choice['delta']);
    if (delta !== undefined) {
      this.pushText(contentText(delta['content']));
      this.reasoning += reasoningText(delta);
      const toolCalls = delta['tool_calls'];
      if (Array.isArray(toolCalls)) for (const call of toolCalls) this.#pushToolCall(asObject(call));
    }
    const finish = choice['finish_reason'];
    if (typeof finish === 'string' && finish !== '') this.#finishReason = finish;
  }

  override finish(): ModelResponse {
    const toolCalls: RawToolCall[] = this.#calls
      .filter((c) => c.name !== '' || c.arguments !== '')
      .map((c) => ({ id: c.id === '' ? newId('call') : c.id, name: c.name, arguments: c.arguments }));
    const { text, reasoning } = this;
    return modelResponse({
      text,
      toolCalls,
      finishReason: defaultFinishReason(this.#finishReason, toolCalls.length),
      usage: this.#usage,
      reasoning,
    });
  }

  #pushToolCall(call: Record<string, unknown> | undefined): void {
    if (call === undefined) return;
    const id = typeof call['id'] === 'string' ? call['id'] : '';
    const fn = asObject(call['function']);
    const slot = this.#slotFor(call['index'], id);
    const pending = this.#calls[slot];
    if (pending === undefined) return;
    if (pending.id === '' && id !== '') pending.id = id;
    const name = fn?.['name'];
    // Some servers repeat the name in every delta; it is never split, so the first one wins.
    if (pending.name === '' && typeof name === 'string') pending.name = name;
    const args = fn?.['arguments'];
    if (typeof args === 'string') pending.arguments += args;
    else if (args !== undefined && args !== null && pending.arguments === '') pending.arguments = argumentsText(args);
  }

  #slotFor(index: unknown, id: string): number {
    if (typeof index === 'number') {
      const known = this.#slots.get(index);
      // A few servers number every parallel call 0; a new id at a used index is a new call.
      if (known !== undefined && !(id !== '' && this.#calls[known]?.id !== '' && this.#calls[known]?.id !== id))
        return known;
      this.#slots.set(index, this.#newSlot());
      return this.#calls.length - 1;
    }
    // No index at all (older Ollama, some proxies): an unseen id opens a call, anything else continues the last one.
    if (id !== '') {
      const existing = this.#calls.findIndex((c) => c.id === id);
      if (existing !== -1) return existing;
      return this.#newSlot();
    }
    return this.#calls.length > 0 ? this.#calls.length - 1 : this.#newSlot();
  }

  #newSlot(): number {
    this.roomForCall(this.#calls.length);
    this.#calls.push({ id: '', name: '', arguments: '' });
    return this.#calls.length - 1;
  }
}
