// `npm run bench`: every benchmark, each printing ratios against a baseline
// measured in the same run (this machine may be shared and noisy) plus absolute
// figures for context. `npm run bench -- store` runs only names containing "store";
// `npm run bench -- frameworks` only the comparison with other agent frameworks
// (bench/README.md).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface BenchReport {
  name: string;
  lines: string[];
}

const BENCHES: { id: string; file: string; fn: string }[] = [
  { id: 'parsing', file: './parsing/parsing-bench.ts', fn: 'runParsingBench' },
  { id: 'store', file: './store/store-bench.ts', fn: 'runStoreBench' },
  { id: 'postgres', file: './store/postgres-bench.ts', fn: 'runPostgresBench' },
  { id: 'sse', file: './server/sse-bench.ts', fn: 'runSseBench' },
  { id: 'fanout', file: './server/fanout-bench.ts', fn: 'runFanoutBench' },
  { id: 'loop', file: './loop/loop-bench.ts', fn: 'runLoopBench' },
  { id: 'cli', file: './cli/startup-bench.ts', fn: 'runStartupBench' },
  { id: 'scale', file: './scale/scale-bench.ts', fn: 'runScaleBench' },
  // Installs the bench package (bench/package.json: the frameworks compared) first when it is missing or stale.
  { id: 'frameworks', file: './frameworks/compare.ts', fn: 'runFrameworksBench' },
];

const filters = process.argv.slice(2);
let failed = 0;
for (const bench of BENCHES) {
  if (filters.length > 0 && !filters.some((f) => bench.id.includes(f))) continue;
  const path = fileURLToPath(new URL(bench.file, import.meta.url));
  if (!existsSync(path)) {
    console.log(`\n== ${bench.id}: not present (${bench.file})`);
    continue;
  }
  try {
    const mod = (await import(bench.file)) as Record<string, () => Promise<BenchReport>>;
    const fn = mod[bench.fn];
    if (fn === undefined) throw new Error(`${bench.file} does not export ${bench.fn}`);
    const started = performance.now();
    const report = await fn();
    console.log(`\n== ${report.name}  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    for (const line of report.lines) console.log(`  ${line}`);
  } catch (error) {
    failed++;
    console.error(
      `\n== ${bench.id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  }
}
process.exitCode = failed > 0 ? 1 : 0;
