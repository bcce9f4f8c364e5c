import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallFacts, PreparedCall, RejectedCall } from './call-facts.ts';
import { decideCall, type Decision } from './decide-call.ts';
import type { ResolvedToolPolicy } from './policy.ts';
import { GET_ORDER_BOOK, PLACE_ORDER } from '../../test/support/test-tools.ts';

const BASE = {
  inject: {},
  returnDirect: false,
  untrusted: false,
  untrustedSource: 'default',
  unknownOutcome: 'ask',
} as const;
const WRITE: ResolvedToolPolicy = {
  ...BASE,
  effect: 'write',
  effectSource: 'annotation',
  approval: 'never',
  policyRule: 'power-exchange/*',
};
const ASK: ResolvedToolPolicy = { ...WRITE, approval: 'required' };
const READ: ResolvedToolPolicy = { ...BASE, effect: 'read', effectSource: 'annotation', approval: 'never' };

const ARGS = { userId: 'u1', side: 'BUY', price: 10, qty: 1 };
const PREPARED: PreparedCall = {
  ok: true,
  arguments: ARGS,
  normalisations: [{ path: '/side', from: 'buy', to: 'BUY', rule: 'enum_case' }],
  injected: [{ key: 'userId', value: 'u1', overridden: false }],
};

/** A write to placeOrder that would run: visible, prepared, allowed, no person, no hook. */
function facts(overrides: Partial<CallFacts> = {}): CallFacts {
  return {
    name: 'placeOrder',
    lookup: { kind: 'visible', tool: PLACE_ORDER, policy: WRITE },
    prepared: PREPARED,
    allowed: { allowed: true },
    dryRun: false,
    untrusted: [],
    ...overrides,
  };
}

function pick(decision: Decision, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, (decision as unknown as Record<string, unknown>)[k]]));
}

describe('decideCall', () => {
  it('allowed: the prepared arguments, with what was normalised and injected and the policy rule', () => {
    const d = decideCall(facts());
    assert.equal(d.kind, 'allowed');
    assert.ok(d.kind === 'allowed');
    assert.deepEqual(d.arguments, ARGS);
    assert.deepEqual(d.normalisations, PREPARED.normalisations);
    assert.deepEqual(d.injected, PREPARED.injected);
    assert.equal(d.policy.policyRule, 'power-exchange/*');
    assert.equal(d.reason, undefined);
    assert.equal(d.hook, undefined);
  });

  it('dry_run for a write in a dry run; a read still runs', () => {
    assert.deepEqual(pick(decideCall(facts({ dryRun: true })), 'kind', 'arguments'), {
      kind: 'dry_run',
      arguments: ARGS,
    });
    const read = facts({
      name: 'getOrderBook',
      lookup: { kind: 'visible', tool: GET_ORDER_BOOK, policy: READ },
      dryRun: true,
    });
    assert.equal(decideCall(read).kind, 'allowed');
  });

  it('approval_required by policy, with the arguments the person will see and no reason', () => {
    const d = decideCall(facts({ lookup: { kind: 'visible', tool: PLACE_ORDER, policy: ASK } }));
    assert.deepEqual(pick(d, 'kind', 'arguments', 'approvalReason', 'reason'), {
      kind: 'approval_required',
      arguments: ARGS,
      approvalReason: 'policy',
      reason: undefined,
    });
  });

  it(
    'taint: a write after untrusted output needs a person ' +
      '(reason untrusted_output, naming the sources); a read does not',
    () => {
      const untrusted = ['a', 'b', 'a', 'c', 'd', 'e', 'f'].map((name, i) => ({ toolCallId: `t${i}`, name, step: 1 }));
      const d = decideCall(facts({ untrusted }));
      assert.equal(d.kind, 'approval_required');
      assert.equal(d.kind === 'approval_required' && d.approvalReason, 'untrusted_output');
      assert.equal(
        d.kind === 'approval_required' && d.reason,
        'a write after untrusted output (from a, b, c, d, e, …) needs a person',
      );
      const read = facts({
        name: 'getOrderBook',
        lookup: { kind: 'visible', tool: GET_ORDER_BOOK, policy: READ },
        untrusted,
      });
      assert.equal(decideCall(read).kind, 'allowed');
      assert.equal(
        decideCall(facts({ untrusted, approval: { decision: 'approve' } })).kind,
        'allowed',
        'a person approved it',
      );
    },
  );

  it('deny beats approval and dry run: a tool the tenant may not call is denied, asked for or not', () => {
    const denied = { allowed: false, reason: 'not for acme' };
    for (const extra of [
      {},
      { lookup: { kind: 'visible', tool: PLACE_ORDER, policy: ASK } as const },
      { approval: { decision: 'approve' } as const },
      { dryRun: true },
    ]) {
      const d = decideCall(facts({ ...extra, allowed: denied }));
      assert.deepEqual(pick(d, 'kind', 'reason', 'error'), {
        kind: 'denied',
        reason: 'not for acme',
        error: { code: 'denied', message: 'placeOrder is not available to you: not for acme' },
      });
    }
  });

  it(
    'a tool hidden from the tenant is denied with its ' + 'reason; an unknown one is not_found with the known names',
    () => {
      const hidden = decideCall(
        facts({
          lookup: { kind: 'denied', tool: PLACE_ORDER, policy: WRITE, reason: 'denied by "x"' },
          prepared: undefined,
        }),
      );
      assert.deepEqual(pick(hidden, 'kind', 'reason', 'normalisations', 'injected'), {
        kind: 'denied',
        reason: 'denied by "x"',
        normalisations: [],
        injected: [],
      });
      assert.equal(
        hidden.kind === 'denied' && hidden.error.message,
        'placeOrder is not available to you: denied by "x". Do not call it again.',
      );
      const unknown = decideCall(facts({ name: 'ghost', lookup: { kind: 'unknown', known: ['a', 'b'] } }));
      assert.deepEqual(unknown, {
        kind: 'not_found',
        error: { code: 'tool_not_found', message: 'there is no tool named "ghost"; available tools: a, b' },
      });
      const none = decideCall(facts({ name: 'ghost', lookup: { kind: 'unknown', known: [] } }));
      assert.match(none.kind === 'not_found' ? none.error.message : '', /available tools: \(none\)$/);
    },
  );

  it(
    'invalid arguments: the issues, the normalisations and ' +
      'the message for the model; a missing server value is denied',
    () => {
      const issue = { code: 'type', path: '/qty', message: 'must be a number' } as const;
      const rejected: RejectedCall = {
        ok: false,
        decision: 'invalid',
        code: 'invalid_arguments',
        message: 'fix qty',
        issues: [issue],
        normalisations: PREPARED.normalisations,
      };
      const d = decideCall(facts({ prepared: rejected }));
      assert.deepEqual(pick(d, 'kind', 'reason', 'issues', 'normalisations', 'injected', 'error'), {
        kind: 'invalid',
        reason: 'fix qty',
        issues: [issue],
        normalisations: PREPARED.normalisations,
        injected: [],
        error: { code: 'invalid_arguments', message: 'fix qty' },
      });
      const missing = decideCall(
        facts({
          prepared: { ok: false, decision: 'denied', code: 'denied', message: 'needs a user', normalisations: [] },
        }),
      );
      assert.deepEqual(pick(missing, 'kind', 'issues', 'error'), {
        kind: 'denied',
        issues: undefined,
        error: { code: 'denied', message: 'needs a user' },
      });
      assert.equal(decideCall(facts({ prepared: undefined })).kind, 'invalid', 'arguments nobody checked never run');
    },
  );

  it('a person: approve and edit run (the reason says who), reject is denied with code rejected', () => {
    const ask = { lookup: { kind: 'visible', tool: PLACE_ORDER, policy: ASK } } as const;
    assert.deepEqual(
      pick(decideCall(facts({ ...ask, approval: { decision: 'approve', userId: 'alice' } })), 'kind', 'reason'),
      { kind: 'allowed', reason: 'approved by alice' },
    );
    assert.deepEqual(pick(decideCall(facts({ ...ask, approval: { decision: 'edit' } })), 'kind', 'reason'), {
      kind: 'allowed',
      reason: 'approved by a person with edited arguments',
    });
    const rejected = decideCall(facts({ ...ask, approval: { decision: 'reject', reason: 'too big' } }));
    assert.deepEqual(pick(rejected, 'kind', 'reason', 'error'), {
      kind: 'denied',
      reason: 'rejected by a person: too big',
      error: {
        code: 'rejected',
        message: 'A person rejected this call to placeOrder: too big. Do not retry it unchanged.',
      },
    });
    assert.match(
      JSON.stringify(decideCall(facts({ approval: { decision: 'reject' } }))),
      /rejected by a person: no reason given/,
    );
    const hooked = decideCall(facts({ approval: { decision: 'reject' }, hook: { action: 'deny', reason: 'closed' } }));
    assert.equal(
      hooked.kind === 'denied' && hooked.error.code,
      'rejected',
      "a rejected call is not the hook's to decide",
    );
  });

  it("mark_done: the person's observation is the result, nothing runs, whatever else is known", () => {
    const d = decideCall(
      facts({
        lookup: { kind: 'unknown', known: [] },
        prepared: undefined,
        approval: { decision: 'mark_done', userId: 'bob', result: { orderId: 7 } },
      }),
    );
    assert.deepEqual(d, {
      kind: 'marked_done',
      result: {
        ok: true,
        content: [
          {
            type: 'text',
            text:
              'bob confirmed that this call to placeOrder did happen; it ' +
              'was not executed again. What they observed: {"orderId":7}',
          },
        ],
        structuredContent: { orderId: 7 },
      },
    });
    const plain = decideCall(facts({ approval: { decision: 'mark_done' } }));
    assert.deepEqual(plain.kind === 'marked_done' && plain.result.content, [
      { type: 'text', text: 'A person confirmed that this call to placeOrder did happen; it was not executed again.' },
    ]);
  });

  it('hook deny: denied, audited, the model told why', () => {
    const d = decideCall(facts({ hook: { action: 'deny', reason: 'market closed' } }));
    assert.deepEqual(pick(d, 'kind', 'reason', 'hook', 'error'), {
      kind: 'denied',
      reason: 'market closed',
      hook: { name: 'beforeToolCall', action: 'deny', reason: 'market closed' },
      error: { code: 'denied', message: 'placeOrder was refused: market closed' },
    });
    assert.equal(
      decideCall(facts({ dryRun: true, hook: { action: 'deny', reason: 'no' } })).kind,
      'denied',
      'a dry run is checked too',
    );
  });

  it('hook rewrite: valid → runs with the new arguments; invalid → denied with the issues', () => {
    const rewritten = decideCall(
      facts({ hook: { action: 'rewrite', arguments: { ...ARGS, qty: 2 }, reason: 'capped', issues: [] } }),
    );
    assert.deepEqual(pick(rewritten, 'kind', 'arguments', 'hook'), {
      kind: 'allowed',
      arguments: { ...ARGS, qty: 2 },
      hook: { name: 'beforeToolCall', action: 'rewrite', reason: 'capped' },
    });
    const bad = decideCall(
      facts({
        hook: {
          action: 'rewrite',
          arguments: {},
          issues: [{ code: 'required', path: '', message: 'qty is required' }],
        },
      }),
    );
    const reason = 'beforeToolCall rewrote the arguments into invalid ones: / qty is required';
    assert.deepEqual(pick(bad, 'kind', 'reason', 'hook', 'error'), {
      kind: 'denied',
      reason,
      hook: { name: 'beforeToolCall', action: 'rewrite', reason },
      error: { code: 'denied', message: `placeOrder was refused: ${reason}` },
    });
    assert.deepEqual(
      pick(decideCall(facts({ hook: { action: 'allow' } })), 'kind', 'hook'),
      { kind: 'allowed', hook: undefined },
      'an allow leaves no trace',
    );
  });

  it('a hook verdict never turns a call that waits for a person into one that runs', () => {
    const d = decideCall(
      facts({
        lookup: { kind: 'visible', tool: PLACE_ORDER, policy: ASK },
        hook: { action: 'rewrite', arguments: {}, issues: [] },
      }),
    );
    assert.deepEqual(pick(d, 'kind', 'arguments', 'hook'), {
      kind: 'approval_required',
      arguments: ARGS,
      hook: undefined,
    });
  });
});
