// RunManager against real stores: a backlog drains at full speed (a slot that
// frees claims the next run from the store at once), and a SQLite file that
// cannot be written (disk full, read-only) pauses runs instead of failing them.
// The SQLite store here is built on a connection the test holds too, so the
// test can make that very connection full (PRAGMA max_page_count) or
// read-only (PRAGMA query_only) the way a full disk or a read-only file does.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { resolveSettings } from '../config/resolve-settings.ts';
import { ToolgateError, escapeRegExp, type ModelAdapter, type RunEvent, type RunStore } from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { applyMigrations } from '../store/sqlite/apply-migrations.ts';
import { SqliteConnection } from '../store/sqlite/sqlite-connection.ts';
import { SqliteRunStore } from '../store/sqlite/sqlite-run-store.ts';
import { waitUntil } from '../../test/support/wait-until.ts';
import { RunManager } from './run-manager.ts';
import { Toolgate } from './toolgate.ts';
import { gatedModel } from '../../test/support/gated-model.ts';

/** Long enough that no sweep (every half lease) happens during a test: only a freed slot can claim. */
const LONG_LEASE_MS = 60_000;
const SQLITE_MAX_PAGES = 4_294_967_294;

/** A model that answers after `latencyMs`, counting calls and the most it had in flight at once. */
function timedModel(latencyMs: number): ModelAdapter & { calls: number; inFlight: number; maxInFlight: number } {
  const model = {
    id: 'timed:model',
    calls: 0,
    inFlight: 0,
    maxInFlight: 0,
    async generate() {
      model.calls += 1;
      model.inFlight += 1;
      model.maxInFlight = Math.max(model.maxInFlight, model.inFlight);
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      model.inFlight -= 1;
      return { text: 'done', toolCalls: [], finishReason: 'stop' as const };
    },
  };
  return model;
}

function settings(leaseMs = LONG_LEASE_MS) {
  return resolveSettings({ server: { leaseMs } }, {}, {});
}

/** Warnings the process emits meanwhile (the engine says so when a run waits for the store). */
function collectWarnings(): { messages: string[]; stop: () => void } {
  const messages: string[] = [];
  const listener = (warning: Error): void => void messages.push(warning.message);
  process.on('warning', listener);
  return { messages, stop: () => process.off('warning', listener) };
}

/** A SQLite store on `path`, on a connection the test may change too. */
function sqliteStoreWithHandle(path: string): { store: SqliteRunStore; db: DatabaseSync } {
  const db = new DatabaseSync(path, { timeout: 1000 });
  db.exec('PRAGMA journal_mode = WAL');
  applyMigrations(db, { label: path });
  return { store: new SqliteRunStore(new SqliteConnection({ db, label: path, busyTimeoutMs: 1000 })), db };
}

async function statusOf(store: RunStore, runId: string): Promise<string | undefined> {
  return (await store.getRun(runId))?.status;
}

/** Ids 1..n, each model turn logged once, and nothing after the terminal event. */
function assertWellFormed(events: readonly RunEvent[]): void {
  assert.deepEqual(
    events.map((e) => e.id),
    events.map((_, i) => i + 1),
    'ids 1..n, no gap, no duplicate',
  );
  const turns = events
    .filter((e) => e.type === 'assistant_message')
    .map((e) => (e.type === 'assistant_message' ? e.data.step : 0));
  assert.deepEqual([...new Set(turns)], turns, 'each model turn logged once');
  const end = events.findIndex(
    (e) => e.type === 'run_completed' || e.type === 'run_failed' || e.type === 'run_cancelled',
  );
  if (end !== -1) assert.equal(end, events.length - 1);
}

describe('RunManager: a backlog in the store', () => {
  it(
    'drains at full speed after a restart: each freed slot claims the ' +
      'next queued run at once, never more than `concurrency` at a time',
    async () => {
      const store = new MemoryRunStore();
      const model = timedModel(30);
      const toolgate = new Toolgate({ settings: settings(), model, store });
      // The backlog a crashed process left: runs created queued, nobody drives them.
      const ids: string[] = [];
      for (let i = 0; i < 12; i++)
        ids.push((await toolgate.start(await toolgate.newRun({ input: `job ${i}` }))).run.id);
      const manager = new RunManager({ toolgate, concurrency: 2 });
      try {
        const started = Date.now();
        assert.equal((await manager.recover()).length, 2, 'the start claims as many as there are slots');
        // Before: the other ten waited for the next sweep, half a lease (30 s) later.
        await waitUntil(() => model.calls === 12 && model.inFlight === 0, 'all twelve runs answered', 10_000);
        await waitUntil(() => manager.load.active === 0, 'every slot free again', 5_000);
        const tookMs = Date.now() - started;
        for (const id of ids) assert.equal(await statusOf(store, id), 'completed');
        assert.equal(model.maxInFlight, 2, 'never more than `concurrency` runs at once');
        assert.ok(tookMs < 10_000, `the backlog drained in ${tookMs} ms`);
      } finally {
        await manager.shutdown({ graceMs: 100 });
        await toolgate.close();
      }
    },
  );
});

describe('RunManager: a SQLite file that cannot be written', () => {
  const dirs: string[] = [];
  const fresh = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-sqlite-outage-'));
    dirs.push(dir);
    return join(dir, 'runs.db');
  };
  const cleanup = (): void => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  };

  it(
    'disk full (SQLITE_FULL) for a moment: the run waits in place with a ' +
      'clear warning, keeps the model answer, and completes once there is room',
    async () => {
      const path = fresh();
      const { store, db } = sqliteStoreWithHandle(path);
      // An answer that needs new pages in the file: it cannot be stored while the file may not grow.
      const model = gatedModel('x'.repeat(64 * 1024));
      const toolgate = new Toolgate({ settings: settings(), model, store });
      const errors: string[] = [];
      const manager = new RunManager({
        toolgate,
        concurrency: 2,
        onError: (m) => errors.push(m),
        storeRetry: { baseMs: 20, maxMs: 100 },
      });
      const warnings = collectWarnings();
      try {
        await manager.recover();
        const { run } = await manager.startRun({}, { input: 'write a long answer' });
        await waitUntil(() => model.calls === 1, 'the model asked');
        let before: RunEvent[] = [];
        await waitFor(async () => (before = await store.readEvents(run.id)).length > 0, 'the run start committed');
        const pages = Number(db.prepare('PRAGMA page_count').get()?.['page_count']);
        db.exec(`PRAGMA max_page_count = ${pages}`);

        model.release();
        const waiting =
          `run ${run.id}: SQLite store ${escapeRegExp(path)}: could not append events to run ` +
          (`${run.id}: database or disk is full; the disk is full; free space on ` +
            `the volume that holds ${escapeRegExp(path)}; the run waits for the store`);
        await waitUntil(
          () => warnings.messages.some((m) => new RegExp(waiting).test(m)),
          'the warning that the run waits for the store',
        );
        const during = await store.getRun(run.id);
        assert.equal(during?.status, 'running', 'the run has not failed');
        assert.equal(during?.error, undefined);
        assert.deepEqual(await store.readEvents(run.id), before, 'nothing half-written: the log is as it was');

        db.exec(`PRAGMA max_page_count = ${SQLITE_MAX_PAGES}`);
        await waitFor(
          async () => (await statusOf(store, run.id)) === 'completed',
          'the run completed once there was room',
        );
        assert.equal(model.calls, 1, 'the answer was kept while the run waited: the model was not asked again');
        assert.deepEqual(errors, [], 'it never had to be paused');
        const events = await store.readEvents(run.id);
        assertWellFormed(events);
        assert.equal(events.filter((e) => e.type === 'run_failed').length, 0);
      } finally {
        warnings.stop();
        await manager.shutdown({ graceMs: 100 });
        await toolgate.close();
        cleanup();
      }
    },
  );

  it(
    'a read-only file (SQLITE_READONLY) for longer than a lease: requests get store_unavailable naming ' +
      ('the file and the fix, the run pauses and is retried with ' +
        'backoff (no tight loop), and completes once it is writable'),
    async () => {
      const path = fresh();
      const { store, db } = sqliteStoreWithHandle(path);
      const model = gatedModel('done');
      // A short lease: the run waits in place for one lease, then is paused and retried.
      const toolgate = new Toolgate({ settings: settings(1_000), model, store });
      const errors: string[] = [];
      const manager = new RunManager({
        toolgate,
        concurrency: 2,
        onError: (m) => errors.push(m),
        storeRetry: { baseMs: 20, maxMs: 100 },
      });
      const warnings = collectWarnings();
      try {
        await manager.recover();
        const { run } = await manager.startRun({}, { input: 'answer me' });
        await waitUntil(() => model.calls === 1, 'the model asked');
        await waitFor(async () => (await store.readEvents(run.id)).length > 0, 'the run start committed');
        db.exec('PRAGMA query_only = 1');

        await assert.rejects(manager.startRun({}, { input: 'another' }), (error: unknown) => {
          assert.ok(error instanceof ToolgateError);
          assert.equal(error.code, 'store_unavailable');
          assert.match(
            error.message,
            new RegExp(
              `^SQLite store ${escapeRegExp(path)}: could not create and claim a run: attempt to write a ` +
                (`readonly database; check that the file and its directory ` +
                  `exist and that this process may read and write them`),
            ),
          );
          return true;
        });
        model.release();
        const tries = (): number => errors.filter((m) => m.includes(`run ${run.id} paused`)).length;
        await waitUntil(() => tries() >= 1, 'the first failed try');
        const firstAt = Date.now();
        assert.ok(
          warnings.messages.some(
            (m) => m.startsWith(`run ${run.id}: SQLite store`) && m.includes('the run waits for the store'),
          ),
          'it waited in place first',
        );
        await waitUntil(() => tries() >= 6, 'six failed tries');
        // Waits of 20 ms doubling up to 100 ms (each ½–1 × that, jittered): five of them take 170 ms at least; a tight
        // loop, a few.
        assert.ok(Date.now() - firstAt >= 150, `six tries within ${Date.now() - firstAt} ms: no backoff`);
        assert.equal(await statusOf(store, run.id), 'running', 'the run has not failed');

        db.exec('PRAGMA query_only = 0');
        await waitUntil(() => model.calls === 2, 'the run taken up again once the file is writable');
        model.release();
        await waitFor(async () => (await statusOf(store, run.id)) === 'completed', 'the run completed');
        assertWellFormed(await store.readEvents(run.id));
      } finally {
        warnings.stop();
        await manager.shutdown({ graceMs: 100 });
        await toolgate.close();
        cleanup();
      }
    },
  );
});

/** Polls an async condition every 10 ms. */
async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
