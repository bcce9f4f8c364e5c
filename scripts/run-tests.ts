// Runs every *.test.ts under src/, test/, examples/ and web/ with node's test runner,
// prints the spec report, and ends with one plain line "N passed, N failed".
// Usage: node scripts/run-tests.ts [--repeat N] [path-substring ...]   (substrings filter test files)
//   --repeat N (or TEST_REPEAT=N): run the files N times over; the last line counts every pass,
//   so a test that fails only now and then shows up.
//   TEST_ISOLATION=process: every file in a process of its own (see runOnce).
// A run that changes the checkout (a tracked file rewritten, a new file left behind) fails.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { globSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { emptyTally, runLane, type LaneTally } from './test-lane.ts';
import { longestFirst, readDurations, writeDurations } from './test-order.ts';
import { changedPaths, treeSnapshot } from './tree-changes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where compiled sources are kept between processes and runs (node_modules/ is ignored by git). */
const DEFAULT_COMPILE_CACHE = join(ROOT, 'node_modules', '.cache', 'toolgate-tests');
/** How long each file took last time, so the longest start first (see test-order.ts). */
const DURATIONS_FILE = join(DEFAULT_COMPILE_CACHE, 'durations.json');
const MAX_REPEAT = 100;
/**
 * The docs' screenshots, which the console's browser tests write with UPDATE_SCREENSHOTS=1 (a path in the checkout).
 */
const SCREENSHOTS_DIR = 'docs/screenshots/';

let parsed;
try {
  parsed = parseArgs({ options: { repeat: { type: 'string' } }, allowPositionals: true, strict: true });
} catch (error) {
  console.error(
    `${error instanceof Error ? error.message : String(error)}\nusage: ` +
      `node scripts/run-tests.ts [--repeat N] [path-substring ...]`,
  );
  process.exit(2);
}
const repeatText = parsed.values.repeat ?? process.env['TEST_REPEAT'] ?? '1';
const repeat = Number(repeatText);
if (!/^\d+$/.test(repeatText) || repeat < 1 || repeat > MAX_REPEAT) {
  console.error(
    `${parsed.values.repeat === undefined ? 'TEST_REPEAT' : '--repeat'} ${JSON.stringify(repeatText)}: ` +
      `expected how many times to run the tests, a whole number from 1 to ${MAX_REPEAT}`,
  );
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
const tally = emptyTally();
for (let pass = 1; pass <= repeat; pass++) {
  if (repeat > 1) process.stdout.write(`\n== pass ${pass} of ${repeat}\n`);
  await runOnce();
}
writeDurations(DURATIONS_FILE, tally.durations);

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
    tally.failed += 1;
    process.stdout.write(
      `\n✖ these files of the checkout changed during the run (a test must write to a temporary directory ` +
        `instead; screenshots only with UPDATE_SCREENSHOTS=1):\n${changed.map((p) => `  ${p}\n`).join('')}`,
    );
  }
}
process.stdout.write(`${tally.passed} passed, ${tally.failed} failed\n`);
process.exitCode = tally.failed > 0 || tally.passed === 0 ? 1 : 0;

/**
 * One pass over the files, in two lanes at once. The end-to-end files (test/e2e/) each
 * run in a process of their own, as many at a time as there are cores: they start
 * servers and wait for them. The other files (unit and contract tests, some 200) run one
 * after another in one process of their own per pass (scripts/in-process-lane.ts): a
 * process per file would cost each of them a Node start-up and a fresh load of the
 * modules it shares with the others, about half the CPU time of the lane. So a unit
 * test must leave the process as it found it (no global left patched, no change of
 * directory or environment). TEST_ISOLATION=process runs every file in a process of
 * its own (to tell whether a failure comes from another file's leftovers).
 */
async function runOnce(): Promise<void> {
  const allInProcesses = process.env['TEST_ISOLATION'] === 'process';
  const ownProcess = files.filter((f) => allInProcesses || f.startsWith('test/e2e/'));
  const shared = files.filter((f) => !ownProcess.includes(f));
  await Promise.all([
    runLane(ownProcess, { isolation: 'process', concurrency: Math.max(2, availableParallelism()) }, tally),
    runSharedLane(shared),
  ]);
}

/** Runs `laneFiles` in one child process (scripts/in-process-lane.ts) and adds its tally. */
async function runSharedLane(laneFiles: string[]): Promise<void> {
  if (laneFiles.length === 0) return;
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-test-lane-'));
  const tallyFile = join(dir, 'tally.json');
  try {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'in-process-lane.ts'), tallyFile, ...laneFiles], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    let lane: LaneTally;
    try {
      lane = JSON.parse(readFileSync(tallyFile, 'utf8')) as LaneTally;
    } catch {
      tally.failed += 1;
      process.stdout.write(
        `\n✖ the process running the unit and contract tests ended ` +
          `(${code ?? signal}) before it could count them: see its output above\n`,
      );
      return;
    }
    tally.passed += lane.passed;
    tally.failed += lane.failed;
    for (const [file, ms] of Object.entries(lane.durations)) tally.durations[file] = (tally.durations[file] ?? 0) + ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
