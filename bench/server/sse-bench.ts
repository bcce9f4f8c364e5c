// SSE delivery latency with many subscribers on loopback: the time from an
// event's append to its arrival at each subscriber, through the real HTTP
// server. Baseline, measured in the same run: the store's own in-process
// subscription (no HTTP), so the ratio shows what the HTTP/SSE layer adds.
import { request, type IncomingMessage } from 'node:http';
import { pathToFileURL } from 'node:url';
import { draft } from '../../src/core/index.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { startHttpServer } from '../../src/server/index.ts';
import { readOnlyService } from './read-only-service.ts';

export const SUBSCRIBERS = Number(process.env['BENCH_SSE_SUBSCRIBERS'] ?? 1000);
const EVENTS = 50;
const GAP_MS = 20;

export interface BenchReport {
  name: string;
  lines: string[];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export async function runSseBench(): Promise<BenchReport> {
  const store = new MemoryRunStore();
  const run = await store.createRun({ input: 'bench', model: 'bench:model', status: 'running' });
  const server = await startHttpServer({
    service: readOnlyService(store),
    store,
    apiKeys: [],
    port: 0,
    heartbeatMs: 60_000,
  });
  const url = new URL(`${server.url}/v1/runs/${run.id}/events`);
  const sent = new Map<number, bigint>();
  const httpLatencies: number[] = [];
  const baseLatencies: number[] = [];

  store.subscribe(run.id, (events) => {
    const now = process.hrtime.bigint();
    for (const e of events) {
      const t = sent.get(e.id);
      if (t !== undefined) baseLatencies.push(Number(now - t) / 1e6);
    }
  });

  let connected = 0;
  const responses: IncomingMessage[] = [];
  await Promise.all(
    Array.from(
      { length: SUBSCRIBERS },
      () =>
        new Promise<void>((resolve, reject) => {
          const req = request(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
            responses.push(res);
            connected++;
            let buffer = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              const now = process.hrtime.bigint();
              buffer += chunk;
              let end: number;
              while ((end = buffer.indexOf('\n\n')) >= 0) {
                const frame = buffer.slice(0, end);
                buffer = buffer.slice(end + 2);
                const id = /^id: (\d+)$/m.exec(frame)?.[1];
                const t = id === undefined ? undefined : sent.get(Number(id));
                if (t !== undefined) httpLatencies.push(Number(now - t) / 1e6);
              }
            });
            resolve();
          });
          req.on('error', reject);
          req.end();
        }),
    ),
  );
  await new Promise((r) => setTimeout(r, 200));

  for (let i = 0; i < EVENTS; i++) {
    const id = run.lastEventId + i + 1;
    sent.set(id, process.hrtime.bigint());
    await store.append(run.id, [draft('assistant_delta', { step: 1, text: `token ${i} `.repeat(8) })]);
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  const expected = EVENTS * SUBSCRIBERS;
  for (let i = 0; i < 200 && httpLatencies.length < expected; i++) await new Promise((r) => setTimeout(r, 25));

  for (const res of responses) res.destroy();
  await server.close({ graceMs: 100 });

  httpLatencies.sort((a, b) => a - b);
  baseLatencies.sort((a, b) => a - b);
  const p50 = percentile(httpLatencies, 50);
  const p99 = percentile(httpLatencies, 99);
  const b50 = percentile(baseLatencies, 50);
  const b99 = percentile(baseLatencies, 99);
  return {
    name: `SSE delivery latency, ${SUBSCRIBERS} subscribers on loopback (${EVENTS} events)`,
    lines: [
      `subscribers connected ${connected}/${SUBSCRIBERS}, deliveries ${httpLatencies.length}/${expected}`,
      `append → SSE client: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`,
      `append → in-process subscriber (baseline): p50 ${b50.toFixed(3)} ms, p99 ${b99.toFixed(3)} ms`,
      `the SSE fan-out to ${SUBSCRIBERS} sockets costs ` +
        `${(p99 - b99).toFixed(2)} ms at p99 over the in-process baseline`,
    ],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await runSseBench();
  console.log(`${report.name}\n  ${report.lines.join('\n  ')}`);
}
