/**
 * Random draws that depend only on a seed: the live router draws from each arm's Beta posterior with a generator
 * seeded by the run id and the arm, so a resumed (or replayed) run decides exactly as it did the first time.
 */
export interface SeededDraws {
  /** Uniform in (0, 1). */
  uniform(): number;
  /** From Beta(alpha, beta), both > 0. */
  beta(alpha: number, beta: number): number;
}

export function seededDraws(seed: string): SeededDraws {
  const next = mulberry32(hash32(seed));
  // 0 would break log() below: the generator's 2^-32 steps start one step in.
  const uniform = (): number => (next() * 0xffff_fffe + 1) / 0x1_0000_0000;
  const normal = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const gamma = (shape: number): number => {
    // Shape below 1: Gamma(shape + 1) scaled by U^(1/shape) (Marsaglia and Tsang's own boost).
    if (shape < 1) return gamma(shape + 1) * Math.pow(uniform(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = normal();
      const v0 = 1 + c * x;
      if (v0 <= 0) continue;
      const v = v0 * v0 * v0;
      const u = uniform();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  };
  return {
    uniform,
    beta(alpha, beta) {
      const x = gamma(alpha);
      const y = gamma(beta);
      return x + y === 0 ? 0.5 : x / (x + y);
    },
  };
}

/** A 32-bit hash of a string (FNV-1a, then avalanched): seeds that differ in one character start far apart. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Mulberry32: small, fast, and good enough for sampling (not for secrets). */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}
