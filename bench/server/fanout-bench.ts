// `npm run bench -- fanout`: toolgate's HTTP server as several instances on
// one PostgreSQL database, each part in a process of its own (servers,
// subscribers, client, mock model), on a throwaway database dropped at the end.
//  1. SSE fan-out: 5,000 subscribers of one run's events (GET
//     /v1/runs/{id}/events) on one instance, then split across two (events
//     appended through the first, so the second hears them by LISTEN/NOTIFY):
//     every subscriber must get every event, in order (violations: gaps,
//     duplicates, reorders), with the append → arrival latency.
//  2. Throughput: runs/s with many runs in flight (the frameworks bench's
//     workload: five tool steps and an answer, the mock model in its own
//     process) driven through one instance, then split across two.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { ClientReply, ClientRequest } from '../frameworks/http-client-protocol.ts';
import { checkPostgres, createThrowawayDatabase } from '../frameworks/postgres-database.ts';
import { startMockProcess } from '../frameworks/processes.ts';
import { PROMPT } from '../frameworks/workload.ts';
import { POSTGRES_URL } from '../postgres-url.ts';
import { startClient, startServer, startSubscribers, type ServerProcess } from './fanout-processes.ts';

const SUBSCRIBERS = Number(process.env['BENCH_FANOUT_SUBSCRIBERS'] ?? 5000);
/** Subscriber processes: the client side of 5,000 sockets is split so that one event loop does not queue them all. */
const SUBSCRIBER_PROCESSES = 2;
const EVENTS = 100;
const GAP_MS = 20;
const IN_FLIGHT = Number(process.env['BENCH_FANOUT_IN_FLIGHT'] ?? 50);
const WINDOW_MS = Number(process.env['BENCH_FANOUT_WINDOW_MS'] ?? 6000);
const ROUNDS = 2;

export interface BenchReport {
  name: string;
  lines: string[];
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const ms = (n: number): string => `${n.toFixed(1)} ms`;

interface FanoutResult {
  connected: number;
  deliveries: number;
  expected: number;
  violations: number;
  incomplete: number;
  p50: number;
  p99: number;
  max: number;
  /** Seconds to connect every subscriber (each reads the run and its history first). */
  connectS: number;
  /** Server CPU while the events went out, µs per event per subscriber, by instance. */
  cpu: number[];
}

async function cpuOf(servers: readonly ServerProcess[]): Promise<number[]> {
  const out: number[] = [];
  for (const s of servers) {
    s.send({ type: 'cpu' });
    out.push((await s.next('cpu')).micros);
  }
  return out;
}

/** One run's events to SUBSCRIBERS streams spread over `targets`, appended through `appender`. */
async function fanout(appender: ServerProcess, targets: readonly ServerProcess[]): Promise<FanoutResult> {
  const groups = Array.from({ length: SUBSCRIBER_PROCESSES }, () => startSubscribers());
  try {
    appender.send({ type: 'create' });
    const { runId } = await appender.next('created');
    const urls = targets.map((t) => `${t.url}/v1/runs/${runId}/events`);
    const connecting = performance.now();
    const share = Math.ceil(SUBSCRIBERS / groups.length);
    groups.forEach((g, i) => g.send({ type: 'connect', urls, count: Math.min(share, SUBSCRIBERS - i * share) }));
    let connected = 0;
    for (const g of groups) connected += (await g.next('connected')).connected;
    const connectS = (performance.now() - connecting) / 1000;
    // Every stream has read its (empty) history and joined the run's feed before the first append.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cpuBefore = await cpuOf(targets);
    appender.send({ type: 'append', runId, events: EVENTS, gapMs: GAP_MS, complete: true });
    const { firstId, sentAt } = await appender.next('appended');
    const lastId = firstId + sentAt.length - 1;
    for (const g of groups) g.send({ type: 'collect', firstId, sentAt, lastId, timeoutMs: 20_000 });
    const latencies: number[] = [];
    let violations = 0;
    let incomplete = 0;
    for (const g of groups) {
      const result = await g.next('result');
      for (const l of result.latencies) latencies.push(l);
      violations += result.violations;
      incomplete += result.incomplete;
    }
    const cpuAfter = await cpuOf(targets);
    const perInstance = SUBSCRIBERS / targets.length;
    latencies.sort((a, b) => a - b);
    return {
      connectS,
      cpu: cpuAfter.map((c, i) => (c - (cpuBefore[i] ?? 0)) / sentAt.length / perInstance),
      connected,
      deliveries: latencies.length,
      expected: sentAt.length * SUBSCRIBERS,
      violations,
      incomplete,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? Number.NaN,
    };
  } finally {
    await Promise.all(groups.map((g) => g.close()));
  }
}

function fanoutLines(label: string, r: FanoutResult): string[] {
  const ok = r.connected === SUBSCRIBERS && r.violations === 0 && r.incomplete === 0 && r.deliveries === r.expected;
  return [
    `${label}: ${r.connected}/${SUBSCRIBERS} connected, deliveries ${r.deliveries}/${r.expected}, ` +
      `order violations ${r.violations}, streams short of the end ${r.incomplete} ` +
      `(connected in ${r.connectS.toFixed(1)} s)`,
    `  append → subscriber: p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, max ${ms(r.max)}; server CPU per event ` +
      `per subscriber: ${r.cpu.map((c) => `${c.toFixed(1)} µs`).join(' / ')}`,
    `  verdict: ${ok ? 'PASS' : 'FAIL'} (every event to every subscriber, in order)`,
  ];
}

/**
 * Runs/s with IN_FLIGHT runs at once spread over `urls`, in the steady state: counting starts once IN_FLIGHT runs have
 * ended (the pipeline is full) and lasts WINDOW_MS; the runs still going then are drained, not counted.
 */
async function throughput(
  client: ChildProcess,
  servers: readonly ServerProcess[],
): Promise<{ rate: number; failed: number; cpuPerRun: number }> {
  const urls = servers.map((s) => s.url);
  let next = 0;
  let ended = 0;
  let failed = 0;
  /** Runs that completed while counting (`on`). */
  const counting = { on: false, from: 0, done: 0 };
  let open = true;
  let full: () => void = () => undefined;
  const filled = new Promise<void>((resolve) => (full = resolve));
  const start = (): void => {
    const request: ClientRequest = {
      id: ++next,
      url: urls[next % urls.length] ?? '',
      input: PROMPT,
      protocol: 'runs',
      stream: true,
    };
    client.send(request);
  };
  let drained: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (drained = resolve));
  const onReply = (message: ClientReply): void => {
    if (message.type !== 'done' && message.type !== 'failed') return;
    ended++;
    if (message.type === 'failed') failed++;
    else if (open && counting.on) counting.done++;
    if (ended === IN_FLIGHT) full();
    if (open) start();
    else if (ended === next) {
      client.off('message', onReply);
      drained();
    }
  };
  client.on('message', onReply);
  for (let i = 0; i < IN_FLIGHT; i++) start();
  await filled;
  const cpuBefore = await cpuOf(servers);
  counting.on = true;
  counting.from = performance.now();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  open = false;
  const elapsed = performance.now() - counting.from;
  const done = counting.done;
  const cpu = (await cpuOf(servers)).reduce((sum, c, i) => sum + c - (cpuBefore[i] ?? 0), 0);
  await finished;
  return { rate: done / (elapsed / 1000), failed, cpuPerRun: cpu / Math.max(1, done) };
}

/** The best round: on a shared machine the slow ones measure the neighbours. */
function best(values: number[]): number {
  return Math.max(...values);
}

function least(values: number[]): number {
  return Math.min(...values);
}

async function throughputLines(databaseUrl: string): Promise<string[]> {
  const mock = await startMockProcess();
  const servers: ServerProcess[] = [];
  let client: ChildProcess | undefined;
  try {
    for (let i = 0; i < 2; i++) servers.push(await startServer({ databaseUrl, mode: 'runs', mockUrl: mock.url }));
    client = await startClient();
    const [first, second] = servers;
    if (first === undefined || second === undefined) throw new Error('two server instances expected');
    // Warm-up: JIT, pools and connections of both instances.
    await throughput(client, [first, second]);
    await throughput(client, [first]);
    const one: number[] = [];
    const two: number[] = [];
    const cpu: { one: number[]; two: number[] } = { one: [], two: [] };
    let failed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const a = await throughput(client, [first]);
      const b = await throughput(client, [first, second]);
      one.push(a.rate);
      two.push(b.rate);
      cpu.one.push(a.cpuPerRun);
      cpu.two.push(b.cpuPerRun);
      failed += a.failed + b.failed;
    }
    const o = best(one);
    const t = best(two);
    const cores = (await import('node:os')).availableParallelism();
    return [
      `runs/s on PostgreSQL, ${IN_FLIGHT} runs in flight (${WINDOW_MS / 1000} s windows, ` +
        `${ROUNDS} rounds alternated, best): one instance ${o.toFixed(1)} ` +
        `[${one.map((r) => r.toFixed(1)).join(', ')}], two instances ${t.toFixed(1)} ` +
        `[${two.map((r) => r.toFixed(1)).join(', ')}], ×${(t / o).toFixed(2)}; failed runs ${failed}`,
      `  servers' CPU per run (least): one instance ${(least(cpu.one) / 1000).toFixed(1)} ms, ` +
        `two instances ${(least(cpu.two) / 1000).toFixed(1)} ms`,
      `  verdict: ${t > o && failed === 0 ? 'PASS' : 'FAIL'} (two instances' runs/s > one's) — ` +
        `${cores} cores for both servers, the client, the mock model and PostgreSQL`,
    ];
  } finally {
    client?.disconnect();
    await Promise.all(servers.map((s) => s.close()));
    await mock.close();
  }
}

function openFilesLimit(): number {
  const out = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim();
  return out === 'unlimited' ? Number.POSITIVE_INFINITY : Number(out);
}

export async function runFanoutBench(): Promise<BenchReport> {
  const name = `SSE fan-out and instances on PostgreSQL (${SUBSCRIBERS} subscribers, ${EVENTS} events)`;
  const check = await checkPostgres(POSTGRES_URL);
  if (!check.ok) return { name, lines: [`skipped: ${check.reason}`] };
  const limit = openFilesLimit();
  // A server instance holds a socket per subscriber: with one instance, all of them.
  if (limit < SUBSCRIBERS + 500)
    return { name, lines: [`skipped: ulimit -n is ${limit}, ${SUBSCRIBERS + 500} needed; raise it (ulimit -n 20000)`] };
  const database = await createThrowawayDatabase(POSTGRES_URL);
  const lines: string[] = [`PostgreSQL ${check.version}, ulimit -n ${limit}`];
  try {
    const a = await startServer({ databaseUrl: database.url, mode: 'sse' });
    const b = await startServer({ databaseUrl: database.url, mode: 'sse' });
    try {
      lines.push(...fanoutLines('one instance', await fanout(a, [a])));
      lines.push(...fanoutLines('two instances (appended through the first)', await fanout(a, [a, b])));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    if (IN_FLIGHT > 0) lines.push(...(await throughputLines(database.url)));
  } finally {
    await database.drop();
  }
  return { name, lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await runFanoutBench();
  console.log(`${report.name}\n  ${report.lines.join('\n  ')}`);
}
