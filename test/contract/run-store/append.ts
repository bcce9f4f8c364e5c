import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type EventDraft, type PendingApproval, type RunEvent } from '../../../src/core/index.ts';
import {
  isIsoTime,
  newRun,
  oneTo,
  sleep,
  toolgateError,
  userMessage,
  withStore,
  type RunStoreFactory,
} from './harness.ts';

const PENDING: PendingApproval = {
  toolCallId: 'call_1',
  name: 'place_order',
  arguments: { volumeMw: 10, side: 'buy', hours: [1, 2, 3] },
  effect: 'write',
  reason: 'policy',
  eventId: 2,
};

/** Data that trips naive serialisation: unicode, escapes, NUL, deep nesting, extreme numbers. */
const AWKWARD_DRAFTS: EventDraft[] = [
  draft('tool_result', {
    step: 1,
    toolCallId: 'call_ü',
    name: 'search',
    ok: true,
    content: [{ type: 'text', text: 'Grüße 🌍 — "quoted" \\ back\\slash\nnew line\ttab \u0000 nul \u2028 sep' }],
    structuredContent: {
      emptyObject: {},
      emptyArray: [],
      nested: { a: [1, [2, [3, [4, { deep: 'ok' }]]]] },
      numbers: [0, -1, 3.14159, 1e21, -2.5e-7, Number.MAX_SAFE_INTEGER],
      flags: [true, false, null],
      '键 with spaces': '值',
    },
    latencyMs: 12,
  }),
  draft('assistant_message', {
    step: 1,
    text: '',
    toolCalls: [{ id: 'call_2', name: 'place_order', arguments: '{"volumeMw": 10, "note": "\\u00e9t\\u00e9"}' }],
    finishReason: 'tool_calls',
    usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 },
    latencyMs: 830,
  }),
  draft('input_received', {
    input: { type: 'approval', toolCallId: 'call_2', decision: 'edit', arguments: { volumeMw: 5 } },
  }),
];

function ids(events: readonly RunEvent[]): number[] {
  return events.map((e) => e.id);
}

export function appendContract(factory: RunStoreFactory): void {
  describe('append / readEvents', () => {
    it('numbers events 1..n per run with no gap across appends', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        assert.deepEqual(ids(await store.append(id, [userMessage('a')])), [1]);
        assert.deepEqual(
          ids(await store.append(id, [userMessage('b'), userMessage('c'), userMessage('d')])),
          [2, 3, 4],
        );
        assert.deepEqual(ids(await store.append(id, [userMessage('e'), userMessage('f')])), [5, 6]);
        const events = await store.readEvents(id);
        assert.deepEqual(ids(events), oneTo(6));
        assert.deepEqual(
          events.map((e) => (e.type === 'user_message' ? e.data.text : e.type)),
          ['a', 'b', 'c', 'd', 'e', 'f'],
        );
        assert.ok(events.every((e) => e.runId === id));
        assert.equal((await store.getRun(id))?.lastEventId, 6);
      }));

    it('numbers the events of different runs independently', () =>
      withStore(factory, async (store) => {
        const a = await store.createRun(newRun());
        const b = await store.createRun(newRun());
        await store.append(a.id, [userMessage('a1')]);
        await store.append(b.id, [userMessage('b1')]);
        await store.append(a.id, [userMessage('a2'), userMessage('a3')]);
        assert.deepEqual(ids(await store.readEvents(a.id)), [1, 2, 3]);
        assert.deepEqual(ids(await store.readEvents(b.id)), [1]);
      }));

    it('stamps events with an ISO time and moves updatedAt', () =>
      withStore(factory, async (store) => {
        const run = await store.createRun(newRun());
        await sleep(5);
        const [event] = await store.append(run.id, [userMessage('hi')]);
        assert.ok(event !== undefined && isIsoTime(event.time), `event time ${event?.time} is not an ISO time`);
        const after = await store.getRun(run.id);
        assert.ok(after !== undefined && isIsoTime(after.updatedAt));
        assert.ok(
          after.updatedAt > run.updatedAt,
          `updatedAt ${after.updatedAt} should be later than ${run.updatedAt}`,
        );
        assert.ok(after.updatedAt >= event.time);
        assert.equal(after.createdAt, run.createdAt);
      }));

    it('applies the patch with the events: status, output, error, usage, steps', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        await store.append(id, [draft('run_status', { from: 'queued', to: 'running' })], { status: 'running' });
        let run = await store.getRun(id);
        assert.equal(run?.status, 'running');
        assert.equal(run?.lastEventId, 1);

        const usage = { promptTokens: 120, completionTokens: 30, totalTokens: 150 };
        await store.append(id, [draft('run_completed', { output: 'Done: 10 MW', usage, steps: 2 })], {
          status: 'completed',
          output: 'Done: 10 MW',
          usage,
          steps: 2,
        });
        run = await store.getRun(id);
        assert.equal(run?.status, 'completed');
        assert.equal(run?.output, 'Done: 10 MW');
        assert.deepEqual(run?.usage, usage);
        assert.equal(run?.steps, 2);
        assert.equal(run?.lastEventId, 2);

        const failed = await store.createRun(newRun());
        const error = { code: 'max_steps', message: 'the run used all 8 steps' } as const;
        await store.append(failed.id, [draft('run_failed', { error })], { status: 'failed', error });
        assert.deepEqual((await store.getRun(failed.id))?.error, error);
        assert.equal((await store.getRun(failed.id))?.status, 'failed');
      }));

    it('leaves the fields a patch does not name untouched', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun({ metadata: { keep: true } }));
        await store.append(id, [userMessage('x')], { status: 'running', output: 'partial', steps: 1 });
        await store.append(id, [userMessage('y')], { steps: 2 });
        const run = await store.getRun(id);
        assert.equal(run?.status, 'running');
        assert.equal(run?.output, 'partial');
        assert.equal(run?.steps, 2);
        assert.deepEqual(run?.metadata, { keep: true });
      }));

    it('sets pendingApproval, keeps it across patches that do not name it, and clears it with null', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        await store.append(
          id,
          [
            draft('approval_required', {
              step: 1,
              toolCallId: 'call_1',
              name: 'place_order',
              arguments: PENDING.arguments,
              effect: 'write',
              reason: 'policy',
            }),
          ],
          { status: 'waiting_approval', pendingApproval: PENDING },
        );
        assert.deepEqual((await store.getRun(id))?.pendingApproval, PENDING);
        await store.append(id, [userMessage('still waiting')], { steps: 1 });
        assert.deepEqual((await store.getRun(id))?.pendingApproval, PENDING);
        await store.append(id, [draft('run_status', { from: 'waiting_approval', to: 'running' })], {
          status: 'running',
          pendingApproval: null,
        });
        const run = await store.getRun(id);
        assert.equal(run?.status, 'running');
        assert.ok(run !== undefined && !('pendingApproval' in run), 'pendingApproval should be gone after null');
      }));

    it('applies a patch with no events without numbering anything', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        assert.deepEqual(await store.append(id, [], { steps: 3 }), []);
        const run = await store.getRun(id);
        assert.equal(run?.steps, 3);
        assert.equal(run?.lastEventId, 0);
        assert.deepEqual(ids(await store.append(id, [userMessage('first')])), [1]);
      }));

    it('rejects append and readEvents on an unknown run with not_found', () =>
      withStore(factory, async (store) => {
        await assert.rejects(store.append('run_missing', [userMessage('x')]), toolgateError('not_found'));
        await assert.rejects(store.readEvents('run_missing'), toolgateError('not_found'));
        assert.equal(await store.getRun('run_missing'), undefined);
      }));

    it('readEvents returns the events after `after`, at most `limit` of them', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        await store.append(
          id,
          oneTo(10).map((i) => userMessage(`m${i}`)),
        );
        assert.deepEqual(ids(await store.readEvents(id, { after: 3 })), [4, 5, 6, 7, 8, 9, 10]);
        assert.deepEqual(ids(await store.readEvents(id, { limit: 2 })), [1, 2]);
        assert.deepEqual(ids(await store.readEvents(id, { after: 3, limit: 4 })), [4, 5, 6, 7]);
        assert.deepEqual(ids(await store.readEvents(id, { after: 8, limit: 5 })), [9, 10]);
        assert.deepEqual(await store.readEvents(id, { after: 10 }), []);
        assert.deepEqual(await store.readEvents(id, { after: 50 }), []);
      }));

    it('returns events deep-equal to what was appended: data round-trips exactly', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        const appended = await store.append(id, AWKWARD_DRAFTS);
        assert.deepEqual(
          appended.map((e) => ({ type: e.type, data: e.data })),
          AWKWARD_DRAFTS.map((d) => ({ type: d.type, data: d.data })),
        );
        assert.deepEqual(await store.readEvents(id), appended);
      }));

    it('numbers 100 concurrent appends to one run 1..100 with no gap or duplicate', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        const results = await Promise.all(
          oneTo(100).map((i) => store.append(id, [userMessage(`m${i}`)], { steps: i })),
        );
        assert.deepEqual(
          results.flatMap(ids).sort((a, b) => a - b),
          oneTo(100),
        );
        const stored = await store.readEvents(id);
        assert.deepEqual(ids(stored), oneTo(100));
        // What each append returned is what the log holds under that id.
        assert.deepEqual(
          results.flat().sort((a, b) => a.id - b.id),
          stored,
        );
        assert.equal(new Set(stored.map((e) => (e.type === 'user_message' ? e.data.text : ''))).size, 100);
        assert.equal((await store.getRun(id))?.lastEventId, 100);
      }));

    it('numbers each of 20 concurrent batches contiguously', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        const batches = await Promise.all(
          oneTo(20).map((b) =>
            store.append(
              id,
              oneTo(5).map((i) => userMessage(`b${b}-${i}`)),
            ),
          ),
        );
        for (const batch of batches) {
          const first = batch[0]?.id ?? 0;
          assert.deepEqual(ids(batch), [first, first + 1, first + 2, first + 3, first + 4]);
        }
        assert.deepEqual(
          batches.flatMap(ids).sort((a, b) => a - b),
          oneTo(100),
        );
      }));
  });
}
