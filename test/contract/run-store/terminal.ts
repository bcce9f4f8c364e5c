import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ToolgateError,
  draft,
  isTerminalEvent,
  type EventDraft,
  type RunEvent,
  type RunPatch,
  type RunStore,
} from '../../../src/core/index.ts';
import { newRun, oneTo, userMessage, withStore, type RunStoreFactory } from './harness.ts';

const USAGE = { promptTokens: 3, completionTokens: 2, totalTokens: 5 };

/** Each way a run ends: the terminal event and the patch the loop appends with it. */
const ENDINGS: { status: 'completed' | 'failed' | 'cancelled'; end: EventDraft; patch: RunPatch }[] = [
  {
    status: 'completed',
    end: draft('run_completed', { output: 'done', usage: USAGE, steps: 1 }),
    patch: { status: 'completed', output: 'done', usage: USAGE, steps: 1 },
  },
  {
    status: 'failed',
    end: draft('run_failed', { error: { code: 'tool_error', message: 'a parallel call crashed' } }),
    patch: { status: 'failed', error: { code: 'tool_error', message: 'a parallel call crashed' } },
  },
  {
    status: 'cancelled',
    end: draft('run_cancelled', { reason: 'cancelled by a client' }),
    patch: { status: 'cancelled', pendingApproval: null },
  },
];

/** A tool result of a call that was still running when the run ended. */
const LATE_RESULT = draft('tool_result', {
  step: 1,
  toolCallId: 'call_slow',
  name: 'quote',
  ok: true,
  content: [{ type: 'text', text: '84.20 EUR/MWh' }],
  latencyMs: 900,
});

function ended(runId: string): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError(conflict), got ${String(error)}`);
    assert.equal(error.code, 'conflict', error.message);
    assert.ok(error.message.includes(runId), `the message should name the run: ${error.message}`);
    assert.match(error.message, /terminal event/);
    return true;
  };
}

/** Starts a run and appends a first event, as the loop does. */
async function started(store: RunStore): Promise<string> {
  const { id } = await store.createRun(newRun());
  await store.append(id, [draft('run_status', { from: 'queued', to: 'running' }), userMessage('go')], {
    status: 'running',
  });
  return id;
}

/** Asserts that `attempt` is refused and leaves the run, its log and its subscribers untouched. */
async function assertRefused(store: RunStore, runId: string, attempt: () => Promise<unknown>): Promise<void> {
  const runBefore = await store.getRun(runId);
  const logBefore = await store.readEvents(runId);
  const heard: RunEvent[] = [];
  const unsubscribe = store.subscribe(runId, (events) => heard.push(...events));
  try {
    await assert.rejects(attempt(), ended(runId));
  } finally {
    unsubscribe();
  }
  assert.deepEqual(await store.readEvents(runId), logBefore, 'the log must not change');
  assert.deepEqual(await store.getRun(runId), runBefore, 'the run must not change');
  assert.deepEqual(heard, [], 'no subscriber may hear of a refused append');
}

export function terminalContract(factory: RunStoreFactory): void {
  describe('nothing after a terminal event', () => {
    for (const { status, end, patch } of ENDINGS) {
      it(`refuses any append after ${end.type} with conflict, changing nothing`, () =>
        withStore(factory, async (store) => {
          const id = await started(store);
          await store.append(id, [draft('run_status', { from: 'running', to: status }), end], patch);
          await assertRefused(store, id, () => store.append(id, [LATE_RESULT]));
          await assertRefused(store, id, () =>
            store.append(id, [userMessage('one'), userMessage('two')], { steps: 9 }),
          );
          await assertRefused(store, id, () => store.append(id, [], { status: 'running' }));
          await assertRefused(store, id, () =>
            store.append(id, [draft('run_status', { from: status, to: 'running' })], { status: 'running' }),
          );
          assert.equal((await store.readEvents(id)).at(-1)?.type, end.type);
        }));
    }

    it('refuses an append after a terminal event even when its status was not patched', () =>
      withStore(factory, async (store) => {
        const id = await started(store);
        await store.append(id, [draft('run_failed', { error: { code: 'internal', message: 'crashed' } })]);
        assert.equal((await store.getRun(id))?.status, 'running');
        await assertRefused(store, id, () => store.append(id, [LATE_RESULT]));
      }));

    it('refuses an append to a run whose status is terminal', () =>
      withStore(factory, async (store) => {
        const created = await store.createRun(newRun({ status: 'cancelled' }));
        await assertRefused(store, created.id, () => store.append(created.id, [userMessage('late')]));
        const patched = await started(store);
        await store.append(patched, [userMessage('last words')], { status: 'completed', output: 'ok' });
        await assertRefused(store, patched, () => store.append(patched, [LATE_RESULT]));
      }));

    it('refuses a batch with an event after its terminal event, writing none of it', () =>
      withStore(factory, async (store) => {
        const id = await started(store);
        const [done] = ENDINGS;
        assert.ok(done !== undefined);
        await assertRefused(store, id, () =>
          store.append(id, [LATE_RESULT, done.end, userMessage('after the end')], done.patch),
        );
        await assertRefused(store, id, () => store.append(id, [done.end, done.end]));
        // Still open: the refused batch left nothing behind.
        const appended = await store.append(id, [LATE_RESULT, done.end], done.patch);
        assert.deepEqual(
          appended.map((e) => e.id),
          [3, 4],
        );
      }));

    it('keeps the terminal event last when an append races the one that ends the run', () =>
      withStore(factory, async (store) => {
        for (const { end, patch } of ENDINGS) {
          // The late result is issued first: it lands before the end.
          const first = await started(store);
          const [result, ending] = await Promise.allSettled([
            store.append(first, [LATE_RESULT]),
            store.append(first, [end], patch),
          ]);
          assert.equal(result.status, 'fulfilled');
          assert.equal(ending.status, 'fulfilled');
          assert.deepEqual(
            (await store.readEvents(first)).slice(-2).map((e) => e.type),
            ['tool_result', end.type],
          );

          // The end is issued first: the late result is refused.
          const second = await started(store);
          const outcomes = await Promise.allSettled([
            store.append(second, [end], patch),
            store.append(second, [LATE_RESULT]),
          ]);
          assert.equal(outcomes[0].status, 'fulfilled');
          assert.equal(outcomes[1].status, 'rejected');
          if (outcomes[1].status === 'rejected') ended(second)(outcomes[1].reason);
          assert.equal((await store.readEvents(second)).at(-1)?.type, end.type);
        }
      }));

    it('ends the log with the one terminal event when many appends race it', () =>
      withStore(factory, async (store) => {
        const id = await started(store);
        const heard: RunEvent[] = [];
        store.subscribe(id, (events) => heard.push(...events));
        const [done] = ENDINGS;
        assert.ok(done !== undefined);
        const attempts = oneTo(30).map((i) =>
          i === 10 ? store.append(id, [done.end], done.patch) : store.append(id, [userMessage(`m${i}`)]),
        );
        const outcomes = await Promise.allSettled(attempts);
        for (const outcome of outcomes) if (outcome.status === 'rejected') ended(id)(outcome.reason);
        const log = await store.readEvents(id);
        assert.equal(log.at(-1)?.type, 'run_completed');
        assert.equal(log.filter(isTerminalEvent).length, 1);
        const written = outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value : []));
        assert.deepEqual(
          written.map((e) => e.id).sort((a, b) => a - b),
          log.slice(2).map((e) => e.id),
        );
        assert.deepEqual(heard, log.slice(2));
        assert.equal((await store.getRun(id))?.lastEventId, log.length);
      }));
  });
}
