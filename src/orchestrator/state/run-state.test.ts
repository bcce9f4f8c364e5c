import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventDraft, ParsedToolCall, RawToolCall, RunEvent } from '../../core/index.ts';
import { applyEvents, callKey, emptyConversation, UNREADABLE_ARGUMENTS, type ConversationState } from './run-state.ts';

/** Numbers and timestamps drafts the way the store does. */
function events(state: ConversationState, drafts: EventDraft[]): RunEvent[] {
  return drafts.map((d, i): RunEvent =>
    Object.assign({ id: state.lastEventId + i + 1, runId: 'run_1', time: '2025-01-01T00:00:00.000Z' }, d),
  );
}

function answer(
  calls: RawToolCall[],
  extra: { finishReason?: string; toolMode?: 'native' | 'prompted' } = {},
): EventDraft {
  return {
    type: 'assistant_message',
    data: {
      step: 1,
      text: '',
      toolCalls: [],
      finishReason: extra.finishReason ?? 'tool_calls',
      latencyMs: 1,
      calls,
      ...(extra.toolMode === undefined ? {} : { toolMode: extra.toolMode }),
    },
  };
}

function apply(state: ConversationState, ...drafts: EventDraft[]): ConversationState {
  return applyEvents(state, events(state, drafts));
}

describe('the run state reducer', () => {
  it('a turn takes the calls its model turn handed over: the recorded arguments strings are not read again', () => {
    const state = emptyConversation('running');
    const handed: ParsedToolCall = { id: 'call_a', name: 'quote', input: { qty: -0 } };
    state.handover.set(handed.id, handed);
    apply(state, answer([{ id: 'call_a', name: 'quote', arguments: '{"qty":0}' }]));
    assert.equal(state.turn?.calls[0], handed, 'the very object the parser handed on');
    assert.equal(state.handover.size, 0, 'the handover is emptied by the event that records its calls');
  });

  it(
    'a turn read from the log parses each recorded arguments ' +
      'string, once: readable ones into input, the others with why',
    () => {
      const state = apply(
        emptyConversation('running'),
        answer(
          [
            { id: 'call_a', name: 'quote', arguments: '{"qty":3}', providerId: 'p1' },
            { id: 'call_b', name: 'quote', arguments: '{"qty": 3' },
          ],
          { finishReason: 'length' },
        ),
      );
      const [a, b] = state.turn?.calls ?? [];
      assert.deepEqual(a, { id: 'call_a', name: 'quote', providerId: 'p1', input: { qty: 3 } });
      assert.ok(b !== undefined && 'error' in b && b.raw === '{"qty": 3', JSON.stringify(b));
      assert.match(b.error.message, /cut off/, 'read as the live turn read it: the reply hit its length limit');
      assert.equal(state.turn?.truncated, true);
      // The conversation keeps the calls as they were recorded, with the model's id on the wire.
      const last = state.messages.at(-1);
      assert.deepEqual(last?.role === 'assistant' ? last.toolCalls?.map((c) => [c.id, c.arguments]) : undefined, [
        ['p1', '{"qty":3}'],
        ['call_b', '{"qty": 3'],
      ]);
    },
  );

  it('counts repeated calls by tool and arguments, key order ignored; unreadable ones not at all', () => {
    const state = apply(
      emptyConversation('running'),
      answer([
        { id: 'c1', name: 'quote', arguments: '{"a":1,"b":2}' },
        { id: 'c2', name: 'quote', arguments: '{"b":2,"a":1}' },
        { id: 'c3', name: 'quote', arguments: '{"a":' },
      ]),
    );
    const key = callKey({ id: 'x', name: 'quote', input: { a: 1, b: 2 } });
    assert.equal(key === undefined ? undefined : state.callRepeats.get(key)?.count, 2);
    assert.equal(state.callRepeats.size, 1);
    assert.equal(callKey({ id: 'x', name: 'quote', raw: '{', error: { message: 'bad', position: 1 } }), undefined);
  });

  it(
    'closes a turn when every call has its result, in call ' +
      'order, and counts turns whose arguments could not be read',
    () => {
      const state = apply(
        emptyConversation('running'),
        answer([
          { id: 'c1', name: 'quote', arguments: '{}' },
          { id: 'c2', name: 'quote', arguments: 'nope' },
        ]),
        {
          type: 'gate_decision',
          data: {
            step: 1,
            toolCallId: 'c2',
            name: 'quote',
            effect: 'read',
            decision: 'invalid',
            normalisations: [],
            injected: [],
            issues: [{ code: UNREADABLE_ARGUMENTS, path: '', message: 'x' }],
          },
        },
        {
          type: 'tool_result',
          data: {
            step: 1,
            toolCallId: 'c2',
            name: 'quote',
            ok: false,
            content: [{ type: 'text', text: 'bad' }],
            error: { code: 'invalid_arguments', message: 'bad' },
            latencyMs: 0,
          },
        },
        {
          type: 'tool_result',
          data: {
            step: 1,
            toolCallId: 'c1',
            name: 'quote',
            ok: true,
            content: [{ type: 'text', text: 'ok' }],
            latencyMs: 0,
          },
        },
      );
      assert.equal(state.turn, undefined);
      assert.deepEqual(
        state.messages.slice(-2).map((m) => (m.role === 'tool' ? m.toolCallId : m.role)),
        ['c1', 'c2'],
      );
      assert.equal(state.unusableTurns, 1);
      assert.equal(state.reflectTrigger, 'tool_failure');
    },
  );

  it(
    "a plan's steps become a turn: the steps the plan check parsed " +
      'are taken as handed over, the others read once from their text',
    () => {
      const state = emptyConversation('running');
      const checked: ParsedToolCall = { id: 'call_1', name: 'quote', input: { qty: 1 } };
      state.handover.set(checked.id, checked);
      apply(state, {
        type: 'plan_created',
        data: {
          planId: 'plan_1',
          step: 2,
          writes: [],
          approval: 'none',
          steps: [
            { index: 0, kind: 'tool', toolCallId: 'call_1', name: 'quote', arguments: { qty: 1 }, raw: '{"qty":1}' },
            { index: 1, kind: 'reasoning', text: 'then' },
            { index: 2, kind: 'tool', toolCallId: 'call_2', name: 'quote', raw: '{"qty":2}' },
          ],
        },
      });
      assert.equal(state.turn?.calls[0], checked);
      assert.deepEqual(state.turn?.calls[1], { id: 'call_2', name: 'quote', input: { qty: 2 } });
      assert.deepEqual(state.plan?.callIds, ['call_1', 'call_2']);
      assert.deepEqual(state.messages.at(-1), {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'quote', arguments: '{"qty":1}' },
          { id: 'call_2', name: 'quote', arguments: '{"qty":2}' },
        ],
      });
    },
  );

  it('applies each event once: history and live events overlapping at the seam', () => {
    const state = emptyConversation('running');
    const list = events(state, [{ type: 'user_message', data: { text: 'hi' } }]);
    applyEvents(state, list);
    applyEvents(state, list);
    assert.deepEqual(state.messages, [{ role: 'user', content: 'hi' }]);
  });
});
