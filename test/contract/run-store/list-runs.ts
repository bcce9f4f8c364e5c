import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListRunsQuery, Run, RunStore } from '../../../src/core/index.ts';
import { newRun, oneTo, sleep, toolgateError, userMessage, withStore, type RunStoreFactory } from './harness.ts';

/** Follows nextCursor to the end; returns every page. */
async function allPages(store: RunStore, query: ListRunsQuery): Promise<Run[][]> {
  const pages: Run[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listRuns(cursor === undefined ? query : { ...query, cursor });
    pages.push(page.runs);
    cursor = page.nextCursor;
    assert.ok(pages.length <= 100, 'pagination does not end');
  } while (cursor !== undefined);
  return pages;
}

function idSet(runs: readonly Run[]): Set<string> {
  return new Set(runs.map((r) => r.id));
}

function assertNewestFirst(runs: readonly Run[]): void {
  for (let i = 1; i < runs.length; i += 1) {
    const [prev, next] = [runs[i - 1], runs[i]];
    assert.ok(
      prev !== undefined && next !== undefined && prev.createdAt >= next.createdAt,
      `runs out of order at ${i}`,
    );
  }
}

export function listRunsContract(factory: RunStoreFactory): void {
  describe('listRuns', () => {
    it('returns an empty page without a cursor when there are no runs', () =>
      withStore(factory, async (store) => {
        assert.deepEqual(await store.listRuns(), { runs: [] });
      }));

    it('filters by tenant, status and thread, alone and together', () =>
      withStore(factory, async (store) => {
        const a1 = await store.createRun(newRun({ tenantId: 'a', threadId: 't1' }));
        const a2 = await store.createRun(newRun({ tenantId: 'a', status: 'running' }));
        const b1 = await store.createRun(newRun({ tenantId: 'b', threadId: 't1' }));
        const none = await store.createRun(newRun());
        // The status filter sees statuses changed by append.
        await store.append(a1.id, [userMessage('x')], { status: 'completed' });

        assert.deepEqual(idSet((await store.listRuns()).runs), new Set([a1.id, a2.id, b1.id, none.id]));
        assert.deepEqual(idSet((await store.listRuns({ tenantId: 'a' })).runs), new Set([a1.id, a2.id]));
        assert.deepEqual(idSet((await store.listRuns({ status: 'running' })).runs), new Set([a2.id]));
        assert.deepEqual(idSet((await store.listRuns({ status: 'completed' })).runs), new Set([a1.id]));
        assert.deepEqual(idSet((await store.listRuns({ status: 'queued' })).runs), new Set([b1.id, none.id]));
        assert.deepEqual(idSet((await store.listRuns({ threadId: 't1' })).runs), new Set([a1.id, b1.id]));
        assert.deepEqual(idSet((await store.listRuns({ tenantId: 'a', threadId: 't1' })).runs), new Set([a1.id]));
        assert.deepEqual(idSet((await store.listRuns({ tenantId: 'b', status: 'running' })).runs), new Set());
        assert.deepEqual((await store.listRuns({ tenantId: 'nobody' })).runs, []);
        const [listed] = (await store.listRuns({ status: 'completed' })).runs;
        assert.deepEqual(listed, await store.getRun(a1.id));
      }));

    it('lists newest first', () =>
      withStore(factory, async (store) => {
        const created: string[] = [];
        for (let i = 0; i < 3; i += 1) {
          created.push((await store.createRun(newRun())).id);
          // Distinct creation times, so "newest" is unambiguous.
          await sleep(3);
        }
        assert.deepEqual(
          (await store.listRuns()).runs.map((r) => r.id),
          created.reverse(),
        );
      }));

    it('pages with a cursor, covering every run exactly once', () =>
      withStore(factory, async (store) => {
        const created = await Promise.all(oneTo(7).map(() => store.createRun(newRun())));
        const pages = await allPages(store, { limit: 3 });
        assert.deepEqual(
          pages.map((p) => p.length),
          [3, 3, 1],
        );
        const listed = pages.flat();
        assert.equal(listed.length, 7);
        assert.deepEqual(idSet(listed), idSet(created));
        assertNewestFirst(listed);
      }));

    it('ends without a cursor when the last page is exactly full', () =>
      withStore(factory, async (store) => {
        await Promise.all(oneTo(6).map(() => store.createRun(newRun())));
        const first = await store.listRuns({ limit: 3 });
        assert.equal(first.runs.length, 3);
        assert.ok(first.nextCursor !== undefined);
        const second = await store.listRuns({ limit: 3, cursor: first.nextCursor });
        assert.equal(second.runs.length, 3);
        assert.equal(second.nextCursor, undefined);
      }));

    it('pages through a filtered list', () =>
      withStore(factory, async (store) => {
        const mine = await Promise.all(oneTo(5).map(() => store.createRun(newRun({ tenantId: 'a' }))));
        await Promise.all(oneTo(4).map(() => store.createRun(newRun({ tenantId: 'b' }))));
        const listed = (await allPages(store, { tenantId: 'a', limit: 2 })).flat();
        assert.equal(listed.length, 5);
        assert.deepEqual(idSet(listed), idSet(mine));
      }));

    it('neither repeats nor skips older runs when a run is created between two pages', () =>
      withStore(factory, async (store) => {
        const older = await Promise.all(oneTo(5).map(() => store.createRun(newRun())));
        const first = await store.listRuns({ limit: 2 });
        await sleep(3);
        const newer = await store.createRun(newRun());
        assert.ok(first.nextCursor !== undefined);
        const rest = (await allPages(store, { limit: 2, cursor: first.nextCursor })).flat();
        const listed = [...first.runs, ...rest].map((r) => r.id);
        assert.equal(new Set(listed).size, listed.length, `a run was listed twice: ${listed.join(', ')}`);
        assert.deepEqual(new Set(listed.filter((id) => id !== newer.id)), idSet(older));
      }));

    it('rejects a cursor it did not issue with usage', () =>
      withStore(factory, async (store) => {
        await store.createRun(newRun());
        await assert.rejects(store.listRuns({ cursor: 'not a cursor!' }), toolgateError('usage'));
      }));
  });
}
