import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type ChangedRunsQuery, type Run, type RunStore } from '../../../src/core/index.ts';
import { newRun, sleep, toolgateError, userMessage, withStore, type RunStoreFactory } from './harness.ts';

/** Follows nextCursor to the end. */
async function allChanged(store: RunStore, query: ChangedRunsQuery): Promise<Run[]> {
  const list = store.listChangedRuns?.bind(store);
  assert.ok(list !== undefined, 'the store has listChangedRuns');
  const runs: Run[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages += 1) {
    const page = await list(cursor === undefined ? query : { ...query, cursor });
    runs.push(...page.runs);
    cursor = page.nextCursor;
    if (cursor === undefined) return runs;
  }
  assert.fail('pagination does not end');
}

async function end(store: RunStore, runId: string, status: 'completed' | 'failed' | 'cancelled'): Promise<void> {
  const terminal =
    status === 'completed'
      ? draft('run_completed', {
          output: 'ok',
          usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
          steps: 1,
        })
      : status === 'failed'
        ? draft('run_failed', { error: { code: 'internal', message: 'boom' } })
        : draft('run_cancelled', { reason: 'stop' });
  await store.append(runId, [userMessage('x'), terminal], { status });
}

function byUpdate(a: Run, b: Run): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function retentionContract(factory: RunStoreFactory): void {
  describe('listChangedRuns', () => {
    it('pages every run oldest change first by (updatedAt, id), each once', () =>
      withStore(factory, async (store) => {
        const ids: string[] = [];
        for (let i = 0; i < 7; i += 1) {
          ids.push((await store.createRun(newRun({ tenantId: `t${i % 2}` }))).id);
          if (i % 3 === 0) await sleep(3);
        }
        // The first run changes last: it moves to the end.
        await sleep(3);
        await store.append(ids[0] ?? '', [userMessage('later')]);
        const expected = (await Promise.all(ids.map((id) => store.getRun(id)))).filter((r) => r !== undefined);
        expected.sort(byUpdate);
        const listed = await allChanged(store, { limit: 2 });
        assert.deepEqual(
          listed.map((r) => r.id),
          expected.map((r) => r.id),
        );
        assert.equal(listed.at(-1)?.id, ids[0]);
        assert.deepEqual(listed, expected);
      }));

    it('filters by since, before and statuses', () =>
      withStore(factory, async (store) => {
        const old = await store.createRun(newRun());
        await end(store, old.id, 'completed');
        const cut = (await store.getRun(old.id))?.updatedAt ?? '';
        await sleep(5);
        const failed = await store.createRun(newRun());
        await end(store, failed.id, 'failed');
        const waiting = await store.createRun(newRun({ status: 'running' }));
        await store.append(waiting.id, [userMessage('wait')], { status: 'waiting_approval' });
        const mid = new Date(Date.parse(cut) + 1).toISOString();
        const ids = async (query: ChangedRunsQuery): Promise<string[]> =>
          (await allChanged(store, query)).map((r) => r.id).sort();
        assert.deepEqual(await ids({ before: mid }), [old.id]);
        assert.deepEqual(await ids({ since: mid }), [failed.id, waiting.id].sort());
        assert.deepEqual(await ids({ since: cut, before: mid }), [old.id]);
        assert.deepEqual(await ids({ statuses: ['completed', 'failed'] }), [old.id, failed.id].sort());
        assert.deepEqual(await ids({ statuses: ['waiting_approval'], limit: 1 }), [waiting.id]);
        assert.deepEqual(await ids({ statuses: [] }), []);
        await assert.rejects(store.listChangedRuns?.({ cursor: 'nope' }) ?? Promise.reject(), toolgateError('usage'));
      }));
  });

  describe('deleteRuns', () => {
    it('removes ended runs with their events and keys; keeps runs that have not ended and names unknown ones', () =>
      withStore(factory, async (store) => {
        const deleteRuns = store.deleteRuns?.bind(store);
        assert.ok(deleteRuns !== undefined);
        const done = await store.createRunIdempotent(newRun({ tenantId: 'a' }), { key: 'k1', requestHash: 'h1' });
        await end(store, done.run.id, 'completed');
        const failed = await store.createRun(newRun({ threadId: 'th' }));
        await end(store, failed.id, 'failed');
        const cancelled = await store.createRun(newRun());
        await end(store, cancelled.id, 'cancelled');
        const waiting = await store.createRun(newRun());
        await store.append(waiting.id, [userMessage('hold')], { status: 'waiting_approval' });
        const other = await store.createRun(newRun());
        await end(store, other.id, 'completed');
        const otherEvents = await store.readEvents(other.id);
        await store.appendThreadMessages('th', [{ role: 'user', content: 'kept' }]);

        const result = await deleteRuns([done.run.id, failed.id, cancelled.id, waiting.id, 'run_nope', failed.id]);
        assert.deepEqual([...result.deleted].sort(), [done.run.id, failed.id, cancelled.id].sort());
        assert.deepEqual(
          [...result.kept].sort((a, b) => a.runId.localeCompare(b.runId)),
          [
            { runId: 'run_nope', reason: 'not_found' },
            { runId: waiting.id, reason: 'not_ended' },
          ].sort((a, b) => a.runId.localeCompare(b.runId)),
        );
        for (const id of result.deleted) {
          assert.equal(await store.getRun(id), undefined);
          await assert.rejects(store.readEvents(id), toolgateError('not_found'));
          await assert.rejects(store.append(id, [userMessage('ghost')]), toolgateError('not_found'));
        }
        // The key went with its run: the same key creates a new run.
        const again = await store.createRunIdempotent(newRun({ tenantId: 'a' }), { key: 'k1', requestHash: 'h2' });
        assert.equal(again.created, true);
        assert.notEqual(again.run.id, done.run.id);
        // Everything else is as it was.
        assert.equal((await store.getRun(waiting.id))?.status, 'waiting_approval');
        assert.equal((await store.readEvents(waiting.id)).length, 1);
        assert.deepEqual(await store.readEvents(other.id), otherEvents);
        assert.equal((await store.getThread('th'))?.messages.length, 1);
        const listed = (await store.listRuns()).runs.map((r) => r.id).sort();
        assert.deepEqual(listed, [waiting.id, other.id, again.run.id].sort());
        assert.deepEqual(await deleteRuns([]), { deleted: [], kept: [] });
      }));

    it('removes many runs, in batches, and lists what is left', () =>
      withStore(factory, async (store) => {
        const ids: string[] = [];
        for (let i = 0; i < 230; i += 1) {
          const run = await store.createRun(newRun({ status: 'completed' }));
          ids.push(run.id);
        }
        const keep = await store.createRun(newRun());
        const result = await store.deleteRuns?.(ids);
        assert.equal(result?.deleted.length, 230);
        assert.deepEqual(
          (await allChanged(store, {})).map((r) => r.id),
          [keep.id],
        );
      }));
  });

  describe('compact', () => {
    it('reports the size before and after as whole numbers of bytes', () =>
      withStore(factory, async (store) => {
        const run = await store.createRun(newRun());
        await end(store, run.id, 'completed');
        await store.deleteRuns?.([run.id]);
        const result = await store.compact?.();
        assert.ok(result !== undefined);
        assert.ok(Number.isSafeInteger(result.bytesBefore) && result.bytesBefore >= 0, String(result.bytesBefore));
        assert.ok(Number.isSafeInteger(result.bytesAfter) && result.bytesAfter >= 0, String(result.bytesAfter));
        // The store works on after compacting.
        const next = await store.createRun(newRun());
        assert.equal((await store.getRun(next.id))?.id, next.id);
      }));
  });
}
