import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PendingApproval, RunEvent } from '../core/index.ts';
import { parseAfter, parseLimit, parseStatuses } from './runs-actions.ts';
import { decisionContext, decisionFor } from './runs-decide.ts';

const pending: PendingApproval = {
  toolCallId: 'call_1',
  name: 'placeOrder',
  arguments: {},
  effect: 'write',
  reason: 'policy',
  eventId: 5,
};

describe('decisions from the command line', () => {
  it('approve, reject (with a reason the model is told) and mark-done (only for an unknown outcome)', () => {
    assert.deepEqual(decisionFor({ verb: 'approve', pending, values: {} }), {
      type: 'approval',
      toolCallId: 'call_1',
      userId: 'cli',
      decision: 'approve',
    });
    assert.deepEqual(decisionFor({ verb: 'reject', pending, values: { reason: 'too big' } }), {
      type: 'approval',
      toolCallId: 'call_1',
      userId: 'cli',
      decision: 'reject',
      reason: 'too big',
    });
    assert.equal(decisionFor({ verb: 'reject', pending, values: {} }).reason, 'rejected by the operator');
    assert.throws(
      () => decisionFor({ verb: 'mark-done', pending, values: {} }),
      /mark-done is for a call whose outcome is unknown; placeOrder waits for approval \(policy\)/,
    );
    const unknown = { ...pending, reason: 'outcome_unknown' as const };
    assert.deepEqual(decisionFor({ verb: 'mark-done', pending: unknown, values: { result: 'on the book' } }), {
      type: 'approval',
      toolCallId: 'call_1',
      userId: 'cli',
      decision: 'mark_done',
      result: 'on the book',
    });
  });

  it('the events that introduce the pending call: its last gate decision, then the wait', () => {
    const base = { runId: 'run_a', time: '' };
    const events = [
      {
        ...base,
        id: 1,
        type: 'gate_decision',
        data: {
          step: 1,
          toolCallId: 'call_0',
          name: 'x',
          effect: 'read',
          decision: 'allow',
          normalisations: [],
          injected: [],
        },
      },
      {
        ...base,
        id: 4,
        type: 'gate_decision',
        data: {
          step: 1,
          toolCallId: 'call_1',
          name: 'placeOrder',
          effect: 'write',
          decision: 'approval_required',
          normalisations: [],
          injected: [],
        },
      },
      {
        ...base,
        id: 5,
        type: 'approval_required',
        data: { step: 1, toolCallId: 'call_1', name: 'placeOrder', arguments: {}, effect: 'write', reason: 'policy' },
      },
    ] as unknown as RunEvent[];
    assert.deepEqual(
      decisionContext(events, pending).map((e) => e.id),
      [4, 5],
    );
  });

  it('flags: --status must be a status, --limit 1 to 200, --after a number', () => {
    assert.deepEqual(parseStatuses(['failed', 'completed']), ['failed', 'completed']);
    assert.throws(() => parseStatuses(['waiting']), /--status waiting: use one of queued, running, waiting_approval/);
    assert.equal(parseLimit(undefined), 20);
    assert.equal(parseLimit('200'), 200);
    assert.throws(() => parseLimit('0'), /from 1 to 200/);
    assert.throws(() => parseLimit('201'), /from 1 to 200/);
    assert.equal(parseAfter('12'), 12);
    assert.throws(() => parseAfter('-1'), /--after must be an event number/);
  });
});
