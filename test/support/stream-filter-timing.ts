// Measures how the stream filter's time grows with the length of a reply, in a
// process of its own: in a test process that has run hundreds of other tests,
// garbage collection of their heap lands in the longer runs and skews the
// ratio. Prints {unit: [ratios]} as JSON for the units given as arguments.
import { createStreamFilter } from '../../src/parsing/stream-filter.ts';

const KB = 1024;
const OPTIONS = { tools: ['get_weather'] };
/** Linear: 8; quadratic (the text so far read again on every delta): 64. */
export const LINEAR_BOUND = 24;

/** Least time of three rounds of streaming `size` characters of `unit` in 1 KB deltas. */
function timeOf(unit: string, size: number): number {
  const text = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  let best = Infinity;
  for (let round = 0; round < 3; round += 1) {
    const start = performance.now();
    const filter = createStreamFilter(OPTIONS);
    for (let i = 0; i < text.length; i += KB) filter.push(text.slice(i, i + KB));
    filter.end();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** The ratio of 256 KB to 32 KB, measured again (at most three times) while it is above the bound. */
export function ratiosOf(unit: string): number[] {
  timeOf(unit, 32 * KB);
  const ratios: number[] = [];
  for (let attempt = 0; attempt < 3 && !ratios.some((r) => r < LINEAR_BOUND); attempt += 1) {
    ratios.push(timeOf(unit, 256 * KB) / Math.max(timeOf(unit, 32 * KB), 0.5));
  }
  return ratios;
}

if (import.meta.main) {
  const units = JSON.parse(process.argv[2] ?? '[]') as string[];
  process.stdout.write(JSON.stringify(Object.fromEntries(units.map((unit) => [unit, ratiosOf(unit)]))));
}
