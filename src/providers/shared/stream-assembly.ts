/**
 * What every provider's stream assembler keeps alike: the answer's text and
 * reasoning, the text handed to onTextDelta piece by piece as it comes, and
 * the bound on tool calls. A provider's assembler adds how its events fold in.
 */
import type { ModelResponse } from '../../core/ports/model-adapter.ts';
import { DEFAULT_MAX_TOOL_CALLS, tooManyToolCalls, type AssemblerOptions } from './limits.ts';
import type { AssembledStream } from './read-answer.ts';

export abstract class StreamAssembly implements AssembledStream {
  protected text = '';
  protected reasoning = '';
  readonly #onTextDelta: ((text: string) => void) | undefined;
  readonly #maxToolCalls: number;
  readonly #provider: string | undefined;
  #delivered = false;

  constructor(options: AssemblerOptions = {}) {
    this.#onTextDelta = options.onTextDelta;
    this.#maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    this.#provider = options.provider;
  }

  /** True once a text piece reached the caller: from then on a retry would duplicate output. */
  get delivered(): boolean {
    return this.#delivered;
  }

  /** True once the answer is complete (the provider said why it stopped). */
  abstract get finished(): boolean;

  /** The response assembled so far. */
  abstract finish(): ModelResponse;

  /** Appends a piece of answer text and hands it on. */
  protected pushText(text: string): void {
    if (text === '') return;
    this.text += text;
    if (this.#onTextDelta !== undefined) {
      this.#delivered = true;
      this.#onTextDelta(text);
    }
  }

  /** Fails the answer when the `held` tool calls already fill maxToolCalls. */
  protected roomForCall(held: number): void {
    if (held >= this.#maxToolCalls) throw tooManyToolCalls({ limit: this.#maxToolCalls, provider: this.#provider });
  }
}
