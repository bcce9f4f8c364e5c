import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LatencyHistogram } from './latency-histogram.ts';

/** The nearest-rank percentile of the values, exactly. */
function exact(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] ?? Number.NaN;
}

const latencies = fc.array(
  fc.oneof(fc.integer({ min: 0, max: 600_000 }), fc.double({ min: 1, max: 1e6, noNaN: true })),
  {
    minLength: 1,
    maxLength: 300,
  },
);

describe('LatencyHistogram', () => {
  it('answers every percentile within 2% of the exact one, whatever the values', () => {
    fc.assert(
      fc.property(latencies, fc.double({ min: 0.01, max: 1, noNaN: true }), (values, q) => {
        const histogram = new LatencyHistogram();
        for (const value of values) histogram.add(value);
        const want = exact(values, q);
        const got = histogram.quantile(q) ?? Number.NaN;
        assert.ok(Math.abs(got - want) <= want * 0.02, `q=${q}: ${got} vs ${want}`);
      }),
    );
  });

  it('merges: histograms of parts answer as one of the whole', () => {
    fc.assert(
      fc.property(latencies, latencies, (a, b) => {
        const left = new LatencyHistogram();
        const right = new LatencyHistogram();
        const whole = new LatencyHistogram();
        a.forEach((v) => left.add(v));
        b.forEach((v) => right.add(v));
        [...a, ...b].forEach((v) => whole.add(v));
        left.merge(right);
        assert.deepEqual(left.figures(), whole.figures());
        assert.equal(left.count, a.length + b.length);
      }),
    );
  });

  it('gives figures with count, p50, p95 and the exact max; nothing but count when empty', () => {
    const histogram = new LatencyHistogram();
    assert.deepEqual(histogram.figures(), { count: 0 });
    for (let ms = 1; ms <= 100; ms++) histogram.add(ms);
    const figures = histogram.figures();
    assert.equal(figures.count, 100);
    assert.equal(figures.max, 100);
    assert.ok(Math.abs((figures.p50 ?? 0) - 50) <= 1, `p50 ${figures.p50}`);
    assert.ok(Math.abs((figures.p95 ?? 0) - 95) <= 1.9, `p95 ${figures.p95}`);
    histogram.add(0);
    histogram.add(Number.NaN);
    assert.equal(histogram.count, 101);
  });
});
