// Runs every *.test.ts under src/, test/, examples/ and web/ with node's test runner,
// prints the spec report, and ends with one plain line "N passed, N failed".
// Usage: node scripts/run-tests.ts [--repeat N] [path-substring ...]   (substrings filter test files)
//   --repeat N (or TEST_REPEAT=N): run the files N times over; the last line counts every pass,
//   so a test that fails only now and then shows up.
// A run that changes the checkout (a tracked file rewritten, a new file left behind) fails.
import { globSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { longestFirst, readDurations, writeDurations, type FileDurations } from './test-order.ts';
import { changedPaths, treeSnapshot } from './tree-changes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where compiled sources are kept between processes and runs (node_modules/ is ignored by git). */
const DEFAULT_COMPILE_CACHE = join(ROOT, 'node_modules', '.cache', 'toolgate-tests');
/** How long each file took last time, so the longest start first (see test-order.ts). */
const DURATIONS_FILE = join(DEFAULT_COMPILE_CACHE, 'durations.json');
const MAX_REPEAT = 100;
/** The docs' screenshots, which the console's browser tests write with UPDATE_SCREENSHOTS=1 (a path in the checkout). */
const SCREENSHOTS_DIR = 'docs/screenshots/';

let parsed;
try {
  parsed = parseArgs({ options: { repeat: { type: 'string' } }, allowPositionals: true, strict: true });
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\nusage: node scripts/run-tests.ts [--repeat N] [path-substring ...]`);
  process.exit(2);
}
const repeatText = parsed.values.repeat ?? process.env['TEST_REPEAT'] ?? '1';
const repeat = Number(repeatText);
if (!/^\d+$/.test(repeatText) || repeat < 1 || repeat > MAX_REPEAT) {
  console.error(`${parsed.values.repeat === undefined ? 'TEST_REPEAT' : '--repeat'} ${JSON.stringify(repeatText)}: expected how many times to run the tests, a whole number from 1 to ${MAX_REPEAT}`);
  process.exit(2);
}

const filters = parsed.positionals;
const files = longestFirst(
  ['src', 'test', 'examples', 'web']
    .flatMap((dir) => globSync(`${dir}/**/*.test.ts`))
    .filter((f) => !f.includes('node_modules'))
    .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s))),
  readDurations(DURATIONS_FILE),
);

if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}

// Commands under test record runs in the user's data directory by default:
// point it at a folder of this test run, never at the real one.
if (process.env['TOOLGATE_HOME'] === undefined) {
  process.env['TOOLGATE_HOME'] = mkdtempSync(join(tmpdir(), 'toolgate-test-home-'));
  process.on('exit', () => rmSync(process.env['TOOLGATE_HOME'] ?? '', { recursive: true, force: true }));
}

// Hundreds of Node processes start during a run (test files, `toolgate` commands, MCP
// servers), each compiling the same sources: Node's compile cache keeps what one compiled
// (types stripped, V8 code) for the next, and a `toolgate` command starts in about half
// the CPU time.
if (process.env['NODE_COMPILE_CACHE'] === undefined) {
  mkdirSync(DEFAULT_COMPILE_CACHE, { recursive: true });
  process.env['NODE_COMPILE_CACHE'] = DEFAULT_COMPILE_CACHE;
}
enableCompileCache(process.env['NODE_COMPILE_CACHE']);

const before = treeSnapshot(ROOT);
let passed = 0;
let failed = 0;
const durations: FileDurations = {};
for (let pass = 1; pass <= repeat; pass++) {
  if (repeat > 1) process.stdout.write(`\n== pass ${pass} of ${repeat}\n`);
  await runOnce();
}
writeDurations(DURATIONS_FILE, durations);

if (before !== undefined) {
  const after = treeSnapshot(ROOT);
  let changed = after === undefined ? [] : changedPaths(before, after);
  if (process.env['UPDATE_SCREENSHOTS'] === '1') {
    // Asked for: the console's browser tests rewrite the docs' screenshots.
    const shots = changed.filter((p) => p.startsWith(SCREENSHOTS_DIR));
    if (shots.length > 0) process.stdout.write(`\nscreenshots written:\n${shots.map((p) => `  ${p}\n`).join('')}`);
    changed = changed.filter((p) => !p.startsWith(SCREENSHOTS_DIR));
  }
  if (changed.length > 0) {
    failed += 1;
    process.stdout.write(
      `\n✖ these files of the checkout changed during the run (a test must write to a temporary directory instead; screenshots only with UPDATE_SCREENSHOTS=1):\n${changed.map((p) => `  ${p}\n`).join('')}`,
    );
  }
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;

async function runOnce(): Promise<void> {
  const stream = run({
    files,
    concurrency: Math.max(2, availableParallelism()),
    timeout: Number(process.env['TEST_TIMEOUT_MS'] ?? 180_000),
  });
  stream.on('test:pass', (data) => {
    if (data.details.type !== 'suite' && data.skip === undefined && data.todo === undefined) passed += 1;
  });
  stream.on('test:fail', (data) => {
    if (data.details.type !== 'suite') failed += 1;
  });
  stream.on('test:complete', (data) => {
    if (data.nesting !== 0 || data.file === undefined) return;
    const file = relative(process.cwd(), data.file);
    durations[file] = (durations[file] ?? 0) + data.details.duration_ms;
  });
  const report = stream.compose(spec);
  report.pipe(process.stdout, { end: false });
  await new Promise<void>((resolve) => report.once('end', resolve));
  // Let the spec reporter's summary reach stdout before the next line.
  await new Promise<void>((resolve) => setImmediate(resolve));
}
