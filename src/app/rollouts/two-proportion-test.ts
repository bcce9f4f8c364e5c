/** Successes `x` out of `n` trials, for each of two groups. */
export interface Proportion {
  x: number;
  n: number;
}

/**
 * The two-proportion z-test (pooled): how likely a difference at least this large between the two rates would be if
 * both groups had the same rate. Undefined when a group is empty or the pooled rate is 0 or 1 (nothing to compare).
 */
export function twoProportionTest(a: Proportion, b: Proportion): { z: number; pValue: number } | undefined {
  if (a.n <= 0 || b.n <= 0) return undefined;
  const pooled = (a.x + b.x) / (a.n + b.n);
  const spread = Math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n));
  if (spread === 0) return undefined;
  const z = (a.x / a.n - b.x / b.n) / spread;
  return { z, pValue: Math.min(1, 2 * (1 - normalCdf(Math.abs(z)))) };
}

/** Φ(x) through erf (Abramowitz and Stegun 7.1.26: error under 1.5e-7, plenty for a p-value printed to 3 places). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
