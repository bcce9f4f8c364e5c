import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft, type RunEvent } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { commitThroughOutage, findCommitted } from './commit-through-outage.ts';

const unavailable = (): ToolgateError =>
  new ToolgateError(
    'store_unavailable',
    'PostgreSQL store postgres://db/toolgate: could not append events: Connection terminated unexpectedly',
  );
const answer = draft('assistant_message', {
  step: 1,
  text: 'placing the order',
  toolCalls: [],
  finishReason: 'stop',
  latencyMs: 5,
});
const call = draft('tool_call', { step: 1, toolCallId: 'c1', name: 'placeOrder', arguments: { qty: 1 } });

async function storeWithRun(): Promise<{ store: MemoryRunStore; runId: string }> {
  const store = new MemoryRunStore();
  const { id } = await store.createRun({ input: 'x', model: 'm', status: 'running' });
  return { store, runId: id };
}

/** No warnings printed by the test runs. */
function quiet(): () => void {
  const original = process.emitWarning;
  process.emitWarning = () => undefined;
  return () => {
    process.emitWarning = original;
  };
}

describe('commitThroughOutage', () => {
  it(
    'a commit that landed although the store said unavailable (the ' +
      'connection died after COMMIT) is found in the log, not appended twice',
    async () => {
      const { store, runId } = await storeWithRun();
      const restore = quiet();
      try {
        let tries = 0;
        const events = await commitThroughOutage({
          store,
          runId,
          drafts: [answer, call],
          commit: async () => {
            tries += 1;
            await store.append(runId, [answer, call]);
            throw unavailable();
          },
          committedUpTo: () => 0,
          giveUpAfterMs: 5_000,
          stopped: () => false,
        });
        assert.equal(tries, 1, 'not tried again: it was there');
        assert.deepEqual(
          events.map((e) => [e.id, e.type]),
          [
            [1, 'assistant_message'],
            [2, 'tool_call'],
          ],
        );
        assert.deepEqual(
          (await store.readEvents(runId)).map((e) => e.type),
          ['assistant_message', 'tool_call'],
          'once in the log',
        );
      } finally {
        restore();
      }
    },
  );

  it('a commit that did not land is tried again, with backoff, until the store answers', async () => {
    const { store, runId } = await storeWithRun();
    const restore = quiet();
    try {
      const at: number[] = [];
      const events = await commitThroughOutage({
        store,
        runId,
        drafts: [call],
        commit: async () => {
          at.push(Date.now());
          if (at.length < 3) throw unavailable();
          return store.append(runId, [call]);
        },
        committedUpTo: () => 0,
        giveUpAfterMs: 5_000,
        stopped: () => false,
      });
      assert.equal(at.length, 3);
      assert.ok(
        (at[1] ?? 0) - (at[0] ?? 0) >= 90 && (at[2] ?? 0) - (at[1] ?? 0) >= 190,
        `waits of 100 then 200 ms: ${at.map((t) => t - (at[0] ?? 0)).join(', ')}`,
      );
      assert.deepEqual(
        events.map((e) => e.id),
        [1],
      );
      assert.equal((await store.readEvents(runId)).length, 1);
    } finally {
      restore();
    }
  });

  it(
    'gives up with the store error after giveUpAfterMs, or at once ' +
      'when the pass stopped; other errors are thrown as they are',
    async () => {
      const { store, runId } = await storeWithRun();
      const restore = quiet();
      try {
        const failing = {
          store,
          runId,
          drafts: [call],
          commit: () => Promise.reject(unavailable()),
          committedUpTo: () => 0,
        };
        const started = Date.now();
        await assert.rejects(
          commitThroughOutage({ ...failing, giveUpAfterMs: 350, stopped: () => false }),
          (e: unknown) => e instanceof ToolgateError && e.code === 'store_unavailable',
        );
        assert.ok(Date.now() - started < 1_000);
        let tries = 0;
        await assert.rejects(
          commitThroughOutage({
            ...failing,
            commit: () => ((tries += 1), Promise.reject(unavailable())),
            giveUpAfterMs: 5_000,
            stopped: () => true,
          }),
          (e: unknown) => e instanceof ToolgateError && e.code === 'store_unavailable',
        );
        assert.equal(tries, 1);
        const refused = new ToolgateError('lease_lost', 'run x: the lease was lost');
        await assert.rejects(
          commitThroughOutage({
            ...failing,
            commit: () => Promise.reject(refused),
            giveUpAfterMs: 5_000,
            stopped: () => false,
          }),
          (e: unknown) => e === refused,
        );
      } finally {
        restore();
      }
    },
  );
});

describe('findCommitted', () => {
  it("finds the drafts whole and in order among other writers' events, and nothing else", async () => {
    const { store, runId } = await storeWithRun();
    await store.append(runId, [draft('cancel_requested', { reason: 'from another process' })]);
    await store.append(runId, [answer, call]);
    const log: RunEvent[] = await store.readEvents(runId);
    assert.deepEqual(
      findCommitted(log, [answer, call])?.map((e) => e.id),
      [2, 3],
    );
    assert.equal(findCommitted(log, [call, answer]), undefined, 'not in that order');
    assert.equal(
      findCommitted(log, [
        draft('tool_call', { step: 1, toolCallId: 'c2', name: 'placeOrder', arguments: { qty: 1 } }),
      ]),
      undefined,
      'another call',
    );
    assert.equal(findCommitted(log.slice(0, 2), [answer, call]), undefined, 'only part of it');
  });
});
