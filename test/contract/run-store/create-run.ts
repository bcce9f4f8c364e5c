import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewRun } from '../../../src/core/index.ts';
import { isIsoTime, newRun, toolgateError, withStore, type RunStoreFactory } from './harness.ts';

const OPTIONAL_FIELDS = [
  'tenantId',
  'userId',
  'threadId',
  'output',
  'error',
  'metadata',
  'context',
  'dryRun',
  'pendingApproval',
] as const;

export function createRunContract(factory: RunStoreFactory): void {
  describe('createRun / getRun', () => {
    it('creates a queued run with zero usage, no events and none of the optional fields', () =>
      withStore(factory, async (store) => {
        const run = await store.createRun(newRun());
        assert.ok(run.id.length > 0);
        assert.equal(run.status, 'queued');
        assert.equal(run.input, newRun().input);
        assert.equal(run.model, 'test-model');
        assert.deepEqual(run.usage, { promptTokens: 0, completionTokens: 0, totalTokens: 0 });
        assert.equal(run.steps, 0);
        assert.equal(run.lastEventId, 0);
        assert.ok(isIsoTime(run.createdAt), `createdAt ${run.createdAt} is not an ISO time`);
        assert.equal(run.updatedAt, run.createdAt);
        for (const field of OPTIONAL_FIELDS) assert.ok(!(field in run), `a new run should not have ${field}`);
        assert.deepEqual(await store.getRun(run.id), run);
        assert.deepEqual(await store.readEvents(run.id), []);
      }));

    it('keeps the given id, status and every optional field', () =>
      withStore(factory, async (store) => {
        const init: NewRun = newRun({
          id: 'run_given',
          status: 'running',
          tenantId: 'tenant-a',
          userId: 'user-1',
          threadId: 'thread-1',
          metadata: { source: 'crm', tags: ['α', 'β'], nested: { depth: [1, { two: null }] } },
          context: { customerId: 'C-42', limits: { maxMw: 10.5 } },
          dryRun: true,
        });
        const run = await store.createRun(init);
        assert.equal(run.id, 'run_given');
        assert.equal(run.status, 'running');
        assert.equal(run.tenantId, 'tenant-a');
        assert.equal(run.userId, 'user-1');
        assert.equal(run.threadId, 'thread-1');
        assert.deepEqual(run.metadata, init.metadata);
        assert.deepEqual(run.context, init.context);
        assert.equal(run.dryRun, true);
        assert.notEqual(run.metadata, init.metadata, 'metadata must be a copy, not the caller object');
        assert.notEqual(run.context, init.context, 'context must be a copy, not the caller object');
        assert.deepEqual(await store.getRun('run_given'), run);
      }));

    it('keeps dryRun: false as false (not as absent)', () =>
      withStore(factory, async (store) => {
        const run = await store.createRun(newRun({ dryRun: false }));
        assert.equal(run.dryRun, false);
        assert.equal((await store.getRun(run.id))?.dryRun, false);
      }));

    it('gives each run its own id', () =>
      withStore(factory, async (store) => {
        const runs = await Promise.all([1, 2, 3, 4, 5].map(() => store.createRun(newRun())));
        assert.equal(new Set(runs.map((r) => r.id)).size, 5);
      }));

    it('refuses a duplicate id with conflict and leaves the first run as it was', () =>
      withStore(factory, async (store) => {
        const first = await store.createRun(newRun({ id: 'run_dup', input: 'first' }));
        await assert.rejects(store.createRun(newRun({ id: 'run_dup', input: 'second' })), toolgateError('conflict'));
        assert.deepEqual(await store.getRun('run_dup'), first);
      }));

    it('getRun of an unknown id is undefined', () =>
      withStore(factory, async (store) => {
        assert.equal(await store.getRun('run_missing'), undefined);
      }));
  });
}
