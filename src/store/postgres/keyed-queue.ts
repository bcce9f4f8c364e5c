/**
 * Runs the tasks of one key one after another, in call order; tasks of
 * different keys run side by side. A failed task does not stop the next.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Resolves once no task is queued or running, including tasks queued meanwhile. */
  async drained(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all(this.#tails.values());
  }

  /** Keys with a task queued or running. */
  get size(): number {
    return this.#tails.size;
  }
}
