// deleteRuns and compact on PostgreSQL, seen with raw SQL: DELETE of events passes only inside deleteRuns'
// transaction, UPDATE never; VACUUM FULL gives the space of pruned runs back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft } from '../../src/core/index.ts';
import { adminQuery, whenPostgres, withSchema } from './postgres-harness.ts';

await whenPostgres('PostgresRunStore: deleteRuns and compact', () => {
  describe('PostgresRunStore: deleteRuns and compact', () => {
    it('keeps the log append-only outside deleteRuns, and UPDATE refused even with the prune setting', () =>
      withSchema(async (open, schema) => {
        const store = await open();
        const gone = await store.createRun({ input: 'a', model: 'm' });
        const kept = await store.createRun({ input: 'b', model: 'm' });
        for (const run of [gone, kept])
          await store.append(run.id, [draft('user_message', { text: 'hi' })], { status: 'completed' });
        assert.deepEqual((await store.deleteRuns([gone.id])).deleted, [gone.id]);
        await assert.rejects(adminQuery(`UPDATE "${schema}".events SET type = 'x'`), /events are append-only/);
        await assert.rejects(adminQuery(`DELETE FROM "${schema}".events`), /events are append-only/);
        await assert.rejects(
          adminQuery(`DO $$ BEGIN SET LOCAL toolgate.prune = 'on'; UPDATE "${schema}".events SET type = 'x'; END $$`),
          /events are append-only/,
        );
        const left = await adminQuery(`SELECT run_id FROM "${schema}".events`);
        assert.deepEqual(
          left.map((row) => row['run_id']),
          [kept.id],
        );
      }));

    it('compacts with full: the tables shrink once the runs that filled them are deleted', () =>
      withSchema(async (open) => {
        const store = await open();
        const ids: string[] = [];
        const text = 'x'.repeat(4_000);
        for (let i = 0; i < 200; i += 1) {
          const run = await store.createRun({ input: 'fill', model: 'm' });
          await store.append(run.id, [draft('user_message', { text: `${i}${text}` })], { status: 'completed' });
          ids.push(run.id);
        }
        const plain = await store.compact();
        await store.deleteRuns(ids);
        const full = await store.compact({ full: true });
        assert.ok(plain.bytesAfter > 0 && full.bytesBefore > 0, JSON.stringify({ plain, full }));
        assert.ok(full.bytesAfter < full.bytesBefore, JSON.stringify(full));
        assert.equal((await store.listRuns()).runs.length, 0);
      }));
  });
});
