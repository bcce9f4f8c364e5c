import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newRun, oneTo, sleep, toolgateError, withStore, type RunStoreFactory } from './harness.ts';

export function idempotencyContract(factory: RunStoreFactory): void {
  describe('createRunIdempotent', () => {
    it('creates the run once and returns it again for the same key and body', () =>
      withStore(factory, async (store) => {
        const init = newRun({ tenantId: 'a', metadata: { order: 7 } });
        const first = await store.createRunIdempotent(init, { key: 'k1', requestHash: 'h1' });
        assert.equal(first.created, true);
        assert.equal(first.run.tenantId, 'a');
        assert.deepEqual(first.run.metadata, { order: 7 });
        const again = await store.createRunIdempotent(init, { key: 'k1', requestHash: 'h1' });
        assert.equal(again.created, false);
        assert.deepEqual(again.run, first.run);
        assert.equal((await store.listRuns()).runs.length, 1);
      }));

    it('returns the run as it is now, not as it was created', () =>
      withStore(factory, async (store) => {
        const { run } = await store.createRunIdempotent(newRun(), { key: 'k1', requestHash: 'h1' });
        await store.append(run.id, [], { status: 'running' });
        const again = await store.createRunIdempotent(newRun(), { key: 'k1', requestHash: 'h1' });
        assert.equal(again.run.status, 'running');
      }));

    it('creates exactly one run for 20 concurrent calls with one key', () =>
      withStore(factory, async (store) => {
        const results = await Promise.all(
          oneTo(20).map(() => store.createRunIdempotent(newRun({ tenantId: 'a' }), { key: 'same', requestHash: 'h' })),
        );
        assert.equal(results.filter((r) => r.created).length, 1);
        assert.equal(new Set(results.map((r) => r.run.id)).size, 1);
        assert.equal((await store.listRuns()).runs.length, 1);
      }));

    it('refuses the same key with another body with idempotency_mismatch', () =>
      withStore(factory, async (store) => {
        const first = await store.createRunIdempotent(newRun(), { key: 'k1', requestHash: 'h1' });
        await assert.rejects(
          store.createRunIdempotent(newRun({ input: 'other' }), { key: 'k1', requestHash: 'h2' }),
          toolgateError('idempotency_mismatch'),
        );
        assert.deepEqual((await store.listRuns()).runs, [first.run]);
      }));

    it('scopes keys per tenant', () =>
      withStore(factory, async (store) => {
        const a = await store.createRunIdempotent(newRun({ tenantId: 'a' }), { key: 'shared', requestHash: 'h' });
        const b = await store.createRunIdempotent(newRun({ tenantId: 'b' }), {
          key: 'shared',
          requestHash: 'other-hash',
        });
        const none = await store.createRunIdempotent(newRun(), { key: 'shared', requestHash: 'h' });
        assert.ok(a.created && b.created && none.created);
        assert.equal(new Set([a.run.id, b.run.id, none.run.id]).size, 3);
        assert.equal(b.run.tenantId, 'b');
        const againA = await store.createRunIdempotent(newRun({ tenantId: 'a' }), { key: 'shared', requestHash: 'h' });
        assert.equal(againA.run.id, a.run.id);
        assert.equal(againA.created, false);
      }));

    it('creates a new run once the key has expired, then reuses that one', () =>
      withStore(factory, async (store) => {
        const first = await store.createRunIdempotent(newRun(), { key: 'k1', requestHash: 'h1', ttlMs: 20 });
        await sleep(40);
        const second = await store.createRunIdempotent(newRun(), { key: 'k1', requestHash: 'h2', ttlMs: 60_000 });
        assert.equal(second.created, true);
        assert.notEqual(second.run.id, first.run.id);
        const third = await store.createRunIdempotent(newRun(), { key: 'k1', requestHash: 'h2' });
        assert.equal(third.created, false);
        assert.equal(third.run.id, second.run.id);
        // The old run is still there: expiry frees the key, it deletes nothing.
        assert.ok((await store.getRun(first.run.id)) !== undefined);
      }));

    it('refuses a given run id that already exists with conflict, keeping the key free', () =>
      withStore(factory, async (store) => {
        await store.createRun(newRun({ id: 'run_taken' }));
        await assert.rejects(
          store.createRunIdempotent(newRun({ id: 'run_taken' }), { key: 'k1', requestHash: 'h1' }),
          toolgateError('conflict'),
        );
        const retry = await store.createRunIdempotent(newRun({ id: 'run_free' }), { key: 'k1', requestHash: 'h2' });
        assert.equal(retry.created, true);
        assert.equal(retry.run.id, 'run_free');
      }));
  });
}
