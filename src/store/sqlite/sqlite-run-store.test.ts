import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ToolgateError, draft, type ErrorCode } from '../../core/index.ts';
import { openSqliteRunStore } from './open-sqlite-run-store.ts';

function isToolgateError(code: ErrorCode, message?: RegExp): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError, String(error));
    assert.equal(error.code, code, error.message);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  };
}

// Appends to one run from a separate process. Written to the temp dir at test time
// so no helper script ships with the package.
// With "until-ended" it paces itself (a tight loop could starve the other
// writer past its busy timeout) and stops quietly at the first conflict.
const WORKER_SOURCE = `
const [storeModule, path, runId, count, mode] = process.argv.slice(2);
const { openSqliteRunStore } = await import(storeModule);
const store = await openSqliteRunStore({ path });
process.stdout.write('ready\\n');
try {
  for (let i = 0; i < Number(count); i += 1) {
    await store.append(runId, [{ type: 'user_message', data: { text: 'child ' + i } }]);
    if (mode === 'until-ended') await new Promise((resolve) => setTimeout(resolve, 1));
  }
} catch (error) {
  if (mode !== 'until-ended' || error.code !== 'conflict') throw error;
}
await store.close();
`;

/** Starts the worker; `ready` resolves once it has opened the store, `done` when it exits cleanly. */
function startWorker(dir: string, args: string[]): { ready: Promise<void>; done: Promise<void> } {
  const script = join(dir, 'append-worker.mjs');
  writeFileSync(script, WORKER_SOURCE);
  const storeModule = new URL('./open-sqlite-run-store.ts', import.meta.url).href;
  const worker = spawn(process.execPath, [script, storeModule, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  worker.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    worker.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    worker.on('exit', () => reject(new Error(`worker exited before it was ready: ${stderr}`)));
  });
  const done = new Promise<void>((resolve, reject) => {
    worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker failed (${code}): ${stderr}`))));
  });
  return { ready, done };
}

describe('SqliteRunStore', () => {
  let dir = '';
  let n = 0;
  const file = (): string => join(dir, `runs-${(n += 1)}.db`);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('numbers events without gap when two processes append to one run at once', async () => {
    const path = file();
    const store = await openSqliteRunStore({ path, synchronous: 'NORMAL' });
    const { id } = await store.createRun({ input: 'x', model: 'm' });
    const worker = startWorker(dir, [path, id, '150']);
    await worker.ready;
    for (let i = 0; i < 150; i += 1) await store.append(id, [draft('user_message', { text: `parent ${i}` })]);
    await worker.done;
    const events = await store.readEvents(id);
    assert.deepEqual(
      events.map((e) => e.id),
      Array.from({ length: 300 }, (_, i) => i + 1),
    );
    const texts = events.map((e) => (e.type === 'user_message' ? e.data.text : ''));
    // Each process's own events keep their order.
    assert.deepEqual(
      texts.filter((t) => t.startsWith('child')),
      Array.from({ length: 150 }, (_, i) => `child ${i}`),
    );
    assert.deepEqual(
      texts.filter((t) => t.startsWith('parent')),
      Array.from({ length: 150 }, (_, i) => `parent ${i}`),
    );
    assert.equal((await store.getRun(id))?.lastEventId, 300);
    await store.close();
  });

  it('ends the log with the terminal event when another process keeps appending', async () => {
    const path = file();
    const store = await openSqliteRunStore({ path, synchronous: 'NORMAL' });
    const { id } = await store.createRun({ input: 'x', model: 'm', status: 'running' });
    const worker = startWorker(dir, [path, id, '20000', 'until-ended']);
    await worker.ready;
    for (let i = 0; i < 50; i += 1) await store.append(id, [draft('user_message', { text: `parent ${i}` })]);
    await store.append(id, [draft('run_failed', { error: { code: 'internal', message: 'crashed' } })], {
      status: 'failed',
    });
    await worker.done;
    const events = await store.readEvents(id);
    assert.equal(events.at(-1)?.type, 'run_failed');
    assert.equal(events.filter((e) => e.type === 'run_failed').length, 1);
    assert.equal((await store.getRun(id))?.lastEventId, events.length);
    await store.close();
  });

  it('refuses an append through one connection after another connection ended the run', async () => {
    const path = file();
    const one = await openSqliteRunStore({ path });
    const two = await openSqliteRunStore({ path });
    const { id } = await one.createRun({ input: 'x', model: 'm', status: 'running' });
    await two.append(id, [draft('user_message', { text: 'hello' })]);
    // No status patch: only the log says the run has ended.
    await one.append(id, [draft('run_cancelled', { reason: 'stop' })]);
    await assert.rejects(
      two.append(id, [draft('user_message', { text: 'late' })]),
      isToolgateError('conflict', /has ended \(cancelled\)/),
    );
    assert.equal((await two.readEvents(id)).length, 2);
    await one.close();
    await two.close();
  });

  it('continues the numbering of appends made through another connection to the file', async () => {
    const path = file();
    const one = await openSqliteRunStore({ path });
    const two = await openSqliteRunStore({ path });
    const { id } = await one.createRun({ input: 'x', model: 'm' });
    await one.append(id, [draft('user_message', { text: 'a' })]);
    const [event] = await two.append(id, [draft('user_message', { text: 'b' })], { status: 'running' });
    assert.equal(event?.id, 2);
    assert.equal((await one.getRun(id))?.status, 'running');
    await one.close();
    await two.close();
  });

  it('reports a write lock held too long as store_unavailable, naming the file, and recovers afterwards', async () => {
    const path = file();
    const store = await openSqliteRunStore({ path, busyTimeoutMs: 50 });
    const { id } = await store.createRun({ input: 'x', model: 'm' });
    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    try {
      await assert.rejects(
        store.append(id, [draft('user_message', { text: 'blocked' })]),
        isToolgateError(
          'store_unavailable',
          new RegExp(`${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*busy timeout \\(50 ms\\)`),
        ),
      );
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    const [event] = await store.append(id, [draft('user_message', { text: 'free again' })]);
    assert.equal(event?.id, 1);
    await store.close();
  });

  it('rolls back an append that fails part-way: no event, no patch, no gap', async () => {
    const store = await openSqliteRunStore({ path: file() });
    const { id } = await store.createRun({ input: 'x', model: 'm' });
    const unserialisable = draft('user_message', { text: 'bad' });
    (unserialisable.data as unknown as Record<string, unknown>)['n'] = 1n;
    await assert.rejects(
      store.append(id, [draft('user_message', { text: 'good' }), unserialisable], { status: 'running' }),
      isToolgateError('internal', /could not append events to run .*BigInt/),
    );
    assert.deepEqual(await store.readEvents(id), []);
    const run = await store.getRun(id);
    assert.equal(run?.status, 'queued');
    assert.equal(run?.lastEventId, 0);
    assert.equal((await store.append(id, [draft('user_message', { text: 'next' })]))[0]?.id, 1);
    await store.close();
  });

  it('keeps the event log append-only, in the code and in the database', async () => {
    const sources = globSync('*.ts', { cwd: fileURLToPath(new URL('.', import.meta.url)) }).filter(
      (f) => !f.endsWith('.test.ts'),
    );
    for (const source of sources) {
      const text = readFileSync(new URL(source, import.meta.url), 'utf8');
      assert.doesNotMatch(text, /UPDATE\s+events\b|REPLACE\s+INTO\s+events\b/i, `${source} rewrites events`);
      // Retention's deleteRuns removes whole ended runs, the only way events ever leave the log; nothing else may.
      const deletes = text.match(/DELETE\s+FROM\s+events\b[^'`]*/gi) ?? [];
      const allowed = source === 'sqlite-retention.ts' ? ['DELETE FROM events WHERE run_id = ?'] : [];
      assert.deepEqual(deletes, allowed, `${source} deletes events`);
    }
    const path = file();
    const store = await openSqliteRunStore({ path });
    const { id } = await store.createRun({ input: 'x', model: 'm' });
    await store.append(id, [draft('user_message', { text: 'original' })]);
    const raw = new DatabaseSync(path);
    assert.throws(() => raw.exec("UPDATE events SET data = '{}'"), /events are append-only/);
    assert.throws(() => raw.exec('DELETE FROM events'), /events are append-only/);
    raw.close();
    assert.deepEqual((await store.readEvents(id))[0]?.data, { text: 'original' });
    await store.close();
  });

  it('prunes expired idempotency keys when it stores a new one', async () => {
    const path = file();
    const store = await openSqliteRunStore({ path });
    await store.createRunIdempotent({ input: 'x', model: 'm' }, { key: 'old', requestHash: 'h', ttlMs: 1 });
    await store.createRunIdempotent({ input: 'x', model: 'm' }, { key: 'kept', requestHash: 'h' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await store.createRunIdempotent({ input: 'x', model: 'm' }, { key: 'new', requestHash: 'h' });
    const raw = new DatabaseSync(path, { readOnly: true });
    const keys = raw
      .prepare('SELECT key FROM idempotency_keys ORDER BY key')
      .all()
      .map((r) => r['key']);
    raw.close();
    assert.deepEqual(keys, ['kept', 'new']);
    await store.close();
  });

  it('refuses to subscribe to an unknown run with not_found', async () => {
    const store = await openSqliteRunStore({ path: ':memory:' });
    assert.throws(() => store.subscribe('run_missing', () => {}), isToolgateError('not_found'));
    await store.close();
  });

  it(
    'knows the runs it created or found without asking ' + 'the database again; an unknown run is still not_found',
    async () => {
      const path = file();
      const one = await openSqliteRunStore({ path });
      const two = await openSqliteRunStore({ path });
      const created = await one.createRun({ input: 'x', model: 'm' });
      const claimed = await one.createAndClaimRun({ input: 'y', model: 'm' }, { owner: 'a', ttlMs: 60_000 });
      const elsewhere = await two.createRun({ input: 'z', model: 'm' });
      // Created through another connection: found in the database, then known.
      one.subscribe(elsewhere.id, () => {})();
      // Runs are never deleted, so a known run is not looked up again. Removing the rows behind the store's
      // back (nothing in toolgate does) shows which runs the store knows without asking the database.
      const raw = new DatabaseSync(path);
      raw.exec('DELETE FROM runs');
      raw.close();
      for (const id of [created.id, claimed.run.id, elsewhere.id]) {
        one.subscribe(id, () => {})();
        assert.deepEqual(await one.readEvents(id), []);
      }
      // Never known to this connection: looked up, and gone.
      const unseen = await two.createRun({ input: 'w', model: 'm' });
      const again = new DatabaseSync(path);
      again.prepare('DELETE FROM runs WHERE id = ?').run(unseen.id);
      again.close();
      assert.throws(() => one.subscribe(unseen.id, () => {}), isToolgateError('not_found'));
      // Still refused: a run nobody created.
      assert.throws(() => one.subscribe('run_missing', () => {}), isToolgateError('not_found'));
      await assert.rejects(one.readEvents('run_missing'), isToolgateError('not_found'));
      await one.close();
      await two.close();
    },
  );
});
