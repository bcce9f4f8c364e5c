import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type RunLease, type RunSettings, type RunStore } from '../../../src/core/index.ts';
import { fencedAppendContract } from './fencing.ts';
import { newRun, oneTo, sleep, toolgateError, userMessage, withStore, type RunStoreFactory } from './harness.ts';

const LONG = 60_000;
/** A lease that is over by the time SHORT_WAIT has passed. */
const SHORT = 50;
const SHORT_WAIT = 80;

const SETTINGS: RunSettings = {
  maxSteps: 7,
  strategy: 'react',
  toolMode: 'auto',
  parseRetries: 2,
  textToolCalls: 'auto',
  constrain: false,
  stream: true,
};

async function claimed(store: RunStore, runId: string, owner: string, ttlMs = LONG): Promise<RunLease> {
  const lease = await store.claimRun(runId, { owner, ttlMs });
  assert.ok(lease !== undefined, `${owner} should be able to claim ${runId}`);
  return lease;
}

/** Creates runs in this order, each strictly later than the one before (by time and by id). */
async function createInOrder(
  store: RunStore,
  inits: { id: string; status?: 'queued' | 'running' | 'waiting_approval' | 'completed' | 'failed' }[],
): Promise<void> {
  for (const init of inits) {
    await store.createRun(newRun(init));
    await sleep(2);
  }
}

export function leasesContract(factory: RunStoreFactory): void {
  describe('leases', () => {
    it('claims a fresh run at epoch 1 until now + ttl, without showing the lease on the run', () =>
      withStore(factory, async (store) => {
        const run = await store.createRun(newRun());
        const before = Date.now();
        const lease = await claimed(store, run.id, 'engine-a', 5_000);
        const after = Date.now();
        assert.equal(lease.runId, run.id);
        assert.equal(lease.owner, 'engine-a');
        assert.equal(lease.epoch, 1);
        assert.ok(
          lease.expiresAt >= before + 5_000 && lease.expiresAt <= after + 5_000,
          `expiresAt ${lease.expiresAt}`,
        );
        const stored = await store.getRun(run.id);
        assert.deepEqual(stored, run, 'a claim changes nothing a reader of the run sees');
        const listed = (await store.listRuns()).runs[0];
        assert.ok(listed !== undefined);
        for (const key of Object.keys(listed)) assert.doesNotMatch(key, /lease|epoch|owner/i);
      }));

    it('refuses a second owner while the lease is live, and lets the holder claim again with a higher epoch', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        const first = await claimed(store, id, 'engine-a');
        assert.equal(await store.claimRun(id, { owner: 'engine-b', ttlMs: LONG }), undefined);
        const again = await claimed(store, id, 'engine-a');
        assert.equal(again.epoch, first.epoch + 1);
        assert.equal(await store.renewLease(first, LONG), undefined, 'the earlier epoch is no longer the lease');
        assert.equal(await store.claimRun(id, { owner: 'engine-b', ttlMs: LONG }), undefined);
      }));

    it('lets another owner take over once the lease expired, with a higher epoch; the old holder cannot renew', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun({ status: 'running' }));
        const stale = await claimed(store, id, 'engine-a', SHORT);
        await sleep(SHORT_WAIT);
        const taken = await claimed(store, id, 'engine-b');
        assert.equal(taken.owner, 'engine-b');
        assert.equal(taken.epoch, stale.epoch + 1);
        assert.equal(await store.renewLease(stale, LONG), undefined);
        assert.equal(await store.claimRun(id, { owner: 'engine-a', ttlMs: LONG }), undefined);
      }));

    it('renews a lease it still holds, keeping the epoch, even just after expiry', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        const lease = await claimed(store, id, 'engine-a', 1_000);
        const renewed = await store.renewLease(lease, LONG);
        assert.ok(renewed !== undefined);
        assert.equal(renewed.epoch, lease.epoch);
        assert.equal(renewed.owner, 'engine-a');
        assert.ok(renewed.expiresAt > lease.expiresAt, 'renewing extends the lease');
        const short = await store.renewLease(renewed, SHORT);
        assert.ok(short !== undefined);
        await sleep(SHORT_WAIT);
        const late = await store.renewLease(short, LONG);
        assert.equal(late?.epoch, lease.epoch, "nobody re-claimed it: still this owner's");
        assert.equal(await store.claimRun(id, { owner: 'engine-b', ttlMs: LONG }), undefined);
      }));

    it('releases a lease so another owner can claim it; the epoch keeps growing', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        await store.append(id, [userMessage('hi')], { status: 'waiting_approval' });
        const lease = await claimed(store, id, 'engine-a');
        const released = await store.releaseRun(lease);
        assert.deepEqual(released, await store.getRun(id));
        assert.equal(released?.status, 'waiting_approval');
        assert.equal(await store.renewLease(lease, LONG), undefined, 'a released lease is gone');
        const next = await claimed(store, id, 'engine-b');
        assert.equal(next.epoch, lease.epoch + 1);
        // Releasing a stale lease leaves the current holder in place, and still returns the run.
        assert.equal((await store.releaseRun(lease))?.id, id);
        assert.equal(await store.claimRun(id, { owner: 'engine-c', ttlMs: LONG }), undefined);
        assert.equal(await store.releaseRun({ ...lease, runId: 'run_missing' }), undefined);
      }));

    it('claims a run waiting for approval, but never one that has ended; an unknown run is not_found', () =>
      withStore(factory, async (store) => {
        const waiting = await store.createRun(newRun({ status: 'waiting_approval' }));
        assert.equal((await claimed(store, waiting.id, 'engine-a')).epoch, 1);
        for (const status of ['completed', 'failed', 'cancelled'] as const) {
          const ended = await store.createRun(newRun({ status }));
          assert.equal(await store.claimRun(ended.id, { owner: 'engine-a', ttlMs: LONG }), undefined, status);
        }
        // Ended by its log, its status not patched.
        const torn = await store.createRun(newRun({ status: 'running' }));
        await store.append(torn.id, [draft('run_failed', { error: { code: 'internal', message: 'crashed' } })]);
        assert.equal(await store.claimRun(torn.id, { owner: 'engine-a', ttlMs: LONG }), undefined);
        await assert.rejects(
          store.claimRun('run_missing', { owner: 'engine-a', ttlMs: LONG }),
          toolgateError('not_found'),
        );
      }));

    it('claimNext takes queued and running runs without a live lease, oldest first, up to the limit', () =>
      withStore(factory, async (store) => {
        await createInOrder(store, [
          { id: 'run_01', status: 'completed' },
          { id: 'run_02' },
          { id: 'run_03', status: 'waiting_approval' },
          { id: 'run_04', status: 'running' },
          { id: 'run_05' },
          { id: 'run_06', status: 'failed' },
          { id: 'run_07', status: 'running' },
          { id: 'run_08' },
          { id: 'run_09', status: 'running' },
        ]);
        await claimed(store, 'run_05', 'engine-x'); // live: skipped
        const expired = await claimed(store, 'run_07', 'engine-x', SHORT); // expired: taken
        // ended by its log
        await store.append('run_09', [draft('run_failed', { error: { code: 'internal', message: 'crashed' } })]);
        await sleep(SHORT_WAIT);

        const first = await store.claimNext({ owner: 'engine-a', ttlMs: LONG, limit: 2 });
        assert.deepEqual(
          first.map((l) => [l.runId, l.owner, l.epoch]),
          [
            ['run_02', 'engine-a', 1],
            ['run_04', 'engine-a', 1],
          ],
        );
        const rest = await store.claimNext({ owner: 'engine-b', ttlMs: LONG, limit: 10 });
        assert.deepEqual(
          rest.map((l) => [l.runId, l.owner, l.epoch]),
          [
            ['run_07', 'engine-b', expired.epoch + 1],
            ['run_08', 'engine-b', 1],
          ],
        );
        assert.deepEqual(await store.claimNext({ owner: 'engine-c', ttlMs: LONG, limit: 10 }), []);
        assert.deepEqual(
          await store.claimNext({ owner: 'engine-a', ttlMs: LONG, limit: 10 }),
          [],
          'nor one it holds itself',
        );
      }));

    it('never hands one run to two concurrent claimNext calls', () =>
      withStore(factory, async (store) => {
        for (const i of oneTo(30)) await store.createRun(newRun({ id: `run_${String(i).padStart(2, '0')}` }));
        const batches = await Promise.all(
          ['engine-a', 'engine-b', 'engine-c'].map((owner) => store.claimNext({ owner, ttlMs: LONG, limit: 20 })),
        );
        const ids = batches.flat().map((l) => l.runId);
        assert.equal(ids.length, 30, 'every run claimed once');
        assert.equal(new Set(ids).size, 30, 'no run claimed twice');
        for (const lease of batches.flat()) assert.equal(lease.epoch, 1);
      }));

    it('keeps settings with the run through createRun, getRun, listRuns and an idempotent create', () =>
      withStore(factory, async (store) => {
        const run = await store.createRun(newRun({ settings: SETTINGS }));
        assert.deepEqual(run.settings, SETTINGS);
        assert.deepEqual((await store.getRun(run.id))?.settings, SETTINGS);
        assert.deepEqual((await store.listRuns()).runs[0]?.settings, SETTINGS);
        const first = await store.createRunIdempotent(newRun({ settings: { ...SETTINGS, maxSteps: 3 } }), {
          key: 'k',
          requestHash: 'h',
        });
        const again = await store.createRunIdempotent(newRun({ settings: { ...SETTINGS, maxSteps: 3 } }), {
          key: 'k',
          requestHash: 'h',
        });
        assert.equal(again.created, false);
        assert.deepEqual(again.run.settings, { ...SETTINGS, maxSteps: 3 });
        assert.deepEqual(again.run, first.run);
        const plain = await store.createRun(newRun());
        assert.ok(
          !('settings' in plain) && !('settings' in ((await store.getRun(plain.id)) ?? {})),
          'no settings given: none stored',
        );
      }));

    it('the append that ends a run releases its lease, whoever writes it; releasing afterwards changes nothing', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        const lease = await claimed(store, id, 'engine-a');
        await store.append(id, [userMessage('hi')], { status: 'running' }, { lease });
        assert.ok((await store.renewLease(lease, LONG)) !== undefined, 'held while the run goes on');
        await store.append(
          id,
          [
            draft('run_completed', {
              output: 'done',
              usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
              steps: 1,
            }),
          ],
          { status: 'completed' },
          { lease },
        );
        assert.equal(await store.renewLease(lease, LONG), undefined, 'the ending append released it');
        const released = await store.releaseRun(lease);
        assert.equal(released?.status, 'completed');
        assert.deepEqual(released, await store.getRun(id));
        assert.equal(
          await store.claimRun(id, { owner: 'engine-b', ttlMs: LONG }),
          undefined,
          'an ended run is never claimed',
        );

        // Ended by another writer (a cancel recorded without the lease): the holder's lease goes too.
        const other = await store.createRun(newRun({ status: 'running' }));
        const held = await claimed(store, other.id, 'engine-a');
        await store.append(
          other.id,
          [
            draft('run_cancelled', {
              reason: 'stop',
              usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
              steps: 0,
            }),
          ],
          { status: 'cancelled' },
        );
        assert.equal(await store.renewLease(held, LONG), undefined);
        await assert.rejects(
          store.append(other.id, [userMessage('late')], undefined, { lease: held }),
          toolgateError('conflict'),
          'nothing is written to an ended run',
        );
      }));

    it('createAndClaimRun, where a store has it, creates and claims in one step', (t) =>
      withStore(factory, async (store) => {
        const create = store.createAndClaimRun?.bind(store);
        if (create === undefined) {
          t.skip('this store has no createAndClaimRun (it is optional)');
          return;
        }
        const { run, lease } = await create(newRun({ settings: SETTINGS }), { owner: 'engine-a', ttlMs: LONG });
        assert.deepEqual(run, await store.getRun(run.id), 'the run as stored');
        assert.equal(run.status, 'queued');
        assert.ok(lease !== undefined);
        assert.deepEqual([lease.runId, lease.owner, lease.epoch], [run.id, 'engine-a', 1]);
        assert.equal(
          await store.claimRun(run.id, { owner: 'engine-b', ttlMs: LONG }),
          undefined,
          'held by its creator',
        );
        await store.append(run.id, [userMessage('hi')], { status: 'running' }, { lease });
        assert.ok((await store.renewLease(lease, LONG)) !== undefined);
        // A status that has ended the run: created, not claimed.
        const ended = await create(newRun({ status: 'completed' }), { owner: 'engine-a', ttlMs: LONG });
        assert.equal(ended.lease, undefined);
        assert.equal((await store.getRun(ended.run.id))?.status, 'completed');
        // An id already taken: nothing is created, nothing claimed.
        await assert.rejects(
          create(newRun({ id: run.id }), { owner: 'engine-b', ttlMs: LONG }),
          toolgateError('conflict'),
        );
        assert.equal(await store.claimRun(run.id, { owner: 'engine-b', ttlMs: LONG }), undefined);
        await assert.rejects(create(newRun(), { owner: '', ttlMs: LONG }), toolgateError('usage'));
      }));

    fencedAppendContract(factory);
  });
}
