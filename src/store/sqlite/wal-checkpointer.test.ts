import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { openSqliteRunStore } from './open-sqlite-run-store.ts';
import { WalCheckpointer, type CheckpointHost } from './wal-checkpointer.ts';
import { waitUntil } from '../../../test/support/wait-until.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-wal-checkpointer-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A WAL database with automatic checkpoints off, as openSqliteRunStore leaves the store's connection. */
function openWal(): { db: DatabaseSync; path: string } {
  files += 1;
  const path = join(dir, `wal-${files}.db`);
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA wal_autocheckpoint = 0');
  // As the store's connection: a write that meets the checkpoint thread's locks waits instead of failing.
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  return { db, path };
}

/** The host openSqliteRunStore gives the checkpointer, counting what it is asked to do. */
function hostFor(db: DatabaseSync): CheckpointHost & { restored: number } {
  const host = {
    restored: 0,
    checkpoint: () => db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get()?.['busy'] === 0,
    restoreAutomatic: () => {
      host.restored += 1;
      db.exec('PRAGMA wal_autocheckpoint = 1000');
    },
  };
  return host;
}

const size = (file: string): number => (existsSync(file) ? statSync(file).size : 0);
// setImmediate: the thread's reports are heard, but the writes never pause long enough for a checkpoint to finish the
// WAL alone.
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Commits `count` small transactions, telling the checkpointer of each, and lets the event loop turn now and then. */
async function commit(db: DatabaseSync, checkpointer: WalCheckpointer, count: number, offset = 0): Promise<void> {
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  for (let i = offset; i < offset + count; i++) {
    db.exec('BEGIN IMMEDIATE');
    insert.run('x'.repeat(1500));
    db.exec('COMMIT');
    checkpointer.committed();
    if (i % 8 === 0) await turn();
  }
}

describe('WalCheckpointer', () => {
  it(
    'has a worker thread copy the WAL into the database ' + 'file while the connection itself never checkpoints',
    async () => {
      const { db, path } = openWal();
      const checkpointer = new WalCheckpointer({ path, synchronous: 'NORMAL', host: hostFor(db), everyCommits: 20 });
      const before = size(path);
      await commit(db, checkpointer, 19);
      await turn();
      assert.equal(checkpointer.stats.workerCheckpoints, 0, 'no checkpoint before the first nudge');
      assert.equal(size(path), before, 'with automatic checkpoints off, the pages stay in the WAL');
      await commit(db, checkpointer, 1);
      await waitUntil(() => checkpointer.stats.workerCheckpoints === 1, 'the first checkpoint');
      assert.ok(
        size(path) > before + 19 * 1500,
        `the thread copied the pages into the database file (${before} → ${size(path)} bytes)`,
      );
      assert.equal(checkpointer.stats.catchUps, 0, 'a small WAL needs no catch-up');
      assert.equal(checkpointer.active, true);
      await checkpointer.close();
      db.close();
    },
  );

  it(
    'keeps the WAL bounded under writes that never pause, ' + 'by finishing each large checkpoint on the connection',
    async () => {
      const { db, path } = openWal();
      const checkpointer = new WalCheckpointer({
        path,
        synchronous: 'NORMAL',
        host: hostFor(db),
        everyCommits: 16,
        catchUpFrames: 200,
      });
      await commit(db, checkpointer, 16);
      await waitUntil(() => checkpointer.stats.workerCheckpoints === 1, 'the thread to start');
      // 6,000 commits of one 1.5 kB row, two pages each: without the WAL starting over it would reach 12,000 pages (48
      // MB).
      // Bounded, it starts over after each catch-up: it holds what was committed since the last one. How many commits
      // that is depends on how fast the thread checkpoints (slower on a loaded machine), so it is counted, not assumed.
      let largest = 0;
      let sinceCatchUp = 0;
      let mostBetweenCatchUps = 0;
      let catchUps = checkpointer.stats.catchUps;
      for (let round = 0; round < 6000; round++) {
        await commit(db, checkpointer, 1, round);
        sinceCatchUp += 1;
        if (checkpointer.stats.catchUps !== catchUps) {
          catchUps = checkpointer.stats.catchUps;
          sinceCatchUp = 0;
        }
        mostBetweenCatchUps = Math.max(mostBetweenCatchUps, sinceCatchUp);
        if (round % 40 === 39) largest = Math.max(largest, size(`${path}-wal`));
      }
      const pageSize = Number(db.prepare('PRAGMA page_size').get()?.['page_size']);
      const frames = Math.round(largest / (pageSize + 24));
      assert.ok(
        checkpointer.stats.catchUps >= 2,
        `the connection finished checkpoints (${checkpointer.stats.catchUps})`,
      );
      assert.ok(mostBetweenCatchUps < 6000, 'the WAL started over before the end');
      assert.ok(
        frames <= 3 * mostBetweenCatchUps + 16,
        `the WAL held at most what was committed since the last catch-up ` +
          `(three pages a commit): ${frames} pages, ${mostBetweenCatchUps} commits`,
      );
      assert.ok(
        checkpointer.stats.workerCheckpoints >= 10,
        `the thread checkpointed (${checkpointer.stats.workerCheckpoints} times)`,
      );
      assert.equal(db.prepare('SELECT count(*) AS n FROM t').get()?.['n'], 6016);
      await checkpointer.close();
      db.close();
    },
  );

  it('gives checkpoints back to SQLite when the thread cannot open the database', async () => {
    const { db } = openWal();
    const host = hostFor(db);
    const checkpointer = new WalCheckpointer({
      path: join(dir, 'no such folder', 'x.db'),
      synchronous: 'NORMAL',
      host,
      everyCommits: 1,
    });
    checkpointer.committed();
    await waitUntil(() => !checkpointer.active, 'the failure');
    assert.equal(host.restored, 1);
    assert.equal(db.prepare('PRAGMA wal_autocheckpoint').get()?.['wal_autocheckpoint'], 1000);
    assert.match(checkpointer.stats.failure ?? '', /unable to open/);
    checkpointer.committed();
    assert.equal(host.restored, 1, 'told once');
    await checkpointer.close();
    db.close();
  });

  it(
    'closes the thread’s connection before the store’s, ' + 'so the store’s close checkpoints and removes the WAL',
    async () => {
      files += 1;
      const path = join(dir, `store-${files}.db`);
      const store = await openSqliteRunStore({ path });
      const run = await store.createRun({ input: 'x', model: 'm', status: 'running' });
      // Past the first nudge (every 128 commits), so the thread is running.
      for (let i = 0; i < 300; i++)
        await store.append(run.id, [{ type: 'user_message', data: { text: `message ${i}` } }]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(existsSync(`${path}-wal`));
      await store.close();
      assert.equal(existsSync(`${path}-wal`), false, 'the last connection to close removes the WAL');
      const reader = new DatabaseSync(path, { readOnly: true });
      assert.equal(reader.prepare('SELECT count(*) AS n FROM events').get()?.['n'], 300);
      reader.close();
    },
  );

  it('does not keep a process alive: one that never closes its store still exits', async () => {
    const module = fileURLToPath(new URL('./open-sqlite-run-store.ts', import.meta.url));
    const script = `
      const { openSqliteRunStore } = await import(${JSON.stringify(module)});
      const store = await openSqliteRunStore({ path: ${JSON.stringify(join(dir, 'never-closed.db'))} });
      const run = await store.createRun({ input: 'x', model: 'm', status: 'running' });
      for (let i = 0; i < 300; i++) await store.append(run.id, [{ type: 'user_message', data: { text: 'm' + i } }]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      console.log('appended');
    `;
    // From a file: a script given with -e is ended once evaluated, whatever it left running.
    const file = join(dir, 'never-closes.mjs');
    writeFileSync(file, script);
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    clearTimeout(timer);
    assert.equal(out.trim(), 'appended', err);
    assert.deepEqual([code, signal], [0, null], 'the process ended by itself, with the checkpoint thread running');
  });
});
