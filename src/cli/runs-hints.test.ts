import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PendingApproval } from '../core/index.ts';
import { waitingMessage } from './runs-hints.ts';

const policy: PendingApproval = {
  toolCallId: 'call_1',
  name: 'placeOrder',
  arguments: {},
  effect: 'write',
  reason: 'policy',
  eventId: 7,
};
const unknown: PendingApproval = { ...policy, reason: 'outcome_unknown', detail: 'did not answer within 300 ms' };

describe('what a run that waits without a terminal says', () => {
  it('names the exact commands that continue it, with the flags that reach its store', () => {
    const text = waitingMessage({
      pending: policy,
      runId: 'run_a',
      resume: " --store 'sqlite:/a b.db'",
      fromRun: true,
    });
    assert.match(text, /placeOrder \(write\) needs approval and there is no terminal to ask on/);
    assert.match(text, /^ {4}toolgate runs approve run_a --store 'sqlite:\/a b\.db'$/m);
    assert.match(text, /^ {4}toolgate runs reject run_a --reason "…" --store 'sqlite:\/a b\.db'$/m);
    assert.match(text, /--yes/);
    assert.doesNotMatch(waitingMessage({ pending: policy, runId: 'run_a', resume: '' }), /--yes|--store/);
  });

  it('an unknown outcome: mark-done, approve (sends it again) or reject', () => {
    const text = waitingMessage({ pending: unknown, runId: 'run_a', resume: '' });
    assert.match(
      text,
      /placeOrder was sent but its outcome is unknown \(did not answer within 300 ms\); it may have happened/,
    );
    assert.match(text, /toolgate runs mark-done run_a --result "what you saw" +# it happened/);
    assert.match(text, /toolgate runs approve run_a +# it did not happen: send it again/);
    assert.match(text, /toolgate runs reject run_a --reason "…"/);
  });

  it('a plan: the whole plan is decided; approval: never (a tool rule) is not offered', () => {
    const plan: PendingApproval = { ...policy, toolCallId: 'plan_1', name: 'plan', kind: 'plan' };
    const text = waitingMessage({ pending: plan, runId: 'run_a', resume: '', fromRun: true });
    assert.match(
      text,
      /^toolgate: the plan needs approval \(one decision for all its steps\) and there is no terminal to ask on\.$/m,
    );
    assert.match(text, /^ {4}toolgate runs approve run_a$/m);
    assert.match(text, /approve the plan with --yes/);
    assert.doesNotMatch(text, /approval: never|plan \(write\)/);
  });

  it('a write after untrusted output: names the sources and how to trust them; approval: never would not help', () => {
    const tainted: PendingApproval = {
      ...policy,
      reason: 'untrusted_output',
      provenance: [
        { toolCallId: 'r', name: 'fetchNews', step: 1 },
        { toolCallId: 's', name: 'fetchNews', step: 2 },
      ],
    };
    const text = waitingMessage({ pending: tainted, runId: 'run_a', resume: '', fromRun: true });
    assert.match(text, /placeOrder \(write\) needs approval: it follows untrusted output \(fetchNews\)/);
    assert.match(text, /if fetchNews returns only content you trust, mark it trusted/);
    assert.match(text, /"<server>\/fetchNews": \{untrusted: false\}/);
    assert.match(text, /approval: never does not lift this approval/);
    assert.doesNotMatch(text, /set approval: never/);
  });

  it('a run kept nowhere cannot be continued, and says so instead of suggesting commands', () => {
    for (const pending of [policy, unknown]) {
      const text = waitingMessage({ pending, runId: 'run_a', resume: undefined });
      assert.match(text, /not recorded \(--store memory:\)/);
      assert.doesNotMatch(text, /toolgate runs/);
    }
  });
});
