// `npm run bench -- scale`: toolgate with many runs in flight (bench/README.md,
// "The scale benchmark"). Runs parked at an approval — what they cost in
// memory and while they wait — and runs driven concurrently — each step's
// latency over the model's own. Each configuration is measured in a fresh
// process of its own; the model is a mock in another (mock-model.ts).
// BENCH_QUICK=1: fewer runs, shorter windows, saved as <date>-scale-quick.*.
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildChildren, runChild, startMockModel } from './scale-processes.ts';
import { saveScaleReport, type ScaleResults } from './scale-report.ts';
import { RESCAN_MARGIN_MS } from '../../src/app/approvals/approval-sweeper.ts';
import { BENCH_RESCAN_MS } from './scale-setup.ts';
import { scaleVerdicts, verdictLine, type LatencyRow, type Series, type WaitingRow } from './scale-targets.ts';

const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

interface Config {
  label: string;
  path: 'library' | 'manager';
  store: 'memory' | 'sqlite';
}

const WAITING: Config[] = [
  { label: 'server (RunManager), SQLite', path: 'manager', store: 'sqlite' },
  { label: 'server (RunManager), memory', path: 'manager', store: 'memory' },
  { label: 'library (toolgate.run), SQLite', path: 'library', store: 'sqlite' },
];
const LATENCY: Config[] = [
  { label: 'library, memory', path: 'library', store: 'memory' },
  { label: 'library, SQLite', path: 'library', store: 'sqlite' },
  { label: 'server (RunManager), SQLite', path: 'manager', store: 'sqlite' },
];

interface Plan {
  waitingLevels: number[];
  idleMs: number;
  latencyLevels: number[];
  delayMs: number;
  steps: number;
  runsPerWorker: number;
}

const FULL: Plan = {
  waitingLevels: [0, 1000, 2500, 5000, 10_000],
  idleMs: 5000,
  latencyLevels: [10, 100, 500, 1000],
  delayMs: 200,
  steps: 3,
  runsPerWorker: 2,
};
const QUICK: Plan = {
  ...FULL,
  waitingLevels: [0, 250, 1000],
  idleMs: 2000,
  latencyLevels: [10, 100],
  runsPerWorker: 1,
};
/** How long the model keeps an idle connection while runs are driven concurrently (about a minute at providers). */
const LATENCY_KEEP_ALIVE_MS = 60_000;
/** Long enough for the model's idle connections (kept 2 s by the mock) to close before the census. */
const SETTLE_MS = 3000;
/**
 * The server's configurations settle longer: a scan of the approvals runtime reads the runs changed since 5 s before
 * the previous scan (RESCAN_MARGIN_MS), so the scans list the last runs parked for up to two intervals
 * (BENCH_RESCAN_MS) after the parking; from then on the idle window sees what waiting runs cost, not their parking.
 */
const SERVER_SETTLE_MS = RESCAN_MARGIN_MS + 2 * BENCH_RESCAN_MS;

function loads(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
}

async function measure<Row>(label: string, run: () => Promise<Row[]>): Promise<Series<Row>> {
  try {
    return { label, rows: await run() };
  } catch (error) {
    return { label, rows: [], error: error instanceof Error ? error.message : String(error) };
  }
}

export async function runScaleBench(): Promise<{ name: string; lines: string[] }> {
  const quick = (process.env['BENCH_QUICK'] ?? '') !== '' && process.env['BENCH_QUICK'] !== '0';
  const plan = quick ? QUICK : FULL;
  const loadBefore = loads();
  await buildChildren();
  let mock = await startMockModel();
  const waiting: Series<WaitingRow>[] = [];
  const latency: Series<LatencyRow>[] = [];
  const resumed: Record<string, string | undefined> = {};
  try {
    for (const config of WAITING) {
      let status: string | undefined;
      const series = await measure<WaitingRow>(config.label, async () => {
        const rows = await runChild<WaitingRow | { resumed: string }>('waiting-child', [
          ...['--url', mock.url, '--path', config.path, '--store', config.store],
          ...['--levels', plan.waitingLevels.join(','), '--idle-ms', String(plan.idleMs)],
          ...['--settle-ms', String(config.path === 'manager' ? SERVER_SETTLE_MS : SETTLE_MS)],
        ]);
        const levels: WaitingRow[] = [];
        for (const row of rows) {
          if ('resumed' in row) status = row.resumed;
          else levels.push(row);
        }
        return levels;
      });
      resumed[config.label] = status;
      waiting.push(series);
    }
    mock.close();
    // A model keeping idle connections as providers do, so that a step slow to come does not cost a reconnect.
    mock = await startMockModel({ keepAliveMs: LATENCY_KEEP_ALIVE_MS });
    for (const config of LATENCY) {
      latency.push(
        await measure<LatencyRow>(config.label, () =>
          runChild<LatencyRow>('latency-child', [
            ...['--url', mock.url, '--path', config.path, '--store', config.store],
            ...['--levels', plan.latencyLevels.join(','), '--delay-ms', String(plan.delayMs)],
            ...['--steps', String(plan.steps), '--runs-per-worker', String(plan.runsPerWorker)],
          ]),
        ),
      );
    }
  } finally {
    mock.close();
  }
  const verdicts = scaleVerdicts({
    waiting,
    latency,
    resumed,
    waitingGoal: Math.max(...plan.waitingLevels),
    latencyGoal: Math.max(...plan.latencyLevels),
  });
  const results: ScaleResults = {
    date: new Date().toISOString().slice(0, 10),
    quick,
    machine:
      `Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}); load average ` +
      `(1 / 5 / 15 min) ${loadBefore} before, ${loads()} after: above the number of CPUs, the machine was shared.`,
    settings:
      `Waiting: runs parked ${plan.waitingLevels.join(', ')}, ${SETTLE_MS} ms to settle (the server's ` +
      `${SERVER_SETTLE_MS} ms, its approvals runtime scanning every ${BENCH_RESCAN_MS} ms), then an idle window of ` +
      `${plan.idleMs} ms. Driven: ${plan.latencyLevels.join(', ')} runs in flight, ${plan.steps} tool steps ` +
      `per run, the model answering after ${plan.delayMs} ms, ${plan.runsPerWorker} run(s) per slot.`,
    verdicts,
    waiting,
    latency,
  };
  const saved = await saveScaleReport({ dir: RESULTS_DIR, suffix: quick ? '-quick' : '', results });
  const lines = [
    ...verdicts.map(verdictLine),
    ...waiting.flatMap((s) => [
      `${s.label}${s.error === undefined ? '' : ` FAILED: ${s.error}`}`,
      ...s.rows.map(
        (r) =>
          `  ${String(r.level).padStart(6)} waiting: RSS ${r.rssMb.toFixed(0)} MB, ` +
          `after idle ${r.rssAfterIdleMb.toFixed(0)} MB, after GC ${r.rssAfterGcMb.toFixed(0)} ` +
          `MB, heap ${r.heapUsedMb.toFixed(1)} MB, CPU ${r.cpuMsPerSecond.toFixed(2)} ms/s, timers ${r.timers}`,
      ),
    ]),
    ...latency.flatMap((s) => [
      `${s.label}${s.error === undefined ? '' : ` FAILED: ${s.error}`}`,
      ...s.rows.map(
        (r) =>
          `  ${String(r.level).padStart(5)} in flight: step p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ` +
          `CPU ${r.cpuMsPerStep.toFixed(2)} ms/step, ${(r.cpuBusy * 100).toFixed(0)} % of a core`,
      ),
    ]),
    results.machine,
    `saved: ${saved}`,
  ];
  return { name: 'Scale: many runs in flight', lines };
}
