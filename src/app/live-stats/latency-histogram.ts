import type { LatencyFigures } from '../../core/index.ts';

/** Bucket i holds values in (GROWTH^(i-1), GROWTH^i]: a value read back from its bucket is within 1% of it. */
const GROWTH = 1.02;
const LOG_GROWTH = Math.log(GROWTH);
/** The value a bucket stands for: the point of (lower, upper] whose relative distance to both ends is the same. */
const MIDPOINT = 2 / (1 + GROWTH);

/**
 * A latency distribution in log buckets (relative error ≤ 1%, so percentiles within 2% of the exact ones), mergeable:
 * the live statistics keep one per key and time bucket and merge those of the window. Zero and negative values share
 * one bucket of their own.
 */
export class LatencyHistogram {
  readonly #buckets = new Map<number, number>();
  #zeros = 0;
  #count = 0;
  #max: number | undefined;

  get count(): number {
    return this.#count;
  }

  add(value: number, times = 1): void {
    if (!Number.isFinite(value) || times <= 0) return;
    if (value <= 0) this.#zeros += times;
    else {
      const index = Math.ceil(Math.log(value) / LOG_GROWTH);
      this.#buckets.set(index, (this.#buckets.get(index) ?? 0) + times);
    }
    this.#count += times;
    this.#max = this.#max === undefined ? value : Math.max(this.#max, value);
  }

  merge(other: LatencyHistogram): void {
    for (const [index, n] of other.#buckets) this.#buckets.set(index, (this.#buckets.get(index) ?? 0) + n);
    this.#zeros += other.#zeros;
    this.#count += other.#count;
    if (other.#max !== undefined) this.#max = this.#max === undefined ? other.#max : Math.max(this.#max, other.#max);
  }

  /**
   * The nearest-rank percentile (the value at rank ceil(q × count) in ascending order), as its bucket stands for it;
   * undefined when empty.
   */
  quantile(q: number): number | undefined {
    if (this.#count === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * this.#count));
    if (rank <= this.#zeros) return 0;
    let seen = this.#zeros;
    const indexes = [...this.#buckets.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      seen += this.#buckets.get(index) ?? 0;
      if (seen >= rank) return Math.min(GROWTH ** index * MIDPOINT, this.#max ?? Infinity);
    }
    return this.#max;
  }

  figures(): LatencyFigures {
    if (this.#count === 0) return { count: 0 };
    return {
      count: this.#count,
      p50: round(this.quantile(0.5) ?? 0),
      p95: round(this.quantile(0.95) ?? 0),
      max: round(this.#max ?? 0),
    };
  }
}

/** Two decimals are more than a 2% bound needs, and keep the JSON short. */
function round(value: number): number {
  return Math.round(value * 100) / 100;
}
