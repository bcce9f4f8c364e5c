import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft, type RunEvent, type RunLease, type RunStore } from '../../../src/core/index.ts';
import { newRun, sleep, toolgateError, userMessage, withStore, type RunStoreFactory } from './harness.ts';

const LONG = 60_000;
const SHORT = 50;
const SHORT_WAIT = 80;

const STEP = draft('assistant_message', {
  step: 1,
  text: 'checking the price',
  toolCalls: [],
  finishReason: 'stop',
  latencyMs: 12,
});

/** The lease_lost refusal, naming the run, the owner and the epoch. */
function leaseLost(lease: RunLease): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError(lease_lost), got ${String(error)}`);
    assert.equal(error.code, 'lease_lost', error.message);
    assert.ok(error.message.includes(lease.runId), `the message should name the run: ${error.message}`);
    assert.ok(error.message.includes(lease.owner), `the message should name the owner: ${error.message}`);
    assert.ok(error.message.includes(String(lease.epoch)), `the message should name the epoch: ${error.message}`);
    return true;
  };
}

/** Asserts that `attempt` is refused as `check` says and leaves the run, its log and its subscribers untouched. */
async function assertRefused(
  store: RunStore,
  runId: string,
  attempt: () => Promise<unknown>,
  check: (error: unknown) => true,
): Promise<void> {
  const runBefore = await store.getRun(runId);
  const logBefore = await store.readEvents(runId);
  const heard: RunEvent[] = [];
  const unsubscribe = store.subscribe(runId, (events) => heard.push(...events));
  try {
    await assert.rejects(attempt(), check);
  } finally {
    unsubscribe();
  }
  assert.deepEqual(await store.readEvents(runId), logBefore, 'the log must not change');
  assert.deepEqual(await store.getRun(runId), runBefore, 'the run must not change (lastEventId, status, patch)');
  assert.deepEqual(heard, [], 'no subscriber may hear of a refused append');
}

async function runningRun(store: RunStore): Promise<string> {
  const { id } = await store.createRun(newRun());
  await store.append(id, [draft('run_status', { from: 'queued', to: 'running' })], { status: 'running' });
  return id;
}

async function claimed(store: RunStore, runId: string, owner: string, ttlMs = LONG): Promise<RunLease> {
  const lease = await store.claimRun(runId, { owner, ttlMs });
  assert.ok(lease !== undefined, `${owner} should be able to claim ${runId}`);
  return lease;
}

export function fencedAppendContract(factory: RunStoreFactory): void {
  describe('appends fenced by a lease', () => {
    it('appends with the current lease', () =>
      withStore(factory, async (store) => {
        const id = await runningRun(store);
        const lease = await claimed(store, id, 'engine-a');
        const [event] = await store.append(id, [STEP], { steps: 1 }, { lease });
        assert.equal(event?.id, 2);
        assert.equal((await store.getRun(id))?.steps, 1);
      }));

    it('refuses an owner that paused past its lease while another took over, writing nothing', () =>
      withStore(factory, async (store) => {
        const id = await runningRun(store);
        const stale = await claimed(store, id, 'engine-a', SHORT);
        await sleep(SHORT_WAIT);
        const current = await claimed(store, id, 'engine-b');
        await assertRefused(
          store,
          id,
          () => store.append(id, [STEP], { steps: 1, status: 'waiting_approval' }, { lease: stale }),
          leaseLost(stale),
        );
        await assertRefused(
          store,
          id,
          () =>
            store.append(
              id,
              [
                draft('run_completed', {
                  output: 'late',
                  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
                  steps: 1,
                }),
              ],
              { status: 'completed' },
              { lease: stale },
            ),
          leaseLost(stale),
        );
        const [event] = await store.append(id, [STEP], { steps: 1 }, { lease: current });
        assert.equal(event?.id, 2);
      }));

    it('refuses an expired lease nobody took over, until its owner renews it', () =>
      withStore(factory, async (store) => {
        const id = await runningRun(store);
        const lease = await claimed(store, id, 'engine-a', SHORT);
        await sleep(SHORT_WAIT);
        await assertRefused(store, id, () => store.append(id, [STEP], undefined, { lease }), leaseLost(lease));
        const renewed = await store.renewLease(lease, LONG);
        assert.ok(renewed !== undefined);
        assert.equal((await store.append(id, [STEP], undefined, { lease: renewed })).length, 1);
      }));

    it('refuses a lease of an earlier epoch of the same owner, and a released lease', () =>
      withStore(factory, async (store) => {
        const id = await runningRun(store);
        const old = await claimed(store, id, 'engine-a');
        const current = await claimed(store, id, 'engine-a');
        await assertRefused(store, id, () => store.append(id, [STEP], undefined, { lease: old }), leaseLost(old));
        await store.releaseRun(current);
        await assertRefused(
          store,
          id,
          () => store.append(id, [STEP], undefined, { lease: current }),
          leaseLost(current),
        );
      }));

    it('takes appends without a lease (client input) while an owner holds one', () =>
      withStore(factory, async (store) => {
        const id = await runningRun(store);
        const lease = await claimed(store, id, 'engine-a');
        const [input] = await store.append(id, [userMessage('one more thing')]);
        assert.equal(input?.id, 2);
        assert.equal((await store.append(id, [STEP], undefined, { lease }))[0]?.id, 3);
      }));

    it('checks expectLastEventId: appends on a match, refuses a mismatch with conflict, writing nothing', () =>
      withStore(factory, async (store) => {
        const id = await runningRun(store);
        assert.equal((await store.append(id, [userMessage('a')], undefined, { expectLastEventId: 1 }))[0]?.id, 2);
        await assertRefused(
          store,
          id,
          () => store.append(id, [userMessage('b')], { steps: 4 }, { expectLastEventId: 1 }),
          toolgateError('conflict'),
        );
        const lease = await claimed(store, id, 'engine-a');
        assert.equal((await store.append(id, [STEP], undefined, { lease, expectLastEventId: 2 }))[0]?.id, 3);
        await assertRefused(
          store,
          id,
          () => store.append(id, [STEP], undefined, { lease, expectLastEventId: 2 }),
          toolgateError('conflict'),
        );
      }));

    it('checks in order: unknown run, ended run, lease, then expectLastEventId', () =>
      withStore(factory, async (store) => {
        const id = await runningRun(store);
        const stale = await claimed(store, id, 'engine-a');
        const lease = await claimed(store, id, 'engine-a');
        await assert.rejects(
          store.append('run_missing', [STEP], undefined, { lease: { ...stale, runId: 'run_missing' } }),
          toolgateError('not_found'),
        );
        await assertRefused(
          store,
          id,
          () => store.append(id, [STEP], undefined, { lease: stale, expectLastEventId: 9 }),
          leaseLost(stale),
        );
        await store.append(id, [draft('run_cancelled', { reason: 'by a client' })], { status: 'cancelled' }, { lease });
        await assertRefused(
          store,
          id,
          () => store.append(id, [STEP], undefined, { lease: stale, expectLastEventId: 9 }),
          toolgateError('conflict'),
        );
      }));
  });
}
