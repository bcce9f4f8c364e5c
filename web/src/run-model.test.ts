import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../src/core/events.ts';
import type { ReplayDiff } from '../../src/core/replay.ts';
import { applyEvent, emptyView, type RunView } from './run-model.ts';
import { forkOfMetadata, replayOfMetadata } from './replay-model.ts';

let id = 0;
function ev(type: string, data: object, time = '2026-11-26T10:00:00.000Z'): RunEvent {
  id += 1;
  return { id, runId: 'run_1', type, time, data } as RunEvent;
}

function fold(events: RunEvent[]): RunView {
  const view = emptyView();
  for (const event of events) applyEvent(view, event);
  return view;
}

describe('run view model', () => {
  it('shows a client tool call as handed back, with the arguments it was handed back with', () => {
    id = 0;
    const view = fold([
      ev('assistant_message', {
        step: 1,
        text: '',
        toolCalls: [],
        calls: [{ id: 'call_c', name: 'get_weather', arguments: '{"days":"2"}' }],
        finishReason: 'tool_calls',
        latencyMs: 5,
      }),
      ev('client_tool_calls', {
        step: 1,
        calls: [{ toolCallId: 'call_c', name: 'get_weather', arguments: { days: 2 } }],
      }),
      ev('run_completed', { output: '', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, steps: 1 }),
    ]);
    const call = view.calls.get('call_c');
    assert.equal(call?.state, 'handed_back');
    assert.deepEqual(call?.arguments, { days: 2 });
  });

  it('follows a call from proposal through approval to its result', () => {
    id = 0;
    const view = fold([
      ev('run_started', { input: 'buy', model: 'm', tools: ['placeOrder'], maxSteps: 8, strategy: 'react' }),
      ev('assistant_delta', { step: 1, text: 'Plac' }),
      ev('assistant_delta', { step: 1, text: 'ing.' }),
      ev(
        'assistant_message',
        {
          step: 1,
          text: 'Placing.',
          toolCalls: [],
          calls: [{ id: 'call_1', name: 'placeOrder', arguments: '{"qty":"1"}' }],
          finishReason: 'tool_calls',
          latencyMs: 200,
        },
        '2026-11-26T10:00:01.000Z',
      ),
      ev('gate_decision', {
        step: 1,
        toolCallId: 'call_1',
        name: 'placeOrder',
        effect: 'write',
        decision: 'approval_required',
        normalisations: [{ path: 'qty', from: '1', to: 1, rule: 'string_to_number' }],
        injected: [{ key: 'userId', overridden: false }],
        policyRule: 'power-exchange/placeOrder',
      }),
      ev('approval_required', {
        step: 1,
        toolCallId: 'call_1',
        name: 'placeOrder',
        arguments: { qty: 1, userId: 'alice' },
        effect: 'write',
        reason: 'policy',
      }),
      ev('run_status', { from: 'running', to: 'waiting_approval' }),
    ]);
    assert.equal(view.status, 'waiting_approval');
    assert.equal(view.pending?.toolCallId, 'call_1');
    assert.equal(view.turns[0]?.text, 'Placing.');
    const call = view.calls.get('call_1');
    assert.equal(call?.state, 'waiting');
    assert.equal(call?.effect, 'write');
    assert.deepEqual(call?.injected, [{ key: 'userId', overridden: false }]);
    assert.equal(call?.normalisations.length, 1);
    assert.equal(view.spans[0]?.end, Date.parse('2026-11-26T10:00:01.000Z'));
    assert.equal(view.spans[0]?.start, Date.parse('2026-11-26T10:00:01.000Z') - 200);

    for (const event of [
      ev('input_received', {
        input: { type: 'approval', toolCallId: 'call_1', decision: 'edit', arguments: { qty: 3 }, userId: 'bob' },
      }),
      ev('run_status', { from: 'waiting_approval', to: 'running' }),
      ev('tool_call', { step: 1, toolCallId: 'call_1', name: 'placeOrder', arguments: { qty: 3, userId: 'alice' } }),
      ev('tool_result', {
        step: 1,
        toolCallId: 'call_1',
        name: 'placeOrder',
        ok: true,
        content: [{ type: 'text', text: 'ord-1' }],
        latencyMs: 40,
      }),
      ev('run_completed', { output: 'Done.', usage: { inputTokens: 1, outputTokens: 1 }, steps: 2 }),
    ])
      applyEvent(view, event);
    assert.equal(view.pending, undefined);
    assert.equal(call?.state, 'done');
    assert.deepEqual(call?.arguments, { qty: 3, userId: 'alice' });
    assert.equal(call?.approval?.decision, 'edit');
    assert.equal(call?.approval?.by, 'bob');
    assert.equal(call?.result?.text, 'ord-1');
    assert.equal(view.output, 'Done.');
    assert.equal(view.finished, true);
    assert.equal(view.lastId, 12);
    assert.deepEqual(
      view.spans.map((s) => s.kind),
      ['model', 'tool'],
    );
  });

  it('marks rejected, skipped and dry-run calls, and keeps plan steps in step with their calls', () => {
    id = 0;
    const view = fold([
      ev('plan_created', {
        planId: 'plan_1',
        step: 1,
        steps: [
          { index: 0, kind: 'tool', toolCallId: 'call_a', name: 'a', arguments: {} },
          { index: 1, kind: 'tool', toolCallId: 'call_b', name: 'b', arguments: {} },
          { index: 2, kind: 'reasoning', text: 'sum up' },
        ],
        writes: [1],
        approval: 'none',
      }),
      ev('tool_call', { step: 1, toolCallId: 'call_a', name: 'a', arguments: {} }),
      ev('tool_result', {
        step: 1,
        toolCallId: 'call_a',
        name: 'a',
        ok: false,
        content: [],
        error: { code: 'tool_error', message: 'boom' },
        latencyMs: 5,
      }),
      ev('tool_result', {
        step: 1,
        toolCallId: 'call_b',
        name: 'b',
        ok: false,
        content: [],
        error: { code: 'skipped', message: 'an earlier step failed' },
        latencyMs: 0,
      }),
      ev('reflection', { step: 2, trigger: 'tool_failure', verdict: 'replan', reason: 'a failed' }),
      ev('guard_tripped', {
        code: 'tool_failures',
        action: 'reflect',
        limit: 1,
        value: 1,
        message: 'too many failures',
      }),
      ev('todo_updated', { todos: [{ id: '1', text: 'check', status: 'in_progress' }] }),
      ev('tool_changed', {
        name: 'list_orders',
        server: 'crm',
        tool: 'list_orders',
        fingerprint: 'f2',
        pinnedFingerprint: 'f1',
        pinnedAt: '2026-11-26T00:00:00.000Z',
        changes: ['description changed'],
      }),
      ev('tool_mode_changed', {
        step: 2,
        from: 'native',
        to: 'prompted',
        cause: 'text_calls',
        reason: 'calls written as text',
        model: 'openai:small',
      }),
    ]);
    assert.deepEqual(
      view.plan?.steps.map((s) => s.state),
      ['failed', 'skipped', 'reasoning'],
    );
    assert.equal(view.reflections[0]?.verdict, 'replan');
    assert.equal(view.guardTrips[0]?.code, 'tool_failures');
    assert.equal(view.todos[0]?.status, 'in_progress');
    assert.deepEqual(
      view.toolChanges.map((t) => [t.name, t.changes]),
      [['list_orders', ['description changed']]],
    );
    assert.deepEqual(
      view.modeChanges.map((m) => [m.from, m.to, m.model]),
      [['native', 'prompted', 'openai:small']],
    );

    const rejected = fold([
      ev('gate_decision', {
        step: 1,
        toolCallId: 'c',
        name: 'w',
        effect: 'write',
        decision: 'approval_required',
        normalisations: [],
        injected: [],
      }),
      ev('input_received', { input: { type: 'approval', toolCallId: 'c', decision: 'reject', reason: 'no' } }),
      ev('tool_result', {
        step: 1,
        toolCallId: 'c',
        name: 'w',
        ok: false,
        content: [],
        error: { code: 'rejected', message: 'no' },
        latencyMs: 0,
      }),
      ev('gate_decision', {
        step: 1,
        toolCallId: 'd',
        name: 'w',
        effect: 'write',
        decision: 'dry_run',
        normalisations: [],
        injected: [],
      }),
      ev('tool_result', { step: 1, toolCallId: 'd', name: 'w', ok: true, content: [], latencyMs: 0, dryRun: true }),
    ]);
    assert.equal(rejected.calls.get('c')?.state, 'denied');
    assert.equal(rejected.calls.get('c')?.approval?.note, 'no');
    assert.equal(rejected.calls.get('d')?.state, 'dry_run');
  });

  it('a fork knows the run and the event it was forked after, and what it changed', () => {
    id = 0;
    const view = fold([
      ev('run_started', { input: 'buy', model: 'm', tools: [], maxSteps: 8, strategy: 'react' }),
      ev('user_message', { text: 'buy' }),
      ev('run_forked', { from: 'run_0', afterEventId: 7, settings: { strategy: 'plan', maxSteps: 3 } }),
    ]);
    assert.deepEqual(view.forkOf, { runId: 'run_0', afterEventId: 7, settings: { strategy: 'plan', maxSteps: 3 } });
    assert.deepEqual(fold([ev('run_forked', { from: 'run_0', afterEventId: 2 })]).forkOf, {
      runId: 'run_0',
      afterEventId: 2,
    });
  });

  it("a stored replay's diff: each call before and after, in words, with its change lines and the answers", () => {
    id = 0;
    const diff: ReplayDiff = {
      of: 'run_0',
      calls: [
        {
          kind: 'changed',
          before: {
            toolCallId: 'c1',
            name: 'placeOrder',
            step: 1,
            decision: 'allowed',
            arguments: { qty: 7000 },
            outcome: 'executed',
          },
          after: {
            toolCallId: 'c1',
            name: 'placeOrder',
            step: 1,
            decision: 'approval_required',
            arguments: { qty: 7000 },
            policyRule: 'placeOrder',
            condition: 'qty * price > 10000',
            outcome: 'not_run',
          },
          changes: ['decision: allowed → approval_required'],
        },
        {
          kind: 'added',
          after: { toolCallId: 'c2', name: 'cancelOrder', step: 2, decision: 'allowed', outcome: 'would_run' },
          changes: ['a call only the replay made'],
        },
        {
          kind: 'same',
          before: { toolCallId: 'c0', name: 'getOrderBook', step: 1, decision: 'allowed', outcome: 'executed' },
          after: { toolCallId: 'c0', name: 'getOrderBook', step: 1, decision: 'allowed', outcome: 'recorded_result' },
          changes: [],
        },
      ],
      answer: { before: 'Placed.', after: 'Waiting for approval.', changed: true },
      status: { before: 'completed', after: 'waiting_approval' },
      changed: true,
      model: 'recorded',
      divergedAtStep: 2,
    };
    const view = fold([ev('replay_compared', { of: 'run_0', diff })]);
    const replay = view.replay;
    assert.ok(replay !== undefined);
    assert.equal(replay.of, 'run_0');
    assert.deepEqual(
      replay.rows.map((r) => [r.kind, r.before?.decision, r.after?.decision, r.before?.outcome, r.after?.outcome]),
      [
        ['changed', 'allowed', 'needs approval', 'executed', 'not run'],
        ['added', undefined, 'allowed', undefined, 'would run'],
        ['same', 'allowed', 'allowed', 'executed', 'recorded result'],
      ],
    );
    assert.equal(replay.rows[0]?.after?.rule, 'placeOrder when qty * price > 10000');
    assert.deepEqual(replay.rows[0]?.after?.arguments, { qty: 7000 });
    assert.deepEqual(replay.rows[0]?.changes, ['decision: allowed → approval_required']);
    assert.deepEqual(replay.answer, { before: 'Placed.', after: 'Waiting for approval.', changed: true });
    assert.deepEqual(replay.status, { before: 'completed', after: 'waiting_approval' });
    assert.equal(replay.divergedAtStep, 2);
  });

  it('reads forkOf and replayOf from a run’s metadata, ignoring other shapes', () => {
    assert.deepEqual(forkOfMetadata({ forkOf: { runId: 'run_0', afterEventId: 4 } }), {
      runId: 'run_0',
      afterEventId: 4,
    });
    assert.equal(forkOfMetadata({ forkOf: 'run_0' }), undefined);
    assert.equal(forkOfMetadata(undefined), undefined);
    assert.equal(replayOfMetadata({ replayOf: 'run_0' }), 'run_0');
    assert.equal(replayOfMetadata({ replayOf: 3 }), undefined);
  });

  it('folds notifications, timeouts and the decision source into the waiting call', () => {
    const asked = { step: 1, toolCallId: 'c1', name: 'placeOrder', arguments: { qty: 1 }, effect: 'write' };
    const view = fold([
      ev('approval_required', { ...asked, reason: 'policy' }),
      ev('approval_notified', {
        toolCallId: 'c1',
        target: 'desk',
        round: 'first',
        outcome: 'delivered',
        attempts: 1,
        deliveryId: 'd1',
      }),
      ev('approval_notified', {
        toolCallId: 'c1',
        target: 'managers',
        round: 'first',
        outcome: 'failed',
        attempts: 5,
        failures: [
          { attempt: 4, error: 'connection refused' },
          { attempt: 5, status: 500, error: 'HTTP 500' },
        ],
        deliveryId: 'd2',
      }),
      ev('approval_timed_out', { toolCallId: 'c1', action: 'escalate', waitedMs: 600_000, round: 1 }),
      ev('approval_notified', {
        toolCallId: 'c1',
        target: 'oncall',
        round: 'escalation',
        outcome: 'delivered',
        attempts: 2,
        deliveryId: 'd3',
      }),
      ev('input_received', {
        input: {
          type: 'approval',
          toolCallId: 'c1',
          decision: 'approve',
          source: { via: 'link', target: 'desk', linkId: 'l1' },
        },
      }),
    ]);
    const approval = view.calls.get('c1')?.approval;
    assert.deepEqual(approval?.notices, [
      'notified desk (delivered)',
      'notifying managers failed after 5 attempts: HTTP 500',
      'timed out after 10 min → escalated',
      'notified oncall (escalation) (delivered)',
    ]);
    assert.equal(approval?.decision, 'approve');
    assert.equal(approval?.via, 'via link (desk)');
    assert.equal(approval?.by, undefined);

    const bot = fold([
      ev('approval_required', { ...asked, reason: 'policy' }),
      ev('input_received', {
        input: {
          type: 'approval',
          toolCallId: 'c1',
          decision: 'reject',
          source: { via: 'chat', target: 'desk', linkId: 'l2', actor: 'U123' },
        },
      }),
    ]).calls.get('c1');
    assert.deepEqual([bot?.approval?.via, bot?.approval?.by, bot?.state], ['via chat (desk)', 'U123', 'denied']);
  });
});
