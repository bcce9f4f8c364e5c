import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft } from '../../core/index.ts';
import { completed, decision, handLog, ran, refusedResult, turn } from '../../../test/support/replay-logs.ts';
import { decisionDiff } from './decision-diff.ts';

const BID = { step: 1, id: 'call_a', name: 'placeOrder' };
const BOOK = { step: 1, id: 'call_b', name: 'getOrderBook' };
const DONE = { status: 'completed' as const, output: 'Placed.' };

describe('decisionDiff on hand-written logs', () => {
  it('the same calls, decisions and outcomes: no change (a recorded result is as good as executed)', async () => {
    const log = [turn(1, [{ ...BID, args: { qty: 7000 } }]), decision(BID, 'allowed'), ...ran(BID, { qty: 7000 })];
    const original = await handLog([...log, completed('Placed.')], DONE);
    const replay = await handLog([...log, completed('Placed.')], DONE);
    const diff = decisionDiff({ original, replay, outcomeOf: () => 'recorded_result' });
    assert.equal(diff.changed, false);
    assert.deepEqual(
      diff.calls.map((c) => [c.kind, c.changes, c.before?.outcome, c.after?.outcome]),
      [['same', [], 'executed', 'recorded_result']],
    );
    assert.deepEqual(diff.answer, { before: 'Placed.', after: 'Placed.', changed: false });
    assert.deepEqual(diff.status, { before: 'completed', after: 'completed' });
    assert.equal(diff.model, 'recorded');
  });

  it('decision, each argument path after normalisation, injected keys, the condition and the outcome', async () => {
    const original = await handLog(
      [
        turn(1, [{ ...BID, args: { qty: '7,000', side: 'buy', limits: { max: 1 } } }]),
        decision(BID, 'allowed', { normalisations: [{ path: '/qty', from: '7,000', to: 7000, rule: 'number' }] }),
        ...ran(BID, { qty: 7000, side: 'buy', limits: { max: 1 } }),
        completed('Placed.'),
      ],
      DONE,
    );
    const replay = await handLog(
      [
        turn(1, [{ ...BID, args: { qty: '7,000', side: 'buy', limits: { max: 1 } } }]),
        decision(BID, 'approval_required', {
          normalisations: [
            { path: '/qty', from: '7,000', to: 7000, rule: 'number' },
            { path: '/side', from: 'buy', to: 'BUY', rule: 'enum_case' },
          ],
          injected: [{ key: 'userId', overridden: false }],
          condition: { pattern: 'placeOrder', index: 0, when: 'args.qty > 5000', effect: 'approval' },
        }),
        draft('approval_required', {
          step: 1,
          toolCallId: BID.id,
          name: BID.name,
          arguments: { qty: 7000, side: 'BUY', limits: { max: 2 }, userId: 'alice' },
          effect: 'write',
          reason: 'policy',
        }),
        refusedResult(BID, 'rejected'),
        completed('Not placed.'),
      ],
      { status: 'completed', output: 'Not placed.' },
    );
    const diff = decisionDiff({ original, replay });
    assert.deepEqual(diff.calls[0]?.changes, [
      'decision: allowed → approval_required',
      'condition: (none) → args.qty > 5000',
      'arguments.limits.max: 1 → 2',
      'arguments.side: "buy" → "BUY"',
      'injected: (none) → userId',
      'outcome: executed → not_run',
    ]);
    assert.equal(diff.calls[0]?.kind, 'changed');
    assert.equal(diff.calls[0]?.after?.condition, 'args.qty > 5000');
    assert.deepEqual(diff.answer, { before: 'Placed.', after: 'Not placed.', changed: true });
    assert.equal(diff.changed, true);
  });

  it("a call the gate refused keeps the model's arguments: not normalised is not an argument change", async () => {
    const original = await handLog([
      turn(1, [{ ...BID, args: { qty: '7,000' } }]),
      decision(BID, 'denied', { reason: 'tenant' }),
      refusedResult(BID, 'denied'),
    ]);
    const replay = await handLog([
      turn(1, [{ ...BID, args: { qty: '7,000' } }]),
      decision(BID, 'allowed', { normalisations: [{ path: '/qty', from: '7,000', to: 7000, rule: 'number' }] }),
      ...ran(BID, { qty: 7000 }),
    ]);
    const diff = decisionDiff({ original, replay, outcomeOf: () => 'would_run' });
    assert.deepEqual(diff.calls[0]?.changes, ['decision: denied → allowed', 'outcome: not_run → would_run']);
    assert.deepEqual(diff.calls[0]?.before?.arguments, { qty: '7,000' });
    assert.equal(diff.calls[0]?.before?.reason, 'tenant');
  });

  it('added and missing calls; pairs by step and place, then by name when the steps moved', async () => {
    const later = { ...BID, step: 2 };
    const original = await handLog([
      turn(1, [
        { ...BID, args: { qty: 1 } },
        { ...BOOK, args: {} },
      ]),
      decision(BID, 'allowed'),
      ...ran(BID, { qty: 1 }),
      decision(BOOK, 'allowed'),
      ...ran(BOOK, {}),
    ]);
    // The replay made a step more first (a plan), then only the bid; and a call of a tool the run does not have.
    const ghost = { step: 2, id: 'call_c', name: 'cancelAll' };
    const replay = await handLog([
      turn(2, [
        { ...later, args: { qty: 1 } },
        { ...ghost, args: {} },
      ]),
      decision(later, 'allowed'),
      ...ran(later, { qty: 1 }),
      draft('tool_result', {
        ...ghost,
        toolCallId: ghost.id,
        ok: false,
        content: [],
        error: { code: 'tool_not_found', message: 'no such tool' },
        latencyMs: 0,
      }),
    ]);
    const diff = decisionDiff({ original, replay, outcomeOf: () => 'recorded_result' });
    assert.deepEqual(
      diff.calls.map((c) => [c.kind, c.before?.name, c.after?.name, c.after?.step]),
      [
        ['same', 'placeOrder', 'placeOrder', 2],
        ['missing', 'getOrderBook', undefined, undefined],
        ['added', undefined, 'cancelAll', 2],
      ],
    );
    assert.deepEqual(diff.calls[1]?.changes, ['missing: getOrderBook {} (step 1, allowed, executed)']);
    assert.deepEqual(diff.calls[2]?.changes, ['added: cancelAll {} (step 2, not_found, not_run)']);
    assert.equal(diff.changed, true);
  });
});
