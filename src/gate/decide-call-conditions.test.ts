// decideCall with a tool rule's conditions (`when:`): deny, approval either way, the most specific pattern first,
// evaluation errors failing closed, the caller in expressions, the JSON-Schema form, and what is recorded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../core/json.ts';
import type { CallFacts } from './call-facts.ts';
import { decideCall, type Decision } from './decide-call.ts';
import type { Policy, ToolRule } from './policy.ts';
import { resolveToolPolicy } from './resolve-tool-policy.ts';
import { PLACE_ORDER, WRITE_FILE } from '../../test/support/test-tools.ts';

const ORDER = { userId: 'u1', side: 'BUY', price: 10, qty: 100, symbol: 'DE-BASE-D+1' };
const BIG = { ...ORDER, qty: 2000 };
const LIMIT = 'args.qty * args.price > 10000';

function facts(tools: Record<string, ToolRule>, args: JsonObject, extra: Partial<CallFacts> = {}): CallFacts {
  const policy: Policy = { tools, tenants: {} };
  const tool = extra.name === 'write_file' ? WRITE_FILE : PLACE_ORDER;
  const name = extra.name ?? 'placeOrder';
  return {
    name,
    lookup: { kind: 'visible', tool, policy: resolveToolPolicy(policy, tool, name) },
    prepared: { ok: true, arguments: args, normalisations: [], injected: [] },
    allowed: { allowed: true },
    dryRun: false,
    untrusted: [],
    ...extra,
  };
}

const decide = (tools: Record<string, ToolRule>, args: JsonObject, extra: Partial<CallFacts> = {}): Decision =>
  decideCall(facts(tools, args, extra));

function audited(d: Decision): Record<string, unknown> {
  assert.ok(d.kind !== 'not_found' && d.kind !== 'marked_done');
  return { kind: d.kind, reason: d.reason, condition: d.condition };
}

const LIMITED: Record<string, ToolRule> = {
  'power-exchange/placeOrder': {
    approval: 'never',
    conditions: [{ when: LIMIT, approval: 'required', reason: 'orders above 10,000 need a person' }],
  },
};

describe('decideCall with conditions', () => {
  it('approval: required only when the condition matches; recorded with the condition that decided', () => {
    assert.deepEqual(audited(decide(LIMITED, ORDER)), { kind: 'allowed', reason: undefined, condition: undefined });
    const big = decide(LIMITED, BIG);
    assert.deepEqual(audited(big), {
      kind: 'approval_required',
      reason: 'orders above 10,000 need a person',
      condition: {
        pattern: 'power-exchange/placeOrder',
        index: 0,
        when: LIMIT,
        effect: 'approval',
        reason: 'orders above 10,000 need a person',
      },
    });
    assert.equal(big.kind === 'approval_required' && big.approvalReason, 'policy');
    const approved = decide(LIMITED, BIG, { approval: { decision: 'approve', userId: 'ops' } });
    assert.equal(approved.kind, 'allowed', 'a person approved it');
    assert.equal(approved.kind === 'allowed' && approved.reason, 'approved by ops; orders above 10,000 need a person');
  });

  it('approval: never loosens a rule that asks, only when the condition matches', () => {
    const tools: Record<string, ToolRule> = {
      placeOrder: { approval: 'required', conditions: [{ when: 'args.qty <= 100', approval: 'never' }] },
    };
    const small = decide(tools, ORDER);
    assert.equal(small.kind, 'allowed');
    assert.equal(small.kind === 'allowed' && small.condition?.effect, 'approval');
    assert.equal(
      small.kind === 'allowed' && small.reason,
      'the condition `args.qty <= 100` of "placeOrder" matched: approval never',
    );
    assert.equal(decide(tools, BIG).kind, 'approval_required');
    const tainted = decide(tools, ORDER, { untrusted: [{ toolCallId: 't', name: 'fetch', step: 1 }] });
    assert.equal(tainted.kind, 'approval_required', 'a condition never lifts the untrusted-output rule');
  });

  it('deny refuses the call with its reason, whatever else matches, a dry run and a person included', () => {
    const tools: Record<string, ToolRule> = {
      'power-exchange/*': { conditions: [{ when: 'args.side == "SELL"', deny: 'this desk only buys' }] },
      'power-exchange/placeOrder': { approval: 'never', conditions: [{ when: 'true', approval: 'never' }] },
    };
    const sell = { ...ORDER, side: 'SELL' };
    for (const extra of [{}, { dryRun: true }, { approval: { decision: 'approve' } } as const]) {
      const d = decide(tools, sell, extra);
      assert.deepEqual(audited(d), {
        kind: 'denied',
        reason: 'this desk only buys',
        condition: { pattern: 'power-exchange/*', index: 0, when: 'args.side == "SELL"', effect: 'deny' },
      });
      assert.deepEqual(d.kind === 'denied' && d.error, {
        code: 'denied',
        message: 'placeOrder was refused: this desk only buys',
      });
    }
    assert.equal(decide(tools, ORDER).kind, 'allowed');
    const hooked = decide(tools, sell, { hook: { action: 'rewrite', arguments: ORDER, issues: [] } });
    assert.equal(hooked.kind, 'denied', 'a hook is never asked about a call a condition refused');
    const tenant = decide(tools, sell, { allowed: { allowed: false, reason: 'not for acme' } });
    assert.deepEqual(audited(tenant), { kind: 'denied', reason: 'not for acme', condition: undefined });
  });

  it('the most specific pattern decides the approval first, then list order', () => {
    const tools: Record<string, ToolRule> = {
      '*': { conditions: [{ when: 'args.qty > 10', approval: 'never' }] },
      'power-exchange/*': {
        conditions: [
          { when: 'args.qty > 1000', approval: 'auto' },
          { when: 'args.qty > 10', approval: 'required' },
        ],
      },
      'power-exchange/placeOrder': { conditions: [{ when: 'args.qty > 1000', approval: 'required' }] },
    };
    const big = decide(tools, BIG);
    assert.equal(big.kind, 'approval_required');
    assert.deepEqual(big.kind === 'approval_required' && [big.condition?.pattern, big.condition?.index], [
      'power-exchange/placeOrder',
      0,
    ]);
    const medium = decide(tools, ORDER);
    assert.equal(medium.kind, 'approval_required', 'power-exchange/* comes before *');
    assert.deepEqual(medium.kind === 'approval_required' && [medium.condition?.pattern, medium.condition?.index], [
      'power-exchange/*',
      1,
    ]);
    const small = decide(tools, { ...ORDER, qty: 1 });
    assert.equal(small.kind, 'approval_required', "nothing matched: the write's default asks");
    assert.equal(small.kind === 'approval_required' && small.condition, undefined);
  });

  it('an evaluation error fails closed for deny and approval: required, and never loosens', () => {
    const missing = 'args.account == "x"';
    const denyOnError = decide({ placeOrder: { conditions: [{ when: missing, deny: 'no accounts' }] } }, ORDER);
    assert.equal(denyOnError.kind, 'denied');
    assert.ok(denyOnError.kind === 'denied');
    assert.equal(denyOnError.condition?.error, 'No such key: account, at character 6');
    assert.equal(
      denyOnError.reason,
      'the condition `args.account == "x"` of "placeOrder" could not be evaluated ' +
        '(No such key: account, at character 6), so it refuses the call: no accounts',
    );
    assert.equal(denyOnError.error.message, 'placeOrder was refused: no accounts', 'the model is told the reason only');

    const askOnError = decide(
      { placeOrder: { approval: 'never', conditions: [{ when: missing, approval: 'required' }] } },
      ORDER,
    );
    assert.equal(askOnError.kind, 'approval_required');
    assert.match(askOnError.kind === 'approval_required' ? (askOnError.reason ?? '') : '', /so a person decides$/);
    assert.deepEqual(askOnError.kind === 'approval_required' && askOnError.condition, {
      pattern: 'placeOrder',
      index: 0,
      when: missing,
      effect: 'approval',
      error: 'No such key: account, at character 6',
    });

    const neverOnError = decide(
      { placeOrder: { approval: 'required', conditions: [{ when: 'args.qty > "x"', approval: 'never' }] } },
      ORDER,
    );
    assert.equal(neverOnError.kind, 'approval_required', 'the rule still asks');
    assert.ok(neverOnError.kind === 'approval_required');
    assert.equal(neverOnError.condition, undefined, 'the condition did not decide');
    assert.match(neverOnError.reason ?? '', /could not be evaluated \(no such overload.*\); approval stays as it was$/);
    const nonBoolean = decide({ placeOrder: { conditions: [{ when: 'args.qty', deny: 'x' }] } }, ORDER);
    assert.equal(nonBoolean.kind, 'denied', 'a result that is not a boolean is an error too');
  });

  it('tenant, user and context are in the expression; absent ones are null and {}', () => {
    const tools: Record<string, ToolRule> = {
      placeOrder: {
        approval: 'never',
        conditions: [
          { when: 'tenant == "globex"', deny: 'globex does not trade' },
          { when: 'user != null && user.id == "intern"', approval: 'required' },
          { when: 'has(context.desk) && context.desk == "gas"', deny: 'the gas desk does not trade power' },
        ],
      },
    };
    const as = (caller: CallFacts['caller']) => decide(tools, ORDER, { caller }).kind;
    assert.equal(as(undefined), 'allowed');
    assert.equal(as({ tenant: { id: 'globex' } }), 'denied');
    assert.equal(as({ tenant: { id: 'acme' }, user: { id: 'intern' } }), 'approval_required');
    assert.equal(as({ user: { id: 'alice' }, context: { desk: 'power' } }), 'allowed');
    assert.equal(as({ context: { desk: 'gas' } }), 'denied');
  });

  it('the JSON-Schema form: deny a path outside a prefix, recorded as canonical JSON', () => {
    const when = { args: { properties: { path: { not: { pattern: '^/srv/shared/' } } }, required: ['path'] } };
    const tools: Record<string, ToolRule> = {
      'filesystem/*': { approval: 'never', conditions: [{ when, deny: 'only /srv/shared/ may be touched' }] },
    };
    const write = (path: string) => decide(tools, { path, content: 'x' }, { name: 'write_file' });
    assert.equal(write('/srv/shared/a.txt').kind, 'allowed');
    const outside = write('/etc/passwd');
    assert.deepEqual(audited(outside), {
      kind: 'denied',
      reason: 'only /srv/shared/ may be touched',
      condition: {
        pattern: 'filesystem/*',
        index: 0,
        when: '{"args":{"properties":{"path":{"not":{"pattern":"^/srv/shared/"}}},"required":["path"]}}',
        effect: 'deny',
      },
    });
  });

  it('a call that did not pass validation is not evaluated', () => {
    const d = decide({ placeOrder: { conditions: [{ when: 'true', deny: 'never' }] } }, ORDER, {
      prepared: { ok: false, decision: 'invalid', code: 'invalid_arguments', message: 'fix qty', normalisations: [] },
    });
    assert.deepEqual(audited(d), { kind: 'invalid', reason: 'fix qty', condition: undefined });
  });
});
