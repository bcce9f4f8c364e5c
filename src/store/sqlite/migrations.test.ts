import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { ToolgateError, draft } from '../../core/index.ts';
import { applyMigrations } from './apply-migrations.ts';
import { SQLITE_MIGRATIONS } from './migrations.ts';
import { openSqliteRunStore } from './open-sqlite-run-store.ts';

/** The schema as released before runs remembered their end and threads were keyed per tenant. */
const FIRST_SCHEMA = SQLITE_MIGRATIONS.filter((m) => m.version === 1);
const TIME = '2025-01-02T03:04:05.000Z';
const USAGE = JSON.stringify({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

function insertRun(db: DatabaseSync, id: string, status: string, events: [type: string, data: object][]): void {
  db.prepare(
    `INSERT INTO runs (id, tenant_id, status, input, model, usage, last_event_id, created_at, updated_at)
     VALUES (?, 'a', ?, 'x', 'm', ?, ?, ?, ?)`,
  ).run(id, status, USAGE, events.length, TIME, TIME);
  const insert = db.prepare('INSERT INTO events (run_id, seq, type, time, data) VALUES (?, ?, ?, ?, ?)');
  events.forEach(([type, data], i) => insert.run(id, i + 1, type, TIME, JSON.stringify(data)));
}

function insertThread(db: DatabaseSync, id: string, tenantId: string | null, texts: string[]): void {
  db.prepare('INSERT INTO threads (id, tenant_id, created_at, updated_at) VALUES (?, ?, ?, ?)').run(
    id,
    tenantId,
    TIME,
    TIME,
  );
  const insert = db.prepare('INSERT INTO thread_messages (thread_id, seq, message) VALUES (?, ?, ?)');
  texts.forEach((text, i) => insert.run(id, i + 1, JSON.stringify({ role: 'user', content: text })));
}

/**
 * A database file as the first schema left it: open, finished and half-finished runs, threads with and without tenant.
 */
function firstSchemaDatabase(path: string): void {
  const db = new DatabaseSync(path);
  applyMigrations(db, { label: path, migrations: FIRST_SCHEMA });
  insertRun(db, 'run_open', 'running', [['user_message', { text: 'hi' }]]);
  insertRun(db, 'run_done', 'completed', [
    ['user_message', { text: 'hi' }],
    ['run_completed', { output: 'ok', usage: JSON.parse(USAGE) as object, steps: 1 }],
  ]);
  // A run whose log ended without its status being patched.
  insertRun(db, 'run_torn', 'running', [
    ['run_failed', { error: { code: 'internal', message: 'crash' } }],
    ['tool_result', { step: 1, toolCallId: 'c', name: 'quote', ok: true, content: [], latencyMs: 1 }],
  ]);
  insertThread(db, 'th1', 'a', ['first', 'second']);
  insertThread(db, 'th2', null, ['untenanted']);
  db.close();
}

function isConflict(error: unknown): true {
  assert.ok(error instanceof ToolgateError, String(error));
  assert.equal(error.code, 'conflict', error.message);
  return true;
}

describe('SQLite migrations from the first schema', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('opens a database of the first schema and keeps its runs, events and threads', async () => {
    const path = join(dir, 'runs-v1.db');
    firstSchemaDatabase(path);
    const store = await openSqliteRunStore({ path });
    try {
      assert.equal((await store.info()).schemaVersion, SQLITE_MIGRATIONS.length);
      assert.equal((await store.getRun('run_done'))?.status, 'completed');
      assert.equal((await store.readEvents('run_done')).length, 2);
      assert.equal((await store.listRuns()).runs.length, 3);

      const th1 = await store.getThread('th1', 'a');
      assert.deepEqual(
        th1?.messages.map((m) => m.content),
        ['first', 'second'],
      );
      assert.equal(th1?.tenantId, 'a');
      assert.equal(th1?.createdAt, TIME);
      const th2 = await store.getThread('th2');
      assert.deepEqual(
        th2?.messages.map((m) => m.content),
        ['untenanted'],
      );
      assert.ok(th2 !== undefined && !('tenantId' in th2));
      assert.equal(await store.getThread('th1'), undefined);
      assert.equal(await store.getThread('th2', 'a'), undefined);
    } finally {
      await store.close();
    }
    const raw = new DatabaseSync(path, { readOnly: true });
    try {
      assert.deepEqual(raw.prepare('PRAGMA foreign_key_check').all(), []);
      const targets = raw
        .prepare('PRAGMA foreign_key_list(thread_messages)')
        .all()
        .map((r) => `${String(r['from'])}->${String(r['table'])}.${String(r['to'])}`);
      assert.deepEqual(targets, ['tenant_id->threads.tenant_id', 'thread_id->threads.id']);
    } finally {
      raw.close();
    }
  });

  it('lets existing threads grow and other tenants use the same ids after the upgrade', async () => {
    const path = join(dir, 'threads-v1.db');
    firstSchemaDatabase(path);
    const store = await openSqliteRunStore({ path });
    try {
      await store.appendThreadMessages('th1', [{ role: 'user', content: 'third' }], 'a');
      await store.appendThreadMessages('th1', [{ role: 'user', content: 'b here' }], 'b');
      await store.appendThreadMessages('th1', [{ role: 'user', content: 'nobody here' }]);
      assert.deepEqual(
        (await store.getThread('th1', 'a'))?.messages.map((m) => m.content),
        ['first', 'second', 'third'],
      );
      assert.deepEqual(
        (await store.getThread('th1', 'b'))?.messages.map((m) => m.content),
        ['b here'],
      );
      assert.deepEqual(
        (await store.getThread('th1'))?.messages.map((m) => m.content),
        ['nobody here'],
      );
    } finally {
      await store.close();
    }
  });

  it('knows which existing runs have ended, from their status or from their log', async () => {
    const path = join(dir, 'ended-v1.db');
    firstSchemaDatabase(path);
    const store = await openSqliteRunStore({ path });
    try {
      await assert.rejects(store.append('run_done', [draft('user_message', { text: 'late' })]), isConflict);
      await assert.rejects(store.append('run_torn', [draft('user_message', { text: 'late' })]), isConflict);
      assert.equal((await store.readEvents('run_torn')).length, 2);
      const [next] = await store.append('run_open', [draft('user_message', { text: 'more' })]);
      assert.equal(next?.id, 2);
    } finally {
      await store.close();
    }
  });

  it(
    'gives existing runs no settings and no lease: open ' + 'runs can be claimed from epoch 1, ended ones not',
    async () => {
      const path = join(dir, 'leases-v1.db');
      firstSchemaDatabase(path);
      const store = await openSqliteRunStore({ path });
      try {
        const run = await store.getRun('run_open');
        assert.ok(run !== undefined && !('settings' in run));
        const leases = await store.claimNext({ owner: 'engine-a', ttlMs: 60_000, limit: 10 });
        assert.deepEqual(
          leases.map((l) => [l.runId, l.epoch]),
          [['run_open', 1]],
        );
        assert.equal(await store.claimRun('run_done', { owner: 'engine-a', ttlMs: 60_000 }), undefined);
        assert.equal(await store.claimRun('run_torn', { owner: 'engine-a', ttlMs: 60_000 }), undefined);
        const [lease] = leases;
        assert.ok(lease !== undefined);
        assert.equal(
          (await store.append('run_open', [draft('user_message', { text: 'fenced' })], undefined, { lease }))[0]?.id,
          2,
        );
      } finally {
        await store.close();
      }
    },
  );

  it('gives existing databases an empty set of tool pins that then keeps the first pin', async () => {
    const path = join(dir, 'pins-v1.db');
    firstSchemaDatabase(path);
    const store = await openSqliteRunStore({ path });
    try {
      assert.deepEqual(await store.listToolPins(), []);
      const pin = {
        server: 'crm',
        tool: 'list_orders',
        fingerprint: 'f1',
        definition: { name: 'list_orders' },
        pinnedAt: TIME,
        acceptedBy: 'first-seen',
      };
      assert.deepEqual(await store.pinToolIfNew(pin), pin);
      assert.deepEqual(await store.pinToolIfNew({ ...pin, fingerprint: 'f2' }), pin);
      assert.equal((await store.listRuns()).runs.length, 3);
    } finally {
      await store.close();
    }
  });
});
