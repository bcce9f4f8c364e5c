import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PendingApproval } from '../core/index.ts';
import { waitingMessage } from './runs-hints.ts';

const policy: PendingApproval = { toolCallId: 'call_1', name: 'placeOrder', arguments: {}, effect: 'write', reason: 'policy', eventId: 7 };
const unknown: PendingApproval = { ...policy, reason: 'outcome_unknown', detail: 'did not answer within 300 ms' };

describe('what a run that waits without a terminal says', () => {
  it('names the exact commands that continue it, with the flags that reach its store', () => {
    const text = waitingMessage({ pending: policy, runId: 'run_a', resume: " --store 'sqlite:/a b.db'", fromRun: true });
    assert.match(text, /placeOrder \(write\) needs approval and there is no terminal to ask on/);
    assert.match(text, /^ {4}toolgate runs approve run_a --store 'sqlite:\/a b\.db'$/m);
    assert.match(text, /^ {4}toolgate runs reject run_a --reason "…" --store 'sqlite:\/a b\.db'$/m);
    assert.match(text, /--yes/);
    assert.doesNotMatch(waitingMessage({ pending: policy, runId: 'run_a', resume: '' }), /--yes|--store/);
  });

  it('an unknown outcome: mark-done, approve (sends it again) or reject', () => {
    const text = waitingMessage({ pending: unknown, runId: 'run_a', resume: '' });
    assert.match(text, /placeOrder was sent but its outcome is unknown \(did not answer within 300 ms\); it may have happened/);
    assert.match(text, /toolgate runs mark-done run_a --result "what you saw" +# it happened/);
    assert.match(text, /toolgate runs approve run_a +# it did not happen: send it again/);
    assert.match(text, /toolgate runs reject run_a --reason "…"/);
  });

  it('a run kept nowhere cannot be continued, and says so instead of suggesting commands', () => {
    for (const pending of [policy, unknown]) {
      const text = waitingMessage({ pending, runId: 'run_a', resume: undefined });
      assert.match(text, /not recorded \(--store memory:\)/);
      assert.doesNotMatch(text, /toolgate runs/);
    }
  });
});
