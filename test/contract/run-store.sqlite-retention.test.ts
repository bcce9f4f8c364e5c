// deleteRuns and compact on a SQLite file, seen with raw SQL: the append-only guard is back after every delete, and
// VACUUM gives the space of pruned runs back to the file system.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { draft } from '../../src/core/index.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';

const GUARD = "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'events_append_only_delete'";

describe('SqliteRunStore: deleteRuns and compact on the file', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-retention-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('deletes through the store only: raw UPDATE and DELETE of events are still refused afterwards', async () => {
    const path = join(dir, 'guard.db');
    const store = await openSqliteRunStore({ path });
    const raw = new DatabaseSync(path);
    try {
      const guard = raw.prepare(GUARD).get()?.['sql'];
      assert.match(String(guard), /events are append-only/);
      const [gone, kept] = [
        await store.createRun({ input: 'a', model: 'm' }),
        await store.createRun({ input: 'b', model: 'm' }),
      ];
      for (const run of [gone, kept])
        await store.append(run.id, [draft('user_message', { text: 'hi' })], { status: 'completed' });
      assert.deepEqual((await store.deleteRuns([gone.id])).deleted, [gone.id]);
      assert.equal(raw.prepare(GUARD).get()?.['sql'], guard);
      assert.throws(() => raw.exec("UPDATE events SET data = '{}'"), /events are append-only/);
      assert.throws(() => raw.exec('DELETE FROM events'), /events are append-only/);
      assert.equal(raw.prepare('SELECT count(*) AS n FROM events WHERE run_id = ?').get(gone.id)?.['n'], 0);
      assert.equal(raw.prepare('SELECT count(*) AS n FROM events WHERE run_id = ?').get(kept.id)?.['n'], 1);
    } finally {
      raw.close();
      await store.close();
    }
  });

  it('compacts: the file shrinks once the runs that filled it are deleted', async () => {
    const path = join(dir, 'shrink.db');
    const store = await openSqliteRunStore({ path });
    try {
      const ids: string[] = [];
      const text = 'x'.repeat(4_000);
      for (let i = 0; i < 300; i += 1) {
        const run = await store.createRun({ input: 'fill', model: 'm' });
        await store.append(run.id, [draft('user_message', { text })], { status: 'completed' });
        ids.push(run.id);
      }
      const first = await store.compact();
      await store.deleteRuns(ids);
      const second = await store.compact();
      assert.ok(first.bytesAfter > 1_000_000, `filled: ${first.bytesAfter}`);
      assert.ok(second.bytesAfter < first.bytesAfter / 4, `${first.bytesAfter} → ${second.bytesAfter}`);
      assert.equal((await store.listRuns()).runs.length, 0);
    } finally {
      await store.close();
    }
  });
});
