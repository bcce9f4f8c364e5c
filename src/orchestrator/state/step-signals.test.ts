import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type EventDraft, type RawToolCall, type RunEvent } from '../../core/index.ts';
import { applyEvents, emptyConversation, type ConversationState } from './run-state.ts';
import { signalIfClosing } from './step-signals.ts';

function apply(state: ConversationState, ...drafts: EventDraft[]): ConversationState {
  const events = drafts.map((d, i): RunEvent =>
    Object.assign({ id: state.lastEventId + i + 1, runId: 'r', time: '2025-01-01T00:00:00Z' }, d),
  );
  return applyEvents(state, events);
}

const call = (id: string, name: string, args: unknown = {}): RawToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});
const turn = (step: number, ...calls: RawToolCall[]): EventDraft =>
  draft('assistant_message', { step, text: '', toolCalls: [], finishReason: 'tool_calls', latencyMs: 1, calls });
const started = (step: number, id: string, name: string): EventDraft =>
  draft('tool_call', { step, toolCallId: id, name, arguments: {} });
const result = (step: number, id: string, name: string, text: string, extra: { ok?: boolean } = {}): EventDraft =>
  draft('tool_result', {
    step,
    toolCallId: id,
    name,
    ok: extra.ok ?? true,
    content: text === '' ? [] : [{ type: 'text', text }],
    latencyMs: 10,
  });

/** Read through a call: an assertion on the field must not narrow its later reads. */
const due = (state: ConversationState) => state.signalDue;

describe('per-step signals (step_signal), from the log', () => {
  it('evidence gained: 1 for the first results, the share of new tokens later, 0 for empty results', () => {
    const state = emptyConversation('running');
    apply(state, turn(1, call('a', 'price')), result(1, 'a', 'price', 'DE-LU price 87.40 EUR'));
    assert.deepEqual(state.signalDue, { step: 1, evidenceGained: 1 });
    apply(state, draft('step_signal', { step: 1, evidenceGained: 1 }));
    assert.equal(due(state), undefined, 'recorded');
    // "de-lu" and "price" seen; "volume" and "120" new: half.
    apply(state, turn(2, call('b', 'book')), result(2, 'b', 'book', 'DE-LU price, volume 120'));
    assert.equal(state.signalDue?.evidenceGained, 0.5);
    apply(state, turn(3, call('c', 'nothing')), result(3, 'c', 'nothing', ''));
    assert.equal(state.signalDue?.evidenceGained, 0);
    apply(state, turn(4, call('d', 'fail')), result(4, 'd', 'fail', 'some brand new words', { ok: false }));
    assert.equal(state.signalDue?.evidenceGained, 0, 'a failure brings no evidence');
  });

  it('conflicts: the same tool and arguments (key order ignored) answered differently', () => {
    const state = emptyConversation('running');
    apply(state, turn(1, call('a', 'price', { area: 'DE', day: 1 })), result(1, 'a', 'price', '87.40'));
    apply(state, turn(2, call('b', 'price', { day: 1, area: 'DE' })), result(2, 'b', 'price', '87.40'));
    assert.equal(state.signalDue?.conflicts, undefined, 'the same answer is no conflict');
    apply(
      state,
      turn(3, call('c', 'price', { area: 'DE', day: 1 }), call('d', 'price', { area: 'FR', day: 1 })),
      result(3, 'c', 'price', '91.00'),
      result(3, 'd', 'price', '12.00'),
    );
    assert.deepEqual(state.signalDue?.conflicting, [{ tool: 'price', toolCallId: 'c', earlierCallId: 'b' }]);
    assert.equal(state.signalDue?.conflicts, 1);
    const due = state.signalDue;
    if (due !== undefined) apply(state, draft('step_signal', due));
    assert.equal(state.conflictsSincePlan, 1, 'the guard counts what step_signal recorded');
  });

  it('plan coverage: the plan turn’s tool steps that succeeded', () => {
    const state = emptyConversation('running');
    const step = (id: string) => ({ index: 0, kind: 'tool' as const, toolCallId: id, name: 't', raw: '{}' });
    apply(
      state,
      draft('plan_created', {
        planId: 'p',
        step: 1,
        steps: [step('a'), step('b'), step('c')],
        writes: [],
        approval: 'none',
      }),
      result(1, 'a', 't', 'x'),
      result(1, 'b', 't', 'y', { ok: false }),
      result(1, 'c', 't', 'z'),
    );
    assert.equal(state.signalDue?.planCoverage, 0.667);
  });

  it('the result that closes a turn previews exactly the signal the reducer then computes', () => {
    const state = emptyConversation('running');
    apply(state, turn(1, call('a', 'price', { x: 1 })), result(1, 'a', 'price', 'alpha beta'));
    apply(state, draft('step_signal', { step: 1, evidenceGained: 1 }));
    apply(state, turn(2, call('b', 'price', { x: 1 }), call('c', 'other')), started(2, 'b', 'price'));
    const last = result(2, 'c', 'other', 'gamma beta');
    const first = result(2, 'b', 'price', 'alpha delta');
    assert.equal(signalIfClosing(state, first.type === 'tool_result' ? first.data : assert.fail()), undefined);
    apply(state, first);
    const preview = signalIfClosing(state, last.type === 'tool_result' ? last.data : assert.fail());
    apply(state, last);
    assert.deepEqual(preview, state.signalDue);
    assert.equal(preview?.conflicts, 1);
    assert.equal(preview?.evidenceGained, 0.5, 'delta and gamma new; alpha and beta seen');
  });

  it('latencies of executed calls only (a tool_call was recorded) feed the p95', () => {
    const state = emptyConversation('running');
    apply(state, turn(1, call('a', 't'), call('b', 't')), started(1, 'a', 't'), result(1, 'a', 't', 'x'));
    apply(state, result(1, 'b', 't', 'skipped'));
    assert.deepEqual(state.toolLatencies, [10]);
  });
});
