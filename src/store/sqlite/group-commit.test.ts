import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { ToolgateError, type RunEvent } from '../../core/index.ts';
import { applyMigrations } from './apply-migrations.ts';
import { GroupCommit } from './group-commit.ts';
import { SqliteConnection, type TransactionJob } from './sqlite-connection.ts';
import { SqliteRunStore } from './sqlite-run-store.ts';
import { rejection } from '../../../test/support/rejection.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-group-commit-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A connection that counts the transactions it commits. */
class CountingConnection extends SqliteConnection {
  commits = 0;

  override statement(sql: string): StatementSync {
    if (sql === 'COMMIT') this.commits += 1;
    return super.statement(sql);
  }
}

function openStore(busyTimeoutMs = 2_000): {
  store: SqliteRunStore;
  connection: CountingConnection;
  path: string;
  db: DatabaseSync;
} {
  files += 1;
  const path = join(dir, `runs-${files}.db`);
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  applyMigrations(db, { label: path });
  const connection = new CountingConnection({ db, label: path, busyTimeoutMs });
  return { store: new SqliteRunStore(connection), connection, path, db };
}

const note = (text: string): { type: 'user_message'; data: { text: string } } => ({
  type: 'user_message',
  data: { text },
});

describe('SQLite group commit', () => {
  it(
    'commits the appends of one turn of the event loop ' + 'in one transaction, and awaited appends in one each',
    async () => {
      const { store, connection } = openStore();
      const runs = await Promise.all(
        Array.from({ length: 10 }, () => store.createRun({ input: 'x', model: 'm', status: 'running' })),
      );
      const before = connection.commits;
      const appended = await Promise.all(runs.map((run, i) => store.append(run.id, [note(`step ${i}`)])));
      assert.equal(connection.commits - before, 1, 'ten appends made together share one commit');
      for (const [i, run] of runs.entries()) {
        assert.deepEqual(
          (await store.readEvents(run.id)).map((event) => event.data),
          [{ text: `step ${i}` }],
        );
        assert.equal(appended[i]?.[0]?.runId, run.id);
      }
      const sequential = connection.commits;
      for (const run of runs.slice(0, 3)) await store.append(run.id, [note('again')]);
      assert.equal(connection.commits - sequential, 3);
      await store.close();
    },
  );

  it('refuses a bad append alone: the others of its group are committed, it writes nothing', async () => {
    const { store, connection } = openStore();
    const a = await store.createRun({ input: 'x', model: 'm', status: 'running' });
    const b = await store.createRun({ input: 'x', model: 'm', status: 'running' });
    const before = connection.commits;
    const [first, missing, stale, half, last] = await Promise.allSettled([
      store.append(a.id, [note('a1')]),
      store.append('run_missing', [note('nowhere')]),
      store.append(b.id, [note('b-stale')], {}, { expectLastEventId: 41 }),
      // The second draft cannot be written after the first was: the savepoint undoes both.
      store.append(b.id, [note('b-half'), { type: 'user_message', data: { text: 1n as unknown as string } }]),
      store.append(b.id, [note('b1')]),
    ]);
    assert.equal(connection.commits - before, 1);
    assert.equal(first.status, 'fulfilled');
    assert.equal(last.status, 'fulfilled');
    assert.ok(
      missing.status === 'rejected' && missing.reason instanceof ToolgateError && missing.reason.code === 'not_found',
    );
    assert.ok(stale.status === 'rejected' && stale.reason instanceof ToolgateError && stale.reason.code === 'conflict');
    assert.ok(
      half.status === 'rejected' && half.reason instanceof ToolgateError,
      String(half.status === 'rejected' ? half.reason : ''),
    );
    assert.match((half.reason as Error).message, /append events to run/);
    assert.deepEqual(
      (await store.readEvents(a.id)).map((e) => e.data),
      [{ text: 'a1' }],
    );
    const bEvents = await store.readEvents(b.id);
    assert.deepEqual(
      bEvents.map((e) => [e.id, e.data]),
      [[1, { text: 'b1' }]],
    );
    assert.equal((await store.getRun(b.id))?.lastEventId, 1);
    await store.close();
  });

  it('applies the appends of one run in the order they were made, each seeing the one before', async () => {
    const { store } = openStore();
    const run = await store.createRun({ input: 'x', model: 'm', status: 'running' });
    const results = await Promise.all([
      store.append(run.id, [note('one'), note('two')], {}, { expectLastEventId: 0 }),
      store.append(run.id, [note('three')], {}, { expectLastEventId: 2 }),
      store.append(run.id, [note('four')], { status: 'completed' }),
    ]);
    assert.deepEqual(
      results.map((events) => events.map((event) => event.id)),
      [[1, 2], [3], [4]],
    );
    assert.equal((await store.getRun(run.id))?.status, 'completed');
    await store.close();
  });

  it('tells subscribers after the commit and before the append resolves', async () => {
    const { store, path } = openStore();
    const run = await store.createRun({ input: 'x', model: 'm', status: 'running' });
    const reader = new DatabaseSync(path, { readOnly: true });
    const heard: { ids: number[]; storedThen: number }[] = [];
    store.subscribe(run.id, (events: readonly RunEvent[]) => {
      const row = reader.prepare('SELECT COUNT(*) AS n FROM events WHERE run_id = ?').get(run.id) as { n: number };
      heard.push({ ids: events.map((e) => e.id), storedThen: Number(row.n) });
    });
    const pending = store.append(run.id, [note('hello')]);
    assert.deepEqual(heard, [], 'nothing is heard before the group is committed');
    await pending;
    assert.deepEqual(heard, [{ ids: [1], storedThen: 1 }]);
    reader.close();
    await store.close();
  });

  it('fails every append of the group, writing nothing, when the transaction cannot begin', async () => {
    const { store, path } = openStore(50);
    const a = await store.createRun({ input: 'x', model: 'm', status: 'running' });
    const b = await store.createRun({ input: 'x', model: 'm', status: 'running' });
    // Another process holds the write lock past the busy timeout.
    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    const outcomes = await Promise.allSettled([store.append(a.id, [note('a')]), store.append(b.id, [note('b')])]);
    other.exec('ROLLBACK');
    other.close();
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.match(String((outcome as PromiseRejectedResult).reason), /could not append events.*busy/i);
    }
    assert.deepEqual(await store.readEvents(a.id), []);
    assert.deepEqual(await store.readEvents(b.id), []);
    // The store goes on working once the lock is free.
    assert.equal((await store.append(a.id, [note('later')]))[0]?.id, 1);
    await store.close();
  });

  it('commits appends still queued when the store is closed, and refuses appends after', async () => {
    const { store, path } = openStore();
    const run = await store.createRun({ input: 'x', model: 'm', status: 'running' });
    const pending = store.append(run.id, [note('just before close')]);
    await store.close();
    assert.equal((await pending)[0]?.id, 1);
    const reader = new DatabaseSync(path, { readOnly: true });
    assert.equal(Number((reader.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n), 1);
    reader.close();
    const error = await rejection(store.append(run.id, [note('too late')]));
    assert.ok(error instanceof ToolgateError);
    assert.match(error.message, /closed/);
  });
});

describe('SqliteConnection.transactionEach', () => {
  it('fails every job, keeping nothing, when SQLite abandons the whole transaction part-way', () => {
    const { connection, db } = openStore();
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = (v: string): TransactionJob<string> => ({
      action: () => `insert ${v}`,
      work: () => (db.prepare('INSERT INTO t VALUES (?)').run(v), v),
    });
    const outcomes = connection.transactionEach('insert rows', [
      insert('one'),
      {
        action: () => 'insert two',
        work: () => {
          // As after SQLITE_FULL or an I/O error: the transaction is gone, then the job fails.
          db.exec('ROLLBACK');
          throw new Error('disk is full');
        },
      },
      insert('three'),
    ]);
    assert.equal(outcomes.length, 3);
    for (const outcome of outcomes) {
      assert.equal(outcome.ok, false);
      assert.match(outcome.ok ? '' : outcome.error.message, /could not insert rows: disk is full/);
    }
    assert.equal(Number((db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n), 0);
    assert.equal(db.isTransaction, false);
  });

  it('with one job, reports its own error and leaves no transaction open', () => {
    const { connection, db } = openStore();
    const outcomes = connection.transactionEach('insert rows', [
      {
        action: () => 'insert the only row',
        work: () => {
          throw new ToolgateError('conflict', 'no');
        },
      },
    ]);
    assert.deepEqual(
      outcomes.map((o) => (o.ok ? 'ok' : o.error.message)),
      ['no'],
    );
    assert.equal(db.isTransaction, false);
  });
});

describe('GroupCommit', () => {
  it('rejects every queued job when the commit itself throws', async () => {
    const group = new GroupCommit<number>(
      () => {
        throw new Error('the commit broke');
      },
      () => assert.fail('nothing was committed'),
    );
    const outcomes = await Promise.allSettled([
      group.add({ action: () => 'a', work: () => 1 }),
      group.add({ action: () => 'b', work: () => 2 }),
    ]);
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : 'kept')),
      ['the commit broke', 'the commit broke'],
    );
  });
});
