import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft, type EventDraft, type RunEvent } from '../../core/index.ts';
import { checkForkPoint, forkPrefix, forkRange } from './fork-prefix.ts';
import { applyEvents, emptyConversation, type ConversationState } from './run-state.ts';

const USAGE = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

/** A run that read the book, had an order approved and placed, and answered — as the engine writes it. */
const DRAFTS: EventDraft[] = [
  draft('run_status', { from: 'queued', to: 'running' }),
  draft('run_started', { input: 'buy one', model: 'openai:mock', tools: ['getOrderBook', 'placeOrder'], maxSteps: 8 }),
  draft('user_message', { text: 'buy one' }),
  draft('assistant_delta', { step: 1, text: 'Reading ' }),
  draft('assistant_message', {
    step: 1,
    text: 'Reading the book, then ordering.',
    toolCalls: [],
    calls: [
      { id: 'c1', name: 'getOrderBook', arguments: '{}' },
      { id: 'c2', name: 'placeOrder', arguments: '{"qty":1}' },
    ],
    finishReason: 'tool_calls',
    usage: USAGE,
    latencyMs: 5,
  }),
  draft('gate_decision', gate('c1', 'allowed')),
  draft('tool_call', { step: 1, toolCallId: 'c1', name: 'getOrderBook', arguments: {} }),
  draft('tool_result', result('c1', 'getOrderBook')),
  draft('gate_decision', gate('c2', 'approval_required')),
  draft('run_status', { from: 'running', to: 'waiting_approval' }),
  draft('approval_required', {
    step: 1,
    toolCallId: 'c2',
    name: 'placeOrder',
    arguments: { qty: 1 },
    effect: 'write',
    reason: 'policy',
  }),
  draft('input_received', { input: { type: 'approval', toolCallId: 'c2', decision: 'approve', userId: 'ann' } }),
  draft('run_status', { from: 'waiting_approval', to: 'running' }),
  draft('gate_decision', gate('c2', 'allowed')),
  draft('tool_call', { step: 1, toolCallId: 'c2', name: 'placeOrder', arguments: { qty: 1 } }),
  draft('tool_result', result('c2', 'placeOrder')),
  draft('cancel_requested', { reason: 'too late' }),
  draft('assistant_delta', { step: 2, text: 'Your order ' }),
  draft('assistant_message', {
    step: 2,
    text: 'Your order is placed.',
    toolCalls: [],
    finishReason: 'stop',
    usage: USAGE,
    latencyMs: 5,
  }),
  draft('run_status', { from: 'running', to: 'completed' }),
  draft('run_completed', { output: 'Your order is placed.', usage: USAGE, steps: 2 }),
];

const LOG: RunEvent[] = numbered(DRAFTS);

function gate(toolCallId: string, decision: 'allowed' | 'approval_required'): RunEvent<'gate_decision'>['data'] {
  const name = toolCallId === 'c1' ? 'getOrderBook' : 'placeOrder';
  const effect = toolCallId === 'c1' ? 'read' : 'write';
  return { step: 1, toolCallId, name, effect, decision, normalisations: [], injected: [] };
}

function result(toolCallId: string, name: string): RunEvent<'tool_result'>['data'] {
  return { step: 1, toolCallId, name, ok: true, content: [{ type: 'text', text: `${name} ok` }], latencyMs: 3 };
}

/** Numbers and stamps drafts the way a store does. */
function numbered(drafts: readonly EventDraft[]): RunEvent[] {
  return drafts.map((d, i): RunEvent => Object.assign({ id: i + 1, runId: 'run_1', time: '2025-01-01T00:00:00Z' }, d));
}

function idOf(type: RunEvent['type'], nth = 0): number {
  const found = LOG.filter((e) => e.type === type)[nth];
  assert.ok(found !== undefined, `the log has a ${type} #${nth}`);
  return found.id;
}

function stateOf(events: readonly RunEvent[]): ConversationState {
  return applyEvents(emptyConversation(), events);
}

describe('forkPrefix: what a fork copies of a log', () => {
  it('at every point of the conversation the reducer rebuilds the same conversation and position', () => {
    const range = forkRange(LOG);
    assert.deepEqual(range, { first: idOf('user_message'), last: idOf('run_completed') - 1 });
    for (let cut = range.first; cut <= range.last; cut++) {
      const original = stateOf(LOG.filter((e) => e.id <= cut));
      const fork = stateOf(numbered(forkPrefix(LOG, cut)));
      const at = `after event ${cut}`;
      assert.deepEqual(fork.messages, original.messages, at);
      assert.equal(fork.step, original.step, at);
      assert.deepEqual(fork.usage, original.usage, at);
      assert.equal(fork.started, true, at);
      assert.equal(fork.status, 'queued', `${at}: the fork's status is its own`);
      assert.equal(fork.cancelRequested, undefined, `${at}: nobody asked to cancel the fork`);
      assert.equal(fork.terminal, false, at);
      assert.deepEqual(
        fork.turn?.calls.map((c) => c.id),
        original.turn?.calls.map((c) => c.id),
        at,
      );
      assert.deepEqual([...(fork.turn?.results.keys() ?? [])], [...(original.turn?.results.keys() ?? [])], at);
      assert.deepEqual([...(fork.turn?.started ?? [])], [...(original.turn?.started ?? [])], at);
      const approvalAt = idOf('input_received');
      const placed = idOf('tool_call', 1);
      assert.deepEqual(
        [...fork.decisions.keys()],
        cut >= approvalAt && cut < placed ? [] : [...original.decisions.keys()],
        `${at}: a decision stays once its call started; one not yet acted on is asked again`,
      );
    }
  });

  it('a decision not acted on at the cut is asked again: the fork never re-sends a write on it', () => {
    const cut = idOf('input_received');
    const copies = forkPrefix(LOG, cut);
    assert.ok(!copies.some((d) => d.type === 'approval_required' || d.type === 'input_received'));
    const fork = stateOf(numbered(copies));
    assert.equal(fork.decisions.size, 0, 'nothing decided for the fork');
    assert.ok(fork.awaiting.has('c2'), 'the gate holds c2 for a person again');
  });

  it('leaves out the life of the original: status changes, the cancel request, the end', () => {
    const types = forkPrefix(LOG, idOf('run_completed') - 1).map((d) => d.type);
    for (const life of ['run_status', 'cancel_requested', 'run_completed'] as const)
      assert.ok(!types.includes(life), `${life} is not copied`);
    assert.deepEqual(
      types.filter((t) => t === 'approval_required' || t === 'input_received'),
      ['approval_required', 'input_received'],
      'a decided approval is copied with its decision',
    );
  });

  it('an approval pending at the cut is asked again: its approval_required is left out, the gate held the call', () => {
    const cut = idOf('approval_required');
    const copies = forkPrefix(LOG, cut);
    assert.ok(!copies.some((d) => d.type === 'approval_required'));
    const fork = stateOf(numbered(copies));
    assert.ok(fork.awaiting.has('c2'), 'the gate held c2 for a person');
    assert.ok(!fork.asked.has('c2'), 'nobody has asked the fork yet');
    assert.equal(fork.decisions.size, 0);
    assert.deepEqual([...(fork.turn?.results.keys() ?? [])], ['c1']);
  });

  it('a write whose tool_call is in the prefix without its result is in flight: started, never decided', () => {
    const fork = stateOf(numbered(forkPrefix(LOG, idOf('tool_call', 1))));
    assert.ok(fork.turn?.started.has('c2'));
    assert.ok(!fork.turn?.results.has('c2'));
    assert.equal(fork.decisions.size, 0, 'the decision was used by the call: an unknown outcome is asked again');
  });

  it('streamed text of a turn the prefix does not finish is left out; that of finished turns is kept', () => {
    const copies = forkPrefix(LOG, idOf('assistant_delta', 1));
    const deltas = copies.flatMap((d) => (d.type === 'assistant_delta' ? [d.data.step] : []));
    assert.deepEqual(deltas, [1]);
  });

  it("a fork's own toolMode wins over the mode its copied turns were asked in; without one they keep it", () => {
    const prompted = LOG.map((e) =>
      e.type === 'assistant_message' ? { ...e, data: { ...e.data, toolMode: 'prompted' as const } } : e,
    );
    const copies = forkPrefix(prompted, idOf('tool_result', 1));
    assert.equal(stateOf(numbered(copies)).toolMode, 'prompted');
    const forked = draft('run_forked', { from: 'run_1', afterEventId: 9, settings: { toolMode: 'native' } });
    assert.equal(stateOf(numbered([...copies, forked])).toolMode, undefined, 'the settings decide the next turn');
    const unchanged = draft('run_forked', { from: 'run_1', afterEventId: 9, settings: { maxSteps: 3 } });
    assert.equal(stateOf(numbered([...copies, unchanged])).toolMode, 'prompted');
  });

  it('copies are copies: same type and data, not the same objects', () => {
    const [copy] = forkPrefix(LOG, idOf('user_message')).filter((d) => d.type === 'run_started');
    const original = LOG.find((e) => e.type === 'run_started');
    assert.deepEqual(copy?.data, original?.data);
    assert.notEqual(copy?.data, original?.data);
    assert.ok(copy !== undefined && !('id' in copy), 'the store numbers the copies anew');
  });
});

describe('checkForkPoint', () => {
  const refused = (code: string, pattern: RegExp) => (error: unknown) => {
    assert.ok(error instanceof ToolgateError);
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  };

  it('accepts the range from the first user message to the event before the end', () => {
    for (const id of [idOf('user_message'), idOf('run_completed') - 1]) checkForkPoint('run_1', LOG, id);
  });

  it('refuses a point before the conversation or at its end, naming the valid range', () => {
    const range = `from ${idOf('user_message')} \\(its first user message\\) to ${idOf('run_completed') - 1}`;
    assert.throws(() => checkForkPoint('run_1', LOG, 1), refused('usage', new RegExp(range)));
    assert.throws(
      () => checkForkPoint('run_1', LOG, idOf('run_completed')),
      refused('usage', new RegExp(`event ${idOf('run_completed')} ends the run.*${range}`)),
    );
  });

  it('refuses an id past the log naming its last id, and a run that has not started as a conflict', () => {
    assert.throws(() => checkForkPoint('run_1', LOG, 99), refused('usage', new RegExp(`last event is ${LOG.length}`)));
    assert.throws(() => checkForkPoint('run_1', LOG.slice(0, 2), 2), refused('conflict', /has not started/));
  });

  it('a run still going may be forked up to its last event', () => {
    const going = LOG.filter((e) => e.id <= idOf('tool_result'));
    assert.deepEqual(forkRange(going), { first: idOf('user_message'), last: idOf('tool_result') });
  });
});
