import { ToolgateError } from '../../core/errors.ts';
import type { ModelResponse } from '../../core/ports/model-adapter.ts';
import { newId } from '../../core/runs.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';
import { argumentsText, asObject, previewJson } from '../shared/wire.ts';
import { contentText, defaultFinishReason, parseUsage, reasoningText } from './from-wire.ts';
import { providerMessageOf } from '../shared/http-errors.ts';
import { DEFAULT_MAX_TOOL_CALLS, limitExceeded, type AssemblerOptions } from '../shared/limits.ts';

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
export class StreamAssembler {
  readonly #onTextDelta: ((text: string) => void) | undefined;
  readonly #maxToolCalls: number;
  readonly #provider: string | undefined;
  #text = '';
  #reasoning = '';
  readonly #calls: PendingCall[] = [];
  /** Wire `index` → position in #calls. */
  readonly #slots = new Map<number, number>();
  #finishReason: string | undefined;
  #usage: Usage | undefined;
  #delivered = false;

  constructor(options: StreamAssemblerOptions = {}) {
    this.#onTextDelta = options.onTextDelta;
    this.#maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    this.#provider = options.provider;
  }

  /** True once a text delta reached the caller: from then on a retry would duplicate output. */
  get delivered(): boolean {
    return this.#delivered;
  }

  /** True once the provider said why it stopped. */
  get finished(): boolean {
    return this.#finishReason !== undefined;
  }

  push(chunk: unknown): void {
    const root = asObject(chunk);
    if (root === undefined) throw new ToolgateError('model_error', `malformed stream: chunk is not an object: ${previewJson(chunk, 200)}`);
    if (root['error'] !== undefined && root['error'] !== null) {
      // OpenRouter and vLLM report failures that happen after the 200 as an in-stream error object.
      const message = providerMessageOf(root);
      throw new ToolgateError('model_error', `the model failed mid-stream: ${message}`, { details: { providerMessage: message } });
    }
    const usage = parseUsage(root['usage']);
    if (usage !== undefined) this.#usage = usage;
    const choices = root['choices'];
    if (!Array.isArray(choices)) return;
    const choice = choices.map(asObject).find((c) => c !== undefined && (c['index'] ?? 0) === 0);
    if (choice === undefined) return;
    const delta = asObject(choice['delta']);
    if (delta !== undefined) {
      this.#pushText(contentText(delta['content']));
      this.#reasoning += reasoningText(delta);
      const toolCalls = delta['tool_calls'];
      if (Array.isArray(toolCalls)) for (const call of toolCalls) this.#pushToolCall(asObject(call));
    }
    const finish = choice['finish_reason'];
    if (typeof finish === 'string' && finish !== '') this.#finishReason = finish;
  }

  finish(): ModelResponse {
    const toolCalls: RawToolCall[] = this.#calls
      .filter((c) => c.name !== '' || c.arguments !== '')
      .map((c) => ({ id: c.id === '' ? newId('call') : c.id, name: c.name, arguments: c.arguments }));
    const response: ModelResponse = {
      text: this.#text,
      toolCalls,
      finishReason: defaultFinishReason(this.#finishReason, toolCalls.length),
    };
    if (this.#usage !== undefined) response.usage = this.#usage;
    if (this.#reasoning !== '') response.reasoning = this.#reasoning;
    return response;
  }

  #pushText(text: string): void {
    if (text === '') return;
    this.#text += text;
    if (this.#onTextDelta !== undefined) {
      this.#delivered = true;
      this.#onTextDelta(text);
    }
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
      if (known !== undefined && !(id !== '' && this.#calls[known]?.id !== '' && this.#calls[known]?.id !== id)) return known;
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
    if (this.#calls.length >= this.#maxToolCalls) {
      throw limitExceeded({
        option: 'maxToolCalls',
        limit: this.#maxToolCalls,
        what: 'the number of tool calls in the answer',
        ...(this.#provider === undefined ? {} : { provider: this.#provider }),
      });
    }
    this.#calls.push({ id: '', name: '', arguments: '' });
    return this.#calls.length - 1;
  }
}
