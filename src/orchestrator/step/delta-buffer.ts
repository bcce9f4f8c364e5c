import { draft } from '../../core/index.ts';
import { InOrder } from '../log/in-order.ts';
import type { AppendFn, AppendOptions } from '../log/transition.ts';

/** How long streamed text may wait before it is appended as one `assistant_delta`. */
export const DEFAULT_DELTA_FLUSH_MS = 25;

/**
 * Coalesces streamed text into `assistant_delta` events: one store append per
 * token would make a durable store write per token. The first text of a step
 * is appended at once (the first token is what a reader waits for); what
 * follows is flushed on a short timer, and always before the step's
 * `assistant_message`, so the concatenated deltas of a step equal its message text.
 */
export class DeltaBuffer {
  readonly #append: AppendFn;
  readonly #flushMs: number;
  #step = 0;
  /** The step whose first text was already sent on its way. */
  #started = 0;
  #pending = '';
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Appends in order; with none on its way, the next starts at once (see InOrder). */
  readonly #appends = new InOrder();
  #error: unknown;

  constructor(options: { append: AppendFn; flushMs?: number }) {
    this.#append = options.append;
    this.#flushMs = options.flushMs ?? DEFAULT_DELTA_FLUSH_MS;
  }

  /**
   * `last`: the step's model answer is complete and this is the rest of its
   * text, appended by the flush that follows (with the answer, when that flush
   * defers), not at once.
   */
  push(step: number, text: string, options: { last?: boolean } = {}): void {
    if (text === '') return;
    if (step !== this.#step && this.#pending !== '') this.#enqueueFlush();
    this.#step = step;
    this.#pending += text;
    if (options.last === true) {
      this.#started = step;
      return;
    }
    if (this.#started !== step) {
      this.#started = step;
      this.#enqueueFlush();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#enqueueFlush();
    }, this.#flushMs);
  }

  /** Appends whatever is pending (with `options`, e.g. deferred with the answer) and waits for every earlier append. */
  flush(options?: AppendOptions): Promise<void> {
    this.#enqueueFlush(options);
    // Nothing pending and nothing on its way (every turn of a run that does not stream): no wait.
    if (!this.#appends.busy) return this.#error === undefined ? Promise.resolve() : Promise.reject(this.#error);
    return this.#appends.settled().then(() => {
      if (this.#error !== undefined) throw this.#error;
    });
  }

  #enqueueFlush(options?: AppendOptions): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#pending === '') return;
    const text = this.#pending;
    const step = this.#step;
    this.#pending = '';
    // Nothing on its way: started now, so the first text of a step reaches the store (and its
    // readers) while the model's stream is still being read, not after the rest of its chunk.
    void this.#appends.run(() =>
      this.#append([draft('assistant_delta', { step, text })], undefined, options).then(
        () => undefined,
        (error: unknown) => {
          this.#error ??= error;
        },
      ),
    );
  }
}
