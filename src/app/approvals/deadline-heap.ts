/** A binary min-heap of deadlines, earliest first. */
export class DeadlineHeap<T> {
  readonly #items: { at: number; value: T }[] = [];

  get size(): number {
    return this.#items.length;
  }

  /** The earliest deadline, or undefined when empty. */
  peek(): number | undefined {
    return this.#items[0]?.at;
  }

  push(at: number, value: T): void {
    const items = this.#items;
    items.push({ at, value });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#at(parent) <= this.#at(i)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** Removes and returns every value whose deadline is at or before `now`, earliest first. */
  popDue(now: number): T[] {
    const due: T[] = [];
    while (this.#items.length > 0 && this.#at(0) <= now) {
      const top = this.#pop();
      if (top !== undefined) due.push(top);
    }
    return due;
  }

  #pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined) return undefined;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < items.length && this.#at(left) < this.#at(least)) least = left;
        if (right < items.length && this.#at(right) < this.#at(least)) least = right;
        if (least === i) break;
        this.#swap(i, least);
        i = least;
      }
    }
    return top.value;
  }

  #at(i: number): number {
    return this.#items[i]?.at ?? Number.POSITIVE_INFINITY;
  }

  #swap(i: number, j: number): void {
    const a = this.#items[i];
    const b = this.#items[j];
    if (a === undefined || b === undefined) return;
    this.#items[i] = b;
    this.#items[j] = a;
  }
}
