// Runs driven concurrently: for each level of runs in flight, that many runs
// kept in flight (a run that ends is followed by another), each `steps` tool steps (`lookup`, which reads and needs no
// approval) against a model that takes `delay` ms per call. The mock measures
// each step's latency on its own clock (mock-model.ts: from the end of one
// answer to the arrival of the run's next request), so the model's own time
// is not in it. Prints one JSON line per level. Started by scale-bench.ts:
// `node bench/scale/latency-child.ts --url … --path library --store memory --levels 10,100`.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openScaleSetup, type PathKind, type StoreKind } from './scale-setup.ts';
import { percentile } from './percentile.ts';
import { runQueueWaitMs } from './run-queue.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    path: { type: 'string', default: 'library' },
    store: { type: 'string', default: 'memory' },
    levels: { type: 'string', default: '10,100' },
    'delay-ms': { type: 'string', default: '100' },
    steps: { type: 'string', default: '3' },
    'runs-per-worker': { type: 'string', default: '2' },
    // Before each level, as many runs in flight once, not measured: code compiled, connections open.
    'warm-up': { type: 'string', default: 'level' },
  },
});
const url = values.url ?? '';
const path: PathKind = values.path === 'manager' ? 'manager' : 'library';
const store: StoreKind = values.store === 'sqlite' ? 'sqlite' : 'memory';
const levels = (values.levels ?? '10').split(',').map(Number);
const delayMs = Number(values['delay-ms']);
const steps = Number(values.steps);
const runsPerWorker = Number(values['runs-per-worker']);
const warmEachLevel = values['warm-up'] === 'level';
const mockRoot = url.replace(/\/v1$/, '');

const setup = await openScaleSetup({ url, store, path, concurrency: Math.max(...levels), tool: 'lookup' });

interface MockFigures {
  gaps: number[];
  lateness: number[];
  loop: { p99: number; max: number };
  runQueueShare: number;
  connections: number;
}

async function gaps(): Promise<MockFigures> {
  return (await (await fetch(`${mockRoot}/gaps`)).json()) as MockFigures;
}

/** This process's event-loop delay over a level: how long a ready step waited for the loop. */
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

let next = 0;
/** One run, start to end; resolves with its wall time (ms). */
async function oneRun(): Promise<number> {
  const started = performance.now();
  const run = await setup.start(`run=r${++next} steps=${steps} delay=${delayMs}`);
  const end = run.status === 'completed' ? run : await setup.settled(run.id);
  if (end.status !== 'completed') throw new Error(`run ${end.id} ended ${end.status}: ${JSON.stringify(end.error)}`);
  return performance.now() - started;
}

/**
 * `inFlight` runs kept in flight: as many workers, each running `perWorker` runs back to back, the workers' first runs
 * spread over one model call so that their steps do not all fall at the same moment. Resolves with each run's wall.
 */
async function keep(inFlight: number, perWorker: number): Promise<number[]> {
  const walls: number[] = [];
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      await sleep((worker / inFlight) * delayMs);
      for (let i = 0; i < perWorker; i++) walls.push(await oneRun());
    }),
  );
  return walls;
}

// Warm-up: code compiled, connections open, the store's first pages read.
await keep(Math.min(50, Math.max(...levels)), 2);
await gaps();
for (const level of levels) {
  if (warmEachLevel) {
    await keep(level, 1);
    await gaps();
  }
  loop.reset();
  const waitedBefore = runQueueWaitMs() ?? 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const walls = await keep(level, runsPerWorker);
  const wallMs = performance.now() - started;
  const spent = process.cpuUsage(cpu);
  const waited = (runQueueWaitMs() ?? 0) - waitedBefore;
  const mock = await gaps();
  const measured = mock.gaps.sort((a, b) => a - b);
  const late = mock.lateness.sort((a, b) => a - b);
  const modelMs = (steps + 1) * delayMs;
  walls.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      level,
      steps: measured.length,
      p50: percentile(measured, 0.5),
      p99: percentile(measured, 0.99),
      max: measured.at(-1) ?? 0,
      // A run's wall time beyond its model calls' own: its start and its end count too.
      runOverheadP99: percentile(walls, 0.99) - modelMs,
      cpuMsPerStep: (spent.user + spent.system) / 1000 / Math.max(1, measured.length),
      // Share of one core the process used: near 100 %, steps wait for the event loop.
      cpuBusy: (spent.user + spent.system) / 1000 / wallMs,
      wallMs,
      // Cores the process would need to keep pace with the model: CPU per model call × calls per second were
      // every step free (runs in flight / the model's delay). Above 1, one event loop cannot: steps queue.
      coresNeeded: ((spent.user + spent.system) / 1000 / Math.max(1, walls.length * (steps + 1))) * (level / delayMs),
      // Share of the wall time the process was ready to run but waited for a CPU (the machine's other work).
      runQueueShare: waited / wallMs,
      // This process's event-loop delay: a step ready to go waited this long for the loop (p99 and max, ms).
      loopP99: loop.percentile(99) / 1e6,
      loopMax: loop.max / 1e6,
      // The mock's own: how late its answers' timers fired, its event-loop delay, its wait for a CPU, and
      // the connections opened to it during the level (steady state: none).
      mockLateP99: percentile(late, 0.99),
      mockLoopP99: mock.loop.p99,
      mockRunQueueShare: mock.runQueueShare,
      connections: mock.connections,
      rssMb: process.memoryUsage.rss() / 2 ** 20,
    }),
  );
}
await setup.close();
