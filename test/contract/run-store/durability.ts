import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { draft, type RunStore } from '../../../src/core/index.ts';
import {
  newRun,
  toolgateError,
  userMessage,
  withStore,
  type RunStoreFactory,
  type RunStoreHarness,
} from './harness.ts';

/** Closes the store, opens the same storage again and hands the new store to `check`. */
async function reopened(harness: RunStoreHarness, check: (store: RunStore) => Promise<void>): Promise<void> {
  assert.ok(harness.reopen !== undefined);
  await harness.store.close();
  const store = await harness.reopen();
  try {
    await check(store);
  } finally {
    await store.close();
  }
}

export function durabilityContract(factory: RunStoreFactory): void {
  describe('durability across close and reopen', () => {
    // Skipped, not failed, for stores that cannot be reopened (e.g. in memory).
    const durable = (title: string, test: (store: RunStore, harness: RunStoreHarness) => Promise<void>): void => {
      it(title, (t: TestContext) =>
        withStore(factory, async (store, harness) => {
          if (harness.reopen === undefined) {
            t.skip('this store cannot be reopened');
            return;
          }
          await test(store, harness);
        }),
      );
    };

    durable('keeps runs, events and pendingApproval, and numbers on from the last event', async (store, harness) => {
      const run = await store.createRun(
        newRun({
          tenantId: 'a',
          userId: 'u',
          threadId: 'th1',
          metadata: { m: [1, 'ü'] },
          context: { c: { d: true } },
          dryRun: false,
        }),
      );
      await store.append(run.id, [draft('run_status', { from: 'queued', to: 'running' }), userMessage('go')], {
        status: 'running',
      });
      await store.append(
        run.id,
        [
          draft('approval_required', {
            step: 1,
            toolCallId: 'c1',
            name: 'place_order',
            arguments: { mw: 10 },
            effect: 'write',
            reason: 'outcome_unknown',
          }),
        ],
        {
          status: 'waiting_approval',
          steps: 1,
          usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
          pendingApproval: {
            toolCallId: 'c1',
            name: 'place_order',
            arguments: { mw: 10 },
            effect: 'write',
            reason: 'outcome_unknown',
            eventId: 3,
          },
        },
      );
      const other = await store.createRun(newRun({ status: 'running' }));
      const error = { code: 'model_timeout', message: 'no answer in 60 s' } as const;
      await store.append(other.id, [draft('run_failed', { error })], { status: 'failed', error });
      const runBefore = await store.getRun(run.id);
      const otherBefore = await store.getRun(other.id);
      const eventsBefore = await store.readEvents(run.id);
      const listBefore = await store.listRuns();

      await reopened(harness, async (again) => {
        assert.deepEqual(await again.getRun(run.id), runBefore);
        assert.deepEqual(await again.getRun(other.id), otherBefore);
        assert.deepEqual(await again.readEvents(run.id), eventsBefore);
        assert.deepEqual(await again.listRuns(), listBefore);
        const [next] = await again.append(run.id, [userMessage('after reopen')], {
          status: 'running',
          pendingApproval: null,
        });
        assert.equal(next?.id, 4);
        const resumed = await again.getRun(run.id);
        assert.equal(resumed?.lastEventId, 4);
        assert.ok(resumed !== undefined && !('pendingApproval' in resumed));
        await assert.rejects(again.append(other.id, [userMessage('too late')]), toolgateError('conflict'));
      });
    });

    durable('keeps a run ended by a terminal event ended, whatever its status says', async (store, harness) => {
      const run = await store.createRun(newRun({ status: 'running' }));
      await store.append(run.id, [draft('run_cancelled', { reason: 'stopped' })]);
      await reopened(harness, async (again) => {
        await assert.rejects(again.append(run.id, [userMessage('too late')]), toolgateError('conflict'));
        assert.equal((await again.readEvents(run.id)).length, 1);
      });
    });

    durable('keeps idempotency keys', async (store, harness) => {
      const first = await store.createRunIdempotent(newRun({ tenantId: 'a' }), { key: 'k1', requestHash: 'h1' });
      await reopened(harness, async (again) => {
        const replay = await again.createRunIdempotent(newRun({ tenantId: 'a' }), { key: 'k1', requestHash: 'h1' });
        assert.equal(replay.created, false);
        assert.deepEqual(replay.run, first.run);
        await assert.rejects(
          again.createRunIdempotent(newRun({ tenantId: 'a' }), { key: 'k1', requestHash: 'h2' }),
          toolgateError('idempotency_mismatch'),
        );
      });
    });

    durable('keeps threads with their tenant', async (store, harness) => {
      await store.appendThreadMessages('th1', [{ role: 'user', content: 'first' }], 'a');
      await store.appendThreadMessages('th1', [{ role: 'assistant', content: 'second' }], 'a');
      await store.appendThreadMessages('th1', [{ role: 'user', content: 'no tenant' }]);
      const before = await store.getThread('th1', 'a');
      const untenanted = await store.getThread('th1');
      await reopened(harness, async (again) => {
        assert.deepEqual(await again.getThread('th1', 'a'), before);
        assert.deepEqual(await again.getThread('th1'), untenanted);
        assert.equal(await again.getThread('th1', 'b'), undefined);
        await again.appendThreadMessages('th1', [{ role: 'user', content: 'third' }], 'a');
        assert.deepEqual(
          (await again.getThread('th1', 'a'))?.messages.map((m) => m.content),
          ['first', 'second', 'third'],
        );
      });
    });
  });
}
