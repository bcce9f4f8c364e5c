import { ToolgateError } from '../../core/errors.ts';
import type { ModelResponse } from '../../core/ports/model-adapter.ts';
import type { RawToolCall } from '../../core/tools.ts';
import type { Usage } from '../../core/usage.ts';
import { failedMidStream } from '../shared/http-errors.ts';
import type { AssemblerOptions } from '../shared/limits.ts';
import { StreamAssembly } from '../shared/stream-assembly.ts';
import { asObject, modelResponse, previewJson } from '../shared/wire.ts';
import { finishReasonOf, parseUsage, textOf, toolCallOf } from './from-wire.ts';

export type StreamAssemblerOptions = AssemblerOptions;

/**
 * Folds the lines of a streamed `/api/chat` answer into one ModelResponse.
 * Each line is a ChatResponse: `message.content` and `message.thinking` are
 * pieces to append, `message.tool_calls` are whole calls (any line may carry
 * some), and the line with `done: true` ends the answer with `done_reason`
 * and the token counts.
 */
export class StreamAssembler extends StreamAssembly {
  readonly #calls: RawToolCall[] = [];
  #done = false;
  #doneReason: unknown;
  #usage: Usage | undefined;

  /** True once the `done: true` line arrived. */
  override get finished(): boolean {
    return this.#done;
  }

  push(chunk: unknown): void {
    const root = asObject(chunk);
    if (root === undefined)
      throw new ToolgateError(
        'model_error',
        `malformed stream: a line is not a JSON object: ${previewJson(chunk, 200)}`,
      );
    // After the 200 Ollama can only report a failure as a `{"error": …}` line: almost
    // always the model runner failing (out of memory, a crash).
    const failure = failedMidStream(root);
    if (failure !== undefined) throw failure;
    const message = asObject(root['message']);
    if (message !== undefined) {
      this.reasoning += textOf(message['thinking']);
      this.pushText(textOf(message['content']));
      const calls = message['tool_calls'];
      if (Array.isArray(calls)) for (const call of calls) this.#pushToolCall(call);
    }
    if (root['done'] === true) {
      this.#done = true;
      this.#doneReason = root['done_reason'];
      this.#usage = parseUsage(root);
    }
  }

  override finish(): ModelResponse {
    const { text, reasoning } = this;
    return modelResponse({
      text,
      toolCalls: [...this.#calls],
      finishReason: finishReasonOf(this.#doneReason, this.#calls.length),
      usage: this.#usage,
      reasoning,
    });
  }

  #pushToolCall(value: unknown): void {
    const call = toolCallOf(value);
    if (call === undefined) return;
    this.roomForCall(this.#calls.length);
    this.#calls.push(call);
  }
}
