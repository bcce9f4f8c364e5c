// PostgreSQL with two instances (two stores, two pools, one database):
// events appended per second (one instance, then both at once); appends per
// second with 50 runs appending at once, grouped into shared transactions
// (decision 0028) against one transaction per append; and how long an
// event appended on instance A takes to reach a reader on instance B — the path
// an SSE stream on B takes (LISTEN/NOTIFY wake-up, then a read of the log).
// Ratios are against the memory store and SQLite measured in the same run.
// Needs PostgreSQL: TOOLGATE_TEST_POSTGRES_URL, DATABASE_URL, or the local one.
// Run alone: node bench/store/postgres-bench.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { draft, type EventDraft, type RunStore } from '../../src/core/index.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { openPostgresRunStore } from '../../src/store/postgres/open-postgres-run-store.ts';
import { appendGroup } from '../../src/store/postgres/postgres-append-group.ts';
import { PostgresConnection } from '../../src/store/postgres/postgres-connection.ts';
import { PostgresListener } from '../../src/store/postgres/postgres-listener.ts';
import { PostgresRunStore } from '../../src/store/postgres/postgres-run-store.ts';
import { postgresTarget } from '../../src/store/postgres/postgres-url.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import { POSTGRES_URL } from '../postgres-url.ts';

const MAX_MS = 1_500;
const DELIVERIES = 200;
/** Runs appending at once, as with 50 runs in flight; each appends one event, waits, appends again. */
const WRITERS = 50;
const ROUNDS = 3;

const EVENT: EventDraft = draft('tool_result', {
  step: 1,
  toolCallId: 'call_1',
  name: 'quote',
  ok: true,
  content: [{ type: 'text', text: 'price 84.20 EUR/MWh for hours 1-24, volume 10 MW, area DE-LU; '.repeat(4) }],
  latencyMs: 12,
});

async function appendRate(stores: readonly RunStore[], batch: number): Promise<number> {
  const runs = await Promise.all(
    stores.map(async (store) => ({ store, id: (await store.createRun({ input: 'bench', model: 'bench' })).id })),
  );
  const drafts = Array.from({ length: batch }, () => EVENT);
  for (const { store, id } of runs) for (let i = 0; i < 20; i++) await store.append(id, drafts);
  const start = performance.now();
  const counts = await Promise.all(
    runs.map(async ({ store, id }) => {
      let events = 0;
      while (performance.now() - start < MAX_MS) {
        await store.append(id, drafts);
        events += batch;
      }
      return events;
    }),
  );
  return counts.reduce((a, b) => a + b, 0) / ((performance.now() - start) / 1000);
}

type Append = (runId: string) => Promise<unknown>;

/** Appends per second of `writers` loops, each appending one event to a run of its own and waiting for it. */
async function loopRate(runIds: readonly string[], append: (i: number) => Append): Promise<number> {
  for (const [i, id] of runIds.entries()) await append(i)(id);
  const start = performance.now();
  const counts = await Promise.all(
    runIds.map(async (id, i) => {
      let appends = 0;
      while (performance.now() - start < MAX_MS) {
        await append(i)(id);
        appends += 1;
      }
      return appends;
    }),
  );
  return counts.reduce((a, b) => a + b, 0) / ((performance.now() - start) / 1000);
}

/**
 * The store with the old path's shape: each append its own transaction on a pool of 10 (the default), the same
 * statements as a group of one. Runs are appended to by one writer each, so no queue per run is needed.
 */
function perAppendTransactions(url: string, schema: string): { append: Append; close: () => Promise<void> } {
  const target = postgresTarget(url, schema);
  const pool = new pg.Pool({ connectionString: target.connectionString, max: 10 });
  const db = new PostgresConnection({ pool, naming: { label: target.label, server: target.server } });
  const append: Append = (runId) =>
    db.transaction(`append events to run ${runId}`, (query) =>
      appendGroup(query, [{ runId, drafts: [EVENT], patch: {}, options: {} }]),
    );
  return { append, close: () => db.close() };
}

/** A store on `schema` (already migrated) that keeps at most `maxGroupsInFlight` groups in flight. */
function storeWithGroups(url: string, schema: string, maxGroupsInFlight: number): PostgresRunStore {
  const target = postgresTarget(url, schema);
  const naming = { label: target.label, server: target.server };
  const pool = new pg.Pool({ connectionString: target.connectionString, max: 10 });
  return new PostgresRunStore({
    connection: new PostgresConnection({ pool, naming }),
    listener: new PostgresListener({ config: { connectionString: target.connectionString }, naming }),
    groupLimits: { maxGroupsInFlight },
  });
}

const median = (values: readonly number[]): number =>
  [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * Appends per second, 1 writer and WRITERS at once: one transaction per append (as before decision 0028) against
 * the grouped store (default groups in flight, then one), and WRITERS split over two instances. Alternated, ROUNDS
 * times; medians, and the ratio grouped ÷ one per append.
 */
async function concurrentAppends(stores: { a: RunStore; b: RunStore }, schema: string): Promise<string[]> {
  const raw = perAppendTransactions(POSTGRES_URL, schema);
  const single = storeWithGroups(POSTGRES_URL, schema, 1);
  const lines = [
    `appends per second, one event each (higher is better; ${ROUNDS} rounds alternated, medians; ` +
      `ratio = this ÷ one transaction per append)`,
  ];
  try {
    const runs = async (n: number): Promise<string[]> =>
      Promise.all(Array.from({ length: n }, async () => (await stores.a.createRun({ input: 'b', model: 'b' })).id));
    for (const writers of [1, WRITERS]) {
      const ids = await runs(writers);
      const results: Record<'raw' | 'grouped' | 'one' | 'two', number[]> = { raw: [], grouped: [], one: [], two: [] };
      for (let round = 0; round < ROUNDS; round++) {
        results.raw.push(await loopRate(ids, () => raw.append));
        results.grouped.push(await loopRate(ids, () => (id) => stores.a.append(id, [EVENT])));
        results.one.push(await loopRate(ids, () => (id) => single.append(id, [EVENT])));
        if (writers > 1)
          results.two.push(await loopRate(ids, (i) => (id) => (i % 2 === 0 ? stores.a : stores.b).append(id, [EVENT])));
      }
      const base = median(results.raw);
      const cell = (values: number[]): string => `${rate(median(values))} (${(median(values) / base).toFixed(2)}x)`;
      lines.push(
        `  ${String(writers).padStart(2)} writer(s): one transaction per append ${rate(base)} · grouped ` +
          `${cell(results.grouped)} · grouped, 1 group in flight ${cell(results.one)}` +
          (writers > 1 ? ` · grouped, 2 instances ${cell(results.two)}` : ''),
      );
    }
  } finally {
    await Promise.all([raw.close(), single.close()]);
  }
  return lines;
}

/**
 * Append on `writer`, time until `reader` has the event: by subscribe (same store) or watch + read (another instance).
 */
async function deliveryMs(writer: RunStore, reader: RunStore, how: 'subscribe' | 'watch'): Promise<number[]> {
  const { id } = await writer.createRun({ input: 'bench', model: 'bench' });
  const times: number[] = [];
  let waiting: { seq: number; sent: number; done: () => void } | undefined;
  let last = 0;
  const seen = (seq: number): void => {
    if (waiting !== undefined && seq >= waiting.seq) {
      times.push(performance.now() - waiting.sent);
      const done = waiting.done;
      waiting = undefined;
      done();
    }
  };
  let stop: () => void;
  if (how === 'subscribe') stop = reader.subscribe(id, (events) => seen(events.at(-1)?.id ?? 0));
  else {
    stop = await (reader.watch as NonNullable<RunStore['watch']>).call(reader, id, () => {
      void reader.readEvents(id, { after: last }).then((events) => {
        last = events.at(-1)?.id ?? last;
        seen(last);
      });
    });
  }
  for (let i = 0; i < DELIVERIES + 20; i++) {
    const arrived = new Promise<void>((resolve) => (waiting = { seq: i + 1, sent: performance.now(), done: resolve }));
    await writer.append(id, [EVENT]);
    await arrived;
  }
  stop();
  return times.slice(20).sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
const rate = (n: number): string => `${Math.round(n).toLocaleString('en-US')}/s`.padStart(10);
const ms = (n: number): string => `${n.toFixed(2)} ms`.padStart(9);

export async function runPostgresBench(): Promise<{ name: string; lines: string[] }> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await admin.connect();
  } catch (error) {
    return {
      name: 'postgres',
      lines: [
        `skipped: no PostgreSQL at the configured URL (${error instanceof Error ? error.message : String(error)})`,
      ],
    };
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-'));
  const lines: string[] = [];
  try {
    const memory = new MemoryRunStore();
    const sqlite = await openSqliteRunStore({ path: join(dir, 'bench.db') });
    const a = await openPostgresRunStore({ url: POSTGRES_URL, schema });
    const b = await openPostgresRunStore({ url: POSTGRES_URL, schema });
    try {
      lines.push('events appended per second (higher is better; ratio = memory ÷ this)');
      for (const batch of [1, 10]) {
        const base = await appendRate([memory], batch);
        const lite = await appendRate([sqlite], batch);
        const one = await appendRate([a], batch);
        const two = await appendRate([a, b], batch);
        lines.push(
          `  batch ${String(batch).padStart(2)}: memory ${rate(base)} · sqlite ${rate(lite)} ` +
            (`(${(base / lite).toFixed(1)}x) · postgres 1 instance ${rate(one)} ` +
              `(${(base / one).toFixed(1)}x) · 2 instances at once ${rate(two)} (${(base / two).toFixed(1)}x)`),
        );
      }
      lines.push(...(await concurrentAppends({ a, b }, schema)));
      lines.push(
        `an event appended on one instance, read by a stream on another ` +
          `(${DELIVERIES} events, one at a time; ratio = this ÷ sqlite in-process)`,
      );
      const local = await deliveryMs(sqlite, sqlite, 'subscribe');
      const pgLocal = await deliveryMs(a, a, 'subscribe');
      const remote = await deliveryMs(a, b, 'watch');
      const base = pct(local, 50);
      lines.push(`  sqlite, same process (subscribe)       p50 ${ms(pct(local, 50))}  p99 ${ms(pct(local, 99))}`);
      lines.push(
        `  postgres, same instance (subscribe)    p50 ${ms(pct(pgLocal, 50))}  ` +
          `p99 ${ms(pct(pgLocal, 99))}  (${(pct(pgLocal, 50) / base).toFixed(1)}x)`,
      );
      lines.push(
        `  postgres, other instance (NOTIFY+read) p50 ${ms(pct(remote, 50))}  ` +
          `p99 ${ms(pct(remote, 99))}  (${(pct(remote, 50) / base).toFixed(1)}x)`,
      );
    } finally {
      await Promise.all([memory.close(), sqlite.close(), a.close(), b.close()]);
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return { name: 'postgres (2 instances)', lines };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await runPostgresBench();
  console.log(`== ${report.name}`);
  for (const line of report.lines) console.log(line);
}
