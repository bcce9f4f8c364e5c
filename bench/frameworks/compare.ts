// `npm run bench -- frameworks`: toolgate side by side with the frameworks
// people would otherwise pick, on identical work. The mock model runs in a
// process of its own; every runner × workload runs in a fresh child process,
// runners interleaved within each repetition (the orders of runners and of
// workloads rotated from one to the next) so that they share the machine's drift.
// Each runner is measured paired with a baseline of its own, and each toolgate
// runner with the loop on undici too (measure-grouped.ts, process-group.ts):
// all processes of the group alive, their runs measured in blocks taken in
// turn, so that each ratio compares moments the machine was alike for both.
// BENCH_QUICK=1: few runs, one repetition. BENCH_RUNNERS=a,b: only runners
// whose id contains a or b (the baseline always runs). BENCH_REPS=N: repetitions.
// BENCH_PAIRED=0: each runner against the baseline run alone in its repetition.
// A runner whose service is missing (toolgate-http-pg without a PostgreSQL) is
// skipped, and shown so, after one check made before any child starts.
import { readFileSync } from 'node:fs';
import { arch, cpus, totalmem, type } from 'node:os';
import { join, relative } from 'node:path';
import { POSTGRES_URL } from '../postgres-url.ts';
import { BENCH_DIR, ensureBenchDeps, installedVersion } from './bench-deps.ts';
import { buildHarness, harnessFrom } from './harness-build.ts';
import {
  checkPostgres,
  createThrowawayDatabase,
  DATABASE_URL_ENV,
  type ThrowawayDatabase,
} from './postgres-database.ts';
import { measureGrouped } from './measure-grouped.ts';
import { runChild, startMockProcess, type ChildOutcome } from './processes.ts';
import { reportLines, saveReport, type ReportInput, type SkippedRunner } from './report.ts';
import { BASELINE_ID, BASELINE_UNDICI_ID, RUNNERS, type RunnerEntry } from './runners-list.ts';
import { aggregate, withUndiciLoopRatios } from './stats.ts';
import { ensureToolgateBuilt, toolgateDependencyVersion, toolgateFrom } from './toolgate-package.ts';
import { judgeTargets } from './targets.ts';
import { workloads as allWorkloads, type Workload } from './workload.ts';

const DEFAULT_REPETITIONS = 3;
/**
 * Repetitions stop early rather than run past this, counted from the start of
 * the process: `npm run bench` runs the other benchmarks first, and the whole
 * must stay under 15 minutes.
 */
const BUDGET_MS = 13.5 * 60_000;
const CHILD_TIMEOUT_MS = { quick: 90_000, full: 240_000 };

function selectRunners(filter: string | undefined): RunnerEntry[] {
  if (filter === undefined || filter.trim() === '') return RUNNERS;
  const terms = filter
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  for (const term of terms) {
    if (!RUNNERS.some((r) => r.id.includes(term)))
      throw new Error(`BENCH_RUNNERS: no runner matches "${term}"; runners: ${RUNNERS.map((r) => r.id).join(', ')}`);
  }
  return RUNNERS.filter((r) => r.id === BASELINE_ID || terms.some((t) => r.id.includes(t)));
}

/**
 * The runners whose service is missing, each with the reason, and the versions
 * of the services found. Asked once, before any child, so that a missing
 * PostgreSQL skips its runner instead of failing it once per workload.
 */
async function checkServices(
  runners: RunnerEntry[],
): Promise<{ skipped: SkippedRunner[]; versions: [string, string][] }> {
  const needing = runners.filter((r) => r.needs === 'postgres');
  if (needing.length === 0) return { skipped: [], versions: [] };
  const check = await checkPostgres(POSTGRES_URL);
  if (check.ok) return { skipped: [], versions: [['PostgreSQL (server)', check.version]] };
  return { skipped: needing.map((r) => ({ runner: r.id, reason: check.reason })), versions: [] };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One runner on one workload: alone (the baseline's own row), or in a group
 * with the baseline (and the undici loop, for a toolgate runner) measured in
 * blocks taken in turn with it (measureGrouped), whose times the runner's
 * ratios are taken against. A runner that needs PostgreSQL gets an empty
 * database of its own, created before its process starts (so not counted in
 * its start-up) and dropped once the process has ended, however it ended, a
 * timeout included; a database that could not be dropped is noted.
 */
async function runOne(
  runner: RunnerEntry,
  options: { url: string; workload: Workload; timeoutMs: number; paired: boolean },
  notes: string[],
): Promise<ChildOutcome> {
  const run = async (env: Record<string, string> | undefined): Promise<ChildOutcome> => {
    const member = { runner: runner.id, ...(env === undefined ? {} : { env }) };
    if (!options.paired || runner.id === BASELINE_ID) return runChild({ ...options, ...member });
    return measureGrouped(member, options);
  };
  if (runner.needs !== 'postgres') return run(undefined);
  let database: ThrowawayDatabase;
  try {
    database = await createThrowawayDatabase(POSTGRES_URL);
  } catch (error) {
    return {
      ok: false,
      runner: runner.id,
      workload: options.workload.id,
      error: `could not create its database: ${errorText(error)}`,
    };
  }
  try {
    return await run({ [DATABASE_URL_ENV]: database.url });
  } finally {
    await database
      .drop()
      .catch((error: unknown) => notes.push(`could not drop the database ${database.name}: ${errorText(error)}`));
  }
}

function localDate(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function machine(): string {
  const cores = cpus();
  return (
    `Node ${process.version}, ${type()} ${arch()}, ${cores.length} cores ` +
    `(${cores[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB memory`
  );
}

function versions(runners: RunnerEntry[], services: [string, string][]): [string, string][] {
  const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const names = [...new Set([...runners.flatMap((r) => r.packages), 'zod'])];
  return [
    [`toolgate (${toolgateFrom() === 'src' ? '../src, TypeScript' : '../dist, built'})`, root.version],
    ['the harness', harnessFrom() === 'ts' ? 'TypeScript, types stripped at load' : 'built to JavaScript'],
    ['node', process.version],
    // The HTTP client of toolgate's model calls, and of the loop written on it (baseline-undici).
    ['undici (as toolgate resolves it)', toolgateDependencyVersion('undici')],
    ...services,
    ...names.map((n): [string, string] => [n, installedVersion(n)]),
  ];
}

/** Drops the per-run arrays: the .json keeps every child's summary, not every sample. */
function summary(outcome: ChildOutcome): unknown {
  if (!outcome.ok) return outcome;
  const { durationsMs, firstTokenMs, pairedBaseline, ...rest } = outcome;
  return {
    ...rest,
    measuredRuns: durationsMs.length,
    ...(firstTokenMs === undefined ? {} : { firstTokenSamples: firstTokenMs.length }),
    ...(pairedBaseline === undefined ? {} : { pairedBaselineWallMs: pairedBaseline.wallMs }),
  };
}

export async function runFrameworksBench(): Promise<{ name: string; lines: string[] }> {
  const started = performance.now();
  const quick = (process.env['BENCH_QUICK'] ?? '') !== '' && process.env['BENCH_QUICK'] !== '0';
  const runners = selectRunners(process.env['BENCH_RUNNERS']);
  const filtered = runners.length < RUNNERS.length;
  const repetitions = Number(process.env['BENCH_REPS'] ?? (quick ? 1 : DEFAULT_REPETITIONS));
  // BENCH_PAIRED=0: each runner against the baseline of its repetition, measured seconds apart (the old way).
  const paired = process.env['BENCH_PAIRED'] !== '0';
  if (!Number.isInteger(repetitions) || repetitions < 1)
    throw new Error(`BENCH_REPS must be a positive integer, got "${process.env['BENCH_REPS'] ?? ''}"`);
  const services = await checkServices(runners);
  for (const s of services.skipped) console.log(`frameworks: ${s.runner} skipped: ${s.reason}`);
  const active = runners.filter((r) => !services.skipped.some((s) => s.runner === r.id));
  if (active.some((r) => r.file.startsWith('./anchors/'))) ensureBenchDeps();
  if (active.some((r) => r.id.startsWith('toolgate'))) ensureToolgateBuilt((line) => console.log(line));
  await buildHarness();
  const workloads = allWorkloads(quick);
  const timeoutMs = quick ? CHILD_TIMEOUT_MS.quick : CHILD_TIMEOUT_MS.full;
  const mock = await startMockProcess();
  const outcomes: Map<string, ChildOutcome>[] = [];
  const notes: string[] = [];
  try {
    console.log(
      `frameworks: mock model at ${mock.url}; ${active.length} runners × ` +
        `${workloads.length} workloads × ${repetitions} repetition(s), each in its own process`,
    );
    let repMs = 0;
    for (let rep = 0; rep < repetitions; rep++) {
      // From this comparison's start (the install included), not the process's: `npm run bench` may have run
      // other benchmarks before it in the same process.
      if (rep > 0 && performance.now() - started + repMs > BUDGET_MS) {
        notes.push(`stopped after ${rep} of ${repetitions} repetitions to stay within the time budget`);
        console.log(`frameworks: ${notes[notes.length - 1] ?? ''}`);
        break;
      }
      const repStarted = performance.now();
      const byKey = new Map<string, ChildOutcome>();
      outcomes.push(byKey);
      // Rotating both orders spreads slow and fast moments of the machine over
      // runners and workloads (10 tools against 1 compares two workloads).
      const workloadOrder = [...workloads.slice(rep % workloads.length), ...workloads.slice(0, rep % workloads.length)];
      for (const [w, workload] of workloadOrder.entries()) {
        const shift = (rep + w) % active.length;
        const order = [...active.slice(shift), ...active.slice(0, shift)];
        process.stdout.write(`  [${rep + 1}/${repetitions}] ${workload.id}:`);
        for (const runner of order) {
          const t = performance.now();
          const outcome = await runOne(runner, { url: mock.url, workload, timeoutMs, paired }, notes);
          byKey.set(`${runner.id} ${workload.id}`, outcome);
          process.stdout.write(
            ` ${runner.id} ${outcome.ok ? `${((performance.now() - t) / 1000).toFixed(1)}s` : 'FAILED'}`,
          );
        }
        process.stdout.write('\n');
      }
      repMs = performance.now() - repStarted;
    }
  } finally {
    await mock.close();
  }
  const cells = withUndiciLoopRatios(
    aggregate({
      outcomes,
      runners: active.map((r) => r.id),
      workloads: workloads.map((w) => w.id),
      baseline: BASELINE_ID,
    }),
    BASELINE_UNDICI_ID,
  );
  const elapsedS = (performance.now() - started) / 1000;
  const input: ReportInput = {
    date: localDate(new Date()),
    machine: machine(),
    quick,
    repetitions: outcomes.length,
    elapsedS,
    versions: versions(active, services.versions),
    runners,
    skipped: services.skipped,
    workloads,
    cells,
    verdicts: judgeTargets(cells, BASELINE_ID),
    paired,
  };
  const lines = [...reportLines(input), ...notes.map((n) => `Note: ${n}`)];
  const suffix = `${quick ? '-quick' : ''}${filtered ? '-partial' : ''}`;
  const raw = outcomes.map((byKey) => [...byKey.values()].map(summary));
  const saved = saveReport({ dir: join(BENCH_DIR, 'results'), suffix, input, lines, raw });
  lines.push(
    `Saved: ${relative(process.cwd(), saved)} (and .json). Elapsed: ` +
      `${elapsedS.toFixed(0)} s, the bench package's install included.`,
  );
  return { name: 'Frameworks comparison', lines };
}

if (import.meta.main) {
  const report = await runFrameworksBench();
  console.log(`\n${report.lines.join('\n')}`);
}
