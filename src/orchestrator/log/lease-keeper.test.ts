import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { LeaseKeeper } from './lease-keeper.ts';

describe('LeaseKeeper', () => {
  it(
    'a store that fails renewals for a while: one warning when the streak ' +
      'starts and one when the lease is renewed again, not one per beat',
    async () => {
      const store = new MemoryRunStore();
      const { id } = await store.createRun({ input: 'x', model: 'm' });
      const lease = await store.claimRun(id, { owner: 'me', ttlMs: 60_000 });
      assert.ok(lease !== undefined);
      let failing = 0;
      const renewLease = store.renewLease.bind(store);
      store.renewLease = (l, ttl) =>
        failing-- > 0
          ? Promise.reject(
              new ToolgateError(
                'store_unavailable',
                'SQLite store /data/runs.db: could not renew the lease: database is locked',
              ),
            )
          : renewLease(l, ttl);
      const warnings: string[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning.message);
      process.on('warning', onWarning);
      try {
        const keeper = new LeaseKeeper({
          store,
          lease,
          ttlMs: 60_000,
          onLost: () => assert.fail('the lease was not lost'),
        });
        failing = 4;
        for (let beat = 0; beat < 6; beat++) await keeper.beat();
        failing = 2;
        for (let beat = 0; beat < 3; beat++) await keeper.beat();
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(warnings, [
          `run ${id}: lease renewal failed: SQLite store /data/runs.db: could not renew the ` +
            `lease: database is locked (trying again within 100 ms, then less often up to every 20000 ms; said again ` +
            'once it is renewed)',
          `run ${id}: lease renewed again after 4 failed renewals`,
          `run ${id}: lease renewal failed: SQLite store /data/runs.db: could not renew the ` +
            `lease: database is locked (trying again within 100 ms, then less often up to every 20000 ms; said again ` +
            'once it is renewed)',
          `run ${id}: lease renewed again after 2 failed renewals`,
        ]);
        assert.equal(keeper.lost, false);
      } finally {
        process.off('warning', onWarning);
      }
    },
  );

  it('a failed renewal is tried again within moments, not a beat later: a short outage keeps the lease', async () => {
    const store = new MemoryRunStore();
    const { id } = await store.createRun({ input: 'x', model: 'm' });
    const lease = await store.claimRun(id, { owner: 'me', ttlMs: 30_000 });
    assert.ok(lease !== undefined);
    let failing = 2;
    const tries: number[] = [];
    const renewLease = store.renewLease.bind(store);
    store.renewLease = (l, ttl) => {
      tries.push(Date.now());
      return failing-- > 0
        ? Promise.reject(new ToolgateError('store_unavailable', 'PostgreSQL store: the connection was terminated'))
        : renewLease(l, ttl);
    };
    const onWarning = (): void => undefined;
    process.on('warning', onWarning);
    const keeper = new LeaseKeeper({ store, lease, ttlMs: 30_000, onLost: () => assert.fail('the lease was lost') });
    keeper.start();
    try {
      const started = Date.now();
      await keeper.beat();
      // The beat interval is 10 s: two failures then a renewal, all well before it.
      while (tries.length < 3 && Date.now() - started < 5000) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(tries.length, 3, 'tried again twice after the failures');
      assert.ok(Date.now() - started < 5000);
      assert.notEqual(keeper.lease, lease, 'renewed: the keeper holds the lease the store gave back');
    } finally {
      keeper.stop();
      // Warnings are emitted on the next tick: the listener stays until they are out.
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', onWarning);
    }
  });
});
