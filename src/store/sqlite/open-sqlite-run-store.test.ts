import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { ToolgateError, type ErrorCode } from '../../core/index.ts';
import { SQLITE_MIGRATIONS } from './migrations.ts';
import { openSqliteRunStore, retryWhileBusy } from './open-sqlite-run-store.ts';

function rejectsWith(code: ErrorCode, message: RegExp): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

describe('openSqliteRunStore', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates missing parent directories and opens with WAL, NORMAL, foreign keys and the busy timeout', async () => {
    const path = join(dir, 'a', 'b', 'runs.db');
    const store = await openSqliteRunStore({ path });
    assert.deepEqual(await store.info(), {
      path,
      schemaVersion: SQLITE_MIGRATIONS.length,
      journalMode: 'wal',
      synchronous: 'NORMAL',
      foreignKeys: true,
      busyTimeoutMs: 5000,
    });
    await store.close();
  });

  it('honours synchronous FULL and busyTimeoutMs', async () => {
    const store = await openSqliteRunStore({ path: join(dir, 'full.db'), synchronous: 'FULL', busyTimeoutMs: 250 });
    const info = await store.info();
    assert.equal(info.synchronous, 'FULL');
    assert.equal(info.busyTimeoutMs, 250);
    await store.close();
  });

  it('opens an in-memory database for :memory:', async () => {
    const store = await openSqliteRunStore({ path: ':memory:' });
    const run = await store.createRun({ input: 'x', model: 'm' });
    assert.equal((await store.getRun(run.id))?.id, run.id);
    assert.equal((await store.info()).path, ':memory:');
    await store.close();
  });

  it('rejects bad options with config_invalid', async () => {
    await assert.rejects(openSqliteRunStore({ path: ' ' }), rejectsWith('config_invalid', /path is empty/));
    await assert.rejects(
      openSqliteRunStore({ path: join(dir, 'x.db'), synchronous: 'OFF' as 'FULL' }),
      rejectsWith('config_invalid', /synchronous must be "FULL" or "NORMAL", got "OFF"/),
    );
    await assert.rejects(
      openSqliteRunStore({ path: join(dir, 'x.db'), busyTimeoutMs: -1 }),
      rejectsWith('config_invalid', /busyTimeoutMs/),
    );
  });

  it('refuses a database whose schema is newer than this code knows', async () => {
    const path = join(dir, 'future.db');
    const raw = new DatabaseSync(path);
    raw.exec('PRAGMA user_version = 99');
    raw.close();
    const latest = SQLITE_MIGRATIONS.length;
    const expected = new RegExp(
      `database schema version 99 is newer than this toolgate ` +
        `supports \\(${latest}\\); upgrade toolgate.*${escape(path)}`,
    );
    await assert.rejects(openSqliteRunStore({ path }), rejectsWith('internal', expected));
  });

  it('reports a file that is not a SQLite database, naming it and what to do', async () => {
    const path = join(dir, 'garbage.db');
    writeFileSync(path, 'this is not a database, just some text that is long enough to have a header '.repeat(20));
    await assert.rejects(
      openSqliteRunStore({ path }),
      rejectsWith(
        'internal',
        new RegExp(`^SQLite store ${escape(path)}: could not open the database: .*not a toolgate SQLite database`),
      ),
    );
  });

  it('reports a parent directory it cannot create', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    await assert.rejects(
      openSqliteRunStore({ path: join(blocker, 'runs.db') }),
      rejectsWith('internal', /could not create the directory .*a-file/),
    );
  });

  it('several processes opening one new file at once all get the store, its schema applied once', async () => {
    const { spawn } = await import('node:child_process');
    const { pathToFileURL } = await import('node:url');
    const entry = pathToFileURL(join(process.cwd(), 'src/store/sqlite/open-sqlite-run-store.ts')).href;
    const script = `const { openSqliteRunStore } = await import(${JSON.stringify(entry)});
      const store = await openSqliteRunStore({ path: process.argv[1] });
      await store.createRun({ input: 'x', model: 'm' });
      await store.close();`;
    for (let round = 0; round < 3; round += 1) {
      const path = join(dir, `together-${round}.db`);
      const codes = await Promise.all(
        [0, 1, 2, 3].map(
          () =>
            new Promise<string>((resolve) => {
              const child = spawn(process.execPath, ['--input-type=module', '-e', script, path], {
                stdio: ['ignore', 'ignore', 'pipe'],
              });
              let stderr = '';
              child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
              child.on('close', (code) => resolve(code === 0 ? 'ok' : stderr));
            }),
        ),
      );
      assert.deepEqual(codes, ['ok', 'ok', 'ok', 'ok']);
      const store = await openSqliteRunStore({ path });
      assert.equal((await store.listRuns()).runs.length, 4);
      await store.close();
    }
  });
});

describe('retryWhileBusy', () => {
  const busy = (errcode: number): Error => Object.assign(new Error('database is locked'), { errcode });

  it('tries again while SQLite answers busy (any busy code), then returns the result', async () => {
    let calls = 0;
    const slept: number[] = [];
    const result = await retryWhileBusy(
      () => {
        calls += 1;
        if (calls === 1) throw busy(5);
        if (calls === 2) throw busy(261); // SQLITE_BUSY_RECOVERY
        return 'opened';
      },
      { timeoutMs: 1_000, sleep: async (ms) => void slept.push(ms) },
    );
    assert.equal(result, 'opened');
    assert.equal(calls, 3);
    assert.equal(slept.length, 2);
  });

  it('throws any other error at once, and a busy one once the time is up', async () => {
    let calls = 0;
    const other = Object.assign(new Error('file is not a database'), { errcode: 26 });
    await assert.rejects(
      retryWhileBusy(
        () => {
          calls += 1;
          throw other;
        },
        { timeoutMs: 1_000, sleep: async () => undefined },
      ),
      (error) => error === other,
    );
    assert.equal(calls, 1);
    let clock = 0;
    calls = 0;
    await assert.rejects(
      retryWhileBusy(
        () => {
          calls += 1;
          throw busy(5);
        },
        { timeoutMs: 50, now: () => clock, sleep: async (ms) => void (clock += ms) },
      ),
      /database is locked/,
    );
    assert.ok(calls > 1 && clock >= 50, `tried ${calls} times over ${clock} ms`);
  });
});
