import { ToolgateError } from '../../core/errors.ts';
import type { ModelResponse } from '../../core/ports/model-adapter.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';
import { providerMessageOf } from '../shared/http-errors.ts';
import { DEFAULT_MAX_TOOL_CALLS, limitExceeded, type AssemblerOptions } from '../shared/limits.ts';
import { asObject, previewJson } from '../shared/wire.ts';
import { finishReasonOf, parseUsage, textOf, toolCallOf } from './from-wire.ts';

export type StreamAssemblerOptions = AssemblerOptions;

/**
 * Folds the lines of a streamed `/api/chat` answer into one ModelResponse.
 * Each line is a ChatResponse: `message.content` and `message.thinking` are
 * pieces to append, `message.tool_calls` are whole calls (any line may carry
 * some), and the line with `done: true` ends the answer with `done_reason`
 * and the token counts.
 */
export class StreamAssembler {
  readonly #onTextDelta: ((text: string) => void) | undefined;
  readonly #maxToolCalls: number;
  readonly #provider: string | undefined;
  #text = '';
  #reasoning = '';
  readonly #calls: RawToolCall[] = [];
  #done = false;
  #doneReason: unknown;
  #usage: Usage | undefined;
  #delivered = false;

  constructor(options: StreamAssemblerOptions = {}) {
    this.#onTextDelta = options.onTextDelta;
    this.#maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    this.#provider = options.provider;
  }

  /** True once a text piece reached the caller: from then on a retry would duplicate output. */
  get delivered(): boolean {
    return this.#delivered;
  }

  /** True once the `done: true` line arrived. */
  get finished(): boolean {
    return this.#done;
  }

  push(chunk: unknown): void {
    const root = asObject(chunk);
    if (root === undefined) throw new ToolgateError('model_error', `malformed stream: a line is not a JSON object: ${previewJson(chunk, 200)}`);
    if (root['error'] !== undefined && root['error'] !== null) {
      // After the 200 Ollama can only report a failure as a `{"error": …}` line: almost
      // always the model runner failing (out of memory, a crash). Not retried: a runner
      // that failed once mostly fails the same way again, and text may already be shown.
      const message = providerMessageOf(root);
      throw new ToolgateError('model_error', `the model failed mid-stream: ${message}`, { details: { providerMessage: message } });
    }
    const message = asObject(root['message']);
    if (message !== undefined) {
      this.#reasoning += textOf(message['thinking']);
      this.#pushText(textOf(message['content']));
      const calls = message['tool_calls'];
      if (Array.isArray(calls)) for (const call of calls) this.#pushToolCall(call);
    }
    if (root['done'] === true) {
      this.#done = true;
      this.#doneReason = root['done_reason'];
      this.#usage = parseUsage(root);
    }
  }

  finish(): ModelResponse {
    const response: ModelResponse = {
      text: this.#text,
      toolCalls: [...this.#calls],
      finishReason: finishReasonOf(this.#doneReason, this.#calls.length),
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

  #pushToolCall(value: unknown): void {
    const call = toolCallOf(value);
    if (call === undefined) return;
    if (this.#calls.length >= this.#maxToolCalls) {
      throw limitExceeded({
        option: 'maxToolCalls',
        limit: this.#maxToolCalls,
        what: 'the number of tool calls in the answer',
        ...(this.#provider === undefined ? {} : { provider: this.#provider }),
      });
    }
    this.#calls.push(call);
  }
}
