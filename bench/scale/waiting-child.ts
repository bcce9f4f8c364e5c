// One process holding more and more runs parked at an approval: for each level
// of runs waiting, its memory (RSS before and after a full GC, the JS heap) and
// what it spends while they wait (CPU time over an idle window, timers alive,
// the handles that keep it running). Prints one JSON line per level, then
// approves one run and checks that it completes. Started by scale-bench.ts:
// `node --expose-gc bench/scale/waiting-child.ts --url … --path manager --store sqlite --levels 0,1000`.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { activeResources, liveTimers, startTimerCensus } from './timer-census.ts';
import type { PathKind, StoreKind } from './scale-setup.ts';

if (process.env['SCALE_NO_CENSUS'] !== '1') startTimerCensus();
const { openScaleSetup } = await import('./scale-setup.ts');

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    path: { type: 'string', default: 'manager' },
    store: { type: 'string', default: 'sqlite' },
    levels: { type: 'string', default: '0,1000' },
    'idle-ms': { type: 'string', default: '5000' },
    batch: { type: 'string', default: '200' },
    'settle-ms': { type: 'string', default: '500' },
  },
});
const path: PathKind = values.path === 'library' ? 'library' : 'manager';
const store: StoreKind = values.store === 'memory' ? 'memory' : 'sqlite';
const levels = (values.levels ?? '0').split(',').map(Number);
const idleMs = Number(values['idle-ms']);
/** Anonymous and file-backed resident memory (Linux: /proc/self/status), MB. */
function residentKinds(): { rssAnonMb?: number; rssFileMb?: number } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
    return { rssAnonMb: kb('RssAnon'), rssFileMb: kb('RssFile') + kb('RssShmem') };
  } catch {
    return {};
  }
}

const BATCH = Number(values.batch);
const settleMs = Number(values['settle-ms']);

const gc = globalThis.gc;
if (gc === undefined) throw new Error('waiting-child: run with --expose-gc');

const setup = await openScaleSetup({ url: values.url ?? '', store, path, concurrency: BATCH, tool: 'place_order' });
let parked = 0;
let first: { id: string; toolCallId: string } | undefined;
const parkStarted = performance.now();

async function park(count: number): Promise<void> {
  const ids = await Promise.all(
    Array.from({ length: count }, async () => {
      const run = await setup.start(`run=w${parked + Math.random()} steps=1 delay=0`);
      return run.status === 'waiting_approval' ? run : setup.settled(run.id);
    }),
  );
  for (const run of ids) {
    if (run.status !== 'waiting_approval' || run.pendingApproval === undefined)
      throw new Error(`run ${run.id} is ${run.status}, not waiting for an approval`);
    first ??= { id: run.id, toolCallId: run.pendingApproval.toolCallId };
  }
  parked += count;
}

for (const level of levels) {
  while (parked < level) await park(Math.min(BATCH, level - parked));
  // Whatever the parking left in flight settles first (SQLite's checkpoints, sockets going idle).
  await sleep(settleMs);
  const rssBefore = process.memoryUsage.rss();
  // The idle window first, with no collection forced: its CPU time includes whatever V8 does on its own meanwhile
  // (its memory reducer collects and hands memory back once allocation stops), and the RSS at its end is what a
  // process left alone shows.
  const timersBefore = liveTimers();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await sleep(idleMs);
  const spent = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  const rssIdle = process.memoryUsage.rss();
  const timersAfter = liveTimers();
  // Then the collection a process makes when memory runs short: what the runs themselves hold.
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const memory = process.memoryUsage();
  const report = {
    level,
    rssMb: rssBefore / 2 ** 20,
    rssAfterIdleMb: rssIdle / 2 ** 20,
    rssAfterGcMb: memory.rss / 2 ** 20,
    heapUsedMb: memory.heapUsed / 2 ** 20,
    heapTotalMb: memory.heapTotal / 2 ** 20,
    externalMb: memory.external / 2 ** 20,
    ...residentKinds(),
    cpuMsPerSecond: (spent.user + spent.system) / 1000 / seconds,
    timers: Math.max(timersBefore, timersAfter),
    resources: activeResources(),
    parkSeconds: (performance.now() - parkStarted) / 1000,
  };
  console.log(JSON.stringify(report));
}

// The runs still move on: approving one drives it to its end.
if (first !== undefined) {
  const input = { type: 'approval' as const, toolCallId: first.toolCallId, decision: 'approve' as const };
  const manager = setup.manager;
  const decided =
    manager === undefined
      ? await setup.toolgate.submitInput(first.id, input)
      : await manager.submitInput({}, first.id, input);
  const end = decided.status === 'completed' ? decided : await setup.settled(first.id);
  console.log(JSON.stringify({ resumed: end.status }));
}
await setup.close();
