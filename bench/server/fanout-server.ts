// One toolgate server instance of the fan-out bench (fanout-bench.ts), in a
// process of its own so that its CPU is its own. Forked with an IPC channel;
// the database's URL comes in BENCH_POSTGRES_DATABASE_URL.
//   `sse`: startHttpServer on the PostgreSQL store, with a service that only
//     reads runs; on {type:'create'} it creates a running run, on {type:'append'}
//     it appends events one at a time through its own store and replies with the
//     time of each append (the monotonic clock every process shares).
//   `runs <mock url>`: the server as users run it, a RunManager over
//     createToolgate (the frameworks bench's tools and mock model), for runs/s.
// It says {type:'ready', url} once listening, and exits when the channel closes.
import { draft } from '../../src/core/index.ts';
import { startHttpServer } from '../../src/server/index.ts';
import { readOnlyService } from './read-only-service.ts';
import { openPostgresRunStore } from '../../src/store/postgres/open-postgres-run-store.ts';
import type { PostgresRunStore } from '../../src/store/postgres/postgres-run-store.ts';
import { DATABASE_URL_ENV } from '../frameworks/postgres-database.ts';
import { openToolgate } from '../frameworks/runners/toolgate-setup.ts';
import { loadToolgate } from '../frameworks/toolgate-package.ts';
import { CONCURRENCY, toolShapes } from '../frameworks/workload.ts';
import { sharedNow, type ServerCommand, type ServerReply } from './fanout-protocol.ts';

function send(reply: ServerReply): void {
  process.send?.(reply);
}

function sendCpu(): void {
  const { user, system } = process.cpuUsage();
  send({ type: 'cpu', micros: user + system });
}

async function appendSpaced(store: PostgresRunStore, command: Extract<ServerCommand, { type: 'append' }>) {
  const sentAt: number[] = [];
  let firstId = 0;
  for (let i = 0; i < command.events; i++) {
    sentAt.push(sharedNow());
    const [event] = await store.append(command.runId, [
      draft('assistant_delta', { step: 1, text: `token ${i} `.repeat(8) }),
    ]);
    if (i === 0) firstId = event?.id ?? 0;
    await new Promise((resolve) => setTimeout(resolve, command.gapMs));
  }
  if (command.complete) {
    sentAt.push(sharedNow());
    const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    await store.append(command.runId, [draft('run_completed', { output: 'done', usage, steps: 1 })], {
      status: 'completed',
      output: 'done',
    });
  }
  return { firstId, sentAt };
}

async function serveSse(url: string): Promise<() => Promise<void>> {
  const store = await openPostgresRunStore({ url });
  const server = await startHttpServer({
    service: readOnlyService(store),
    store,
    apiKeys: [],
    port: 0,
    heartbeatMs: 60_000,
  });
  process.on('message', (command: ServerCommand) => {
    if (command.type === 'cpu') return sendCpu();
    const work =
      command.type === 'create'
        ? store
            .createRun({ input: 'bench', model: 'bench:model', status: 'running' })
            .then((run) => send({ type: 'created', runId: run.id }))
        : appendSpaced(store, command).then((done) => send({ type: 'appended', ...done }));
    work.catch((error: unknown) => send({ type: 'failed', error: String(error) }));
  });
  send({ type: 'ready', url: server.url });
  return async () => {
    await server.close({ graceMs: 100 });
    await store.close();
  };
}

async function serveRuns(url: string, mockUrl: string): Promise<() => Promise<void>> {
  const { RunManager } = await loadToolgate();
  const toolgate = await openToolgate({ url: mockUrl, tools: toolShapes(1), stream: true }, url);
  const manager = new RunManager({ toolgate, concurrency: CONCURRENCY * 2 });
  const server = await startHttpServer({ service: manager, store: toolgate.store, apiKeys: [], port: 0 });
  process.on('message', (command: ServerCommand) => {
    if (command.type === 'cpu') sendCpu();
  });
  send({ type: 'ready', url: server.url });
  return async () => {
    await server.close({ graceMs: 100 });
    await manager.shutdown({ graceMs: 100 });
    await toolgate.close();
  };
}

const databaseUrl = process.env[DATABASE_URL_ENV] ?? '';
const [mode, mockUrl] = process.argv.slice(2);
try {
  const close = mode === 'runs' ? await serveRuns(databaseUrl, mockUrl ?? '') : await serveSse(databaseUrl);
  process.once('disconnect', () => void close().finally(() => process.exit(0)));
} catch (error) {
  send({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
}
