/**
 * Jobs started one after another, in the order asked: at once when none is on
 * its way (not a microtask later: a store that writes synchronously has
 * written before `run` returns), otherwise once the last one has settled,
 * whether it succeeded or failed. Used for a pass's commits and for streamed
 * deltas, whose order is the log's order.
 */
export class InOrder {
  #tail: Promise<unknown> = Promise.resolve();
  #onTheirWay = 0;

  readonly #settle = (): void => {
    this.#onTheirWay -= 1;
  };

  run<T>(job: () => Promise<T>): Promise<T> {
    const started = this.#onTheirWay === 0 ? job() : this.#tail.then(job);
    this.#onTheirWay += 1;
    // One promise per job for the order (it never rejects), not two.
    this.#tail = started.then(this.#settle, this.#settle);
    return started;
  }

  /** Whether a job asked for has not settled yet. */
  get busy(): boolean {
    return this.#onTheirWay > 0;
  }

  /** Settles once every job asked for so far has settled. */
  settled(): Promise<unknown> {
    return this.#tail;
  }
}
