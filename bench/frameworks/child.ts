// Runs one runner for one workload in a process of its own and prints one JSON
// line: start-up (process start to ready: imports and setup done), RSS at
// ready and at its peak, per-run durations, wall and CPU time of the measured
// runs, the model steps and tool calls they made, and first-token latencies.
//   node bench/frameworks/child.ts --runner <id> --url <mock url> --workload '<json>' [--blocks N]
// With --blocks N (paired measurement, process-group.ts runGroup): after the warm-up
// it prints {"ready":true}, then measures the runs in N blocks, one each time
// a line `go` comes in on stdin, printing {"block":i,"wallMs":…} after each;
// the last line is the result as above, its wall and CPU time the blocks' sum.
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { refusedHosts } from './loopback-only.ts';
import { UNDICI_LOOP_USER_AGENT, type CreateRunner } from './runner.ts';
import { RUNNERS } from './runners-list.ts';
import { repositoryRoot } from './toolgate-package.ts';
import { ANSWER, lookupCount, MODEL_STEPS, TOOL_STEPS, toolShapes, type Workload } from './workload.ts';

export interface ChildResult {
  ok: true;
  runner: string;
  workload: string;
  startupMs: number;
  rssReadyMb: number;
  peakRssMb: number;
  /** Each measured run, in ms, in the order they ended. */
  durationsMs: number[];
  wallMs: number;
  cpuMs: number;
  runs: number;
  /** Model requests made during the measured runs (counted at fetch). */
  steps: number;
  toolCalls: number;
  /**
   * Sequential streaming workloads: per run, ms from the answer's model request to the first answer text the runner
   * observed.
   */
  firstTokenMs?: number[];
  /** Paired measurement: each block's wall time, in the order measured. */
  blockWallMs?: number[];
  /** Paired measurement: the fetch baseline measured in blocks taken in turn with this runner (set by the parent). */
  pairedBaseline?: { wallMs: number; firstTokenMs?: number[] };
  /** Paired measurement of a toolgate runner: the loop on undici measured in the same group (set by the parent). */
  pairedUndici?: { wallMs: number; steps: number };
  /** Paired measurement: the group's runners in start order, and its blocks' order (process-group.ts, runGroup). */
  group?: { members: string[]; taken: string };
  /** Hosts outside this machine the runner tried to connect to (refused; telemetry that should have been off). */
  refusedHosts?: string[];
}

export interface ChildFailure {
  ok: false;
  runner: string;
  workload: string;
  error: string;
}

const { values } = parseArgs({
  options: {
    runner: { type: 'string' },
    url: { type: 'string' },
    workload: { type: 'string' },
    blocks: { type: 'string' },
  },
});
const runnerId = values.runner ?? '';
const url = values.url ?? '';
const workload = JSON.parse(values.workload ?? '{}') as Workload;
const blocks = values.blocks === undefined ? undefined : Number(values.blocks);
if (blocks !== undefined && (!Number.isInteger(blocks) || blocks < 1))
  throw new Error(`--blocks must be a positive integer, got "${values.blocks ?? ''}"`);

// Model requests are counted where the runners make them: fetch, replaced
// before any runner module (or the client it creates) is loaded, and node:http
// (toolgate's model calls), whose client requests are announced on a
// diagnostics channel when they are made. Either way the time is taken when
// the request is handed to the HTTP client, before it sends anything.
let modelRequests = 0;
let lastModelRequestAt = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const target = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (target.startsWith(url)) {
    modelRequests++;
    lastModelRequestAt = performance.now();
  }
  return realFetch(input, init);
};
const mock = new URL(url === '' ? 'http://invalid/' : url);
subscribe('http.client.request.created', (message) => {
  const request = (message as { request: ClientRequest }).request;
  if (request.getHeader('host') === mock.host && request.path.startsWith(mock.pathname)) {
    modelRequests++;
    lastModelRequestAt = performance.now();
  }
});

// toolgate's model calls go through undici's dispatcher (the npm package), which
// announces each request on a diagnostics channel when it is made. Node's fetch
// announces its requests on the same channel (its undici is the same code):
// those are counted by the fetch above, so only requests that name toolgate as
// their user agent, as toolgate's do, or the loop written on undici
// (runners/baseline-undici.ts), are counted here.
const UNDICI_USER_AGENT = new RegExp(`(^|\r\n)user-agent: (toolgate|${UNDICI_LOOP_USER_AGENT})\r\n`, 'i');
subscribe('undici:request:create', (message) => {
  const request = (message as { request: { origin?: unknown; path?: unknown; headers?: unknown } }).request;
  const origin = String(request.origin ?? '');
  if (origin !== mock.origin || !String(request.path ?? '').startsWith(mock.pathname)) return;
  if (!UNDICI_USER_AGENT.test(headerText(request.headers))) return;
  modelRequests++;
  lastModelRequestAt = performance.now();
});

/**
 * undici keeps a request's headers as raw `name: value\r\n` text (or, in some versions, as an array of names and
 * values).
 */
function headerText(headers: unknown): string {
  if (typeof headers === 'string') return headers;
  if (Array.isArray(headers)) {
    let text = '';
    for (let i = 0; i + 1 < headers.length; i += 2) text += `${String(headers[i])}: ${String(headers[i + 1])}\r\n`;
    return text;
  }
  return '';
}

function fail(error: unknown): never {
  // Paths relative to the repository: the message ends up in the saved results.
  const root = repositoryRoot();
  const message = (error instanceof Error ? (error.stack ?? error.message) : String(error))
    .replaceAll(`file://${root}`, '')
    .replaceAll(root, '');
  const failure: ChildFailure = {
    ok: false,
    runner: runnerId,
    workload: workload.id,
    error: message.split('\n').slice(0, 6).join('\n'),
  };
  process.stdout.write(`${JSON.stringify(failure)}\n`);
  process.exit(1);
}

async function main(): Promise<ChildResult> {
  const entry = RUNNERS.find((r) => r.id === runnerId);
  if (entry === undefined)
    throw new Error(`unknown runner "${runnerId}"; known: ${RUNNERS.map((r) => r.id).join(', ')}`);
  // Built (harness-build.ts), the runners sit beside this file as .js, in the same layout.
  const file = import.meta.url.endsWith('.js') ? entry.file.replace(/\.ts$/, '.js') : entry.file;
  const { createRunner } = (await import(file)) as { createRunner: CreateRunner };
  const runner = await createRunner({ url, tools: toolShapes(workload.tools), stream: workload.stream });
  const startupMs = performance.now();
  const rssReadyMb = process.memoryUsage.rss() / 2 ** 20;

  const timeFirstToken = workload.stream && workload.concurrency === 1;
  const firstTokenMs: number[] = [];
  const durationsMs: number[] = [];
  const one = async (measured: boolean): Promise<void> => {
    let first: number | undefined;
    const started = performance.now();
    const output = await runner.run((at) => {
      first ??= (at ?? performance.now()) - lastModelRequestAt;
    });
    const took = performance.now() - started;
    if (output !== ANSWER)
      throw new Error(`the run answered ${JSON.stringify(output.slice(0, 200))}, expected ${JSON.stringify(ANSWER)}`);
    if (!measured) return;
    durationsMs.push(took);
    if (timeFirstToken) {
      if (first === undefined) throw new Error('streaming, yet the runner observed no answer text');
      firstTokenMs.push(first);
    }
  };
  const pool = async (runs: number, measured: boolean): Promise<void> => {
    let started = 0;
    const worker = async (): Promise<void> => {
      while (started < runs) {
        started++;
        await one(measured);
      }
    };
    await Promise.all(Array.from({ length: Math.min(workload.concurrency, runs) }, worker));
  };

  await pool(workload.warmup, false);
  const requests0 = modelRequests;
  const lookups0 = lookupCount();
  let wallMs = 0;
  let cpuMicros = 0;
  const measure = async (runs: number): Promise<number> => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await pool(runs, true);
    const took = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    wallMs += took;
    cpuMicros += cpu.user + cpu.system;
    return took;
  };
  const blockWallMs: number[] = [];
  if (blocks === undefined) {
    await measure(workload.runs);
  } else {
    // Paired: each block when the parent says so, while the other processes of its group wait.
    const commands = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
    process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
    for (let block = 0; block < blocks; block++) {
      const command = await commands.next();
      if (command.done === true || command.value.trim() !== 'go')
        throw new Error(
          `expected "go" for block ${block + 1} of ${blocks}, got ` +
            `${command.done === true ? 'the end of stdin' : JSON.stringify(command.value)}`,
        );
      // The runs split as evenly as they go: the first blocks take one more when they do not divide.
      const runs = Math.floor(workload.runs / blocks) + (block < workload.runs % blocks ? 1 : 0);
      const took = await measure(runs);
      blockWallMs.push(took);
      process.stdout.write(`${JSON.stringify({ block, wallMs: took })}\n`);
    }
  }
  const toolCalls = lookupCount() - lookups0;
  const steps = modelRequests - requests0;
  if (toolCalls !== workload.runs * TOOL_STEPS)
    throw new Error(`${toolCalls} tool calls in ${workload.runs} runs, expected ${TOOL_STEPS} per run`);
  if (steps !== workload.runs * MODEL_STEPS)
    throw new Error(`${steps} model requests seen in ${workload.runs} runs, expected ${MODEL_STEPS} per run`);
  await runner.close();
  return {
    ok: true,
    runner: runnerId,
    workload: workload.id,
    startupMs,
    rssReadyMb,
    // The kernel's high-water mark (ru_maxrss): a peak that sampling could miss.
    peakRssMb: (process.resourceUsage().maxRSS * 1024) / 2 ** 20,
    durationsMs: durationsMs.map((d) => Math.round(d * 1000) / 1000),
    wallMs,
    cpuMs: cpuMicros / 1000,
    ...(blocks === undefined ? {} : { blockWallMs: blockWallMs.map((d) => Math.round(d * 1000) / 1000) }),
    runs: workload.runs,
    steps,
    toolCalls,
    ...(refusedHosts.size > 0 ? { refusedHosts: [...refusedHosts] } : {}),
    ...(timeFirstToken ? { firstTokenMs: firstTokenMs.map((d) => Math.round(d * 1000) / 1000) } : {}),
  };
}

try {
  const result = await main();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Some frameworks leave timers or sockets behind; the measurement is done.
  process.exit(0);
} catch (error) {
  fail(error);
}
