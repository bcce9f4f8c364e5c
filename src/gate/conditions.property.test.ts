// The gate's conditions (`when:`) over random policies: a matching deny always denies, whatever else matches; an
// evaluation error never makes a decision looser than the condition holding or not holding would have.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ApprovalInput, CallFacts, HookVerdict } from './call-facts.ts';
import { decideCall, type Decision } from './decide-call.ts';
import type { ApprovalMode, ConditionalRule, Policy, ToolRule } from './policy.ts';
import { matchToolPattern, toolRefOf } from './match-tool-pattern.ts';
import { resolveToolPolicy } from './resolve-tool-policy.ts';
import { GET_ORDER_BOOK, PLACE_ORDER } from '../../test/support/test-tools.ts';

/** How a condition turns out on the call: holds, does not hold, or cannot be evaluated. */
type Outcome = 'holds' | 'fails' | 'error';
const WHEN: Record<Outcome, string> = { holds: 'args.qty > 0', fails: 'args.qty < 0', error: '1 / 0 == 1' };

interface ConditionSpec {
  outcome: Outcome;
  deny: boolean;
  approval: ApprovalMode | undefined;
}
type PolicySpec = Record<string, { approval: ApprovalMode | undefined; conditions: ConditionSpec[] }>;

const approvalMode = fc.constantFrom<ApprovalMode>('required', 'auto', 'never');
const condition: fc.Arbitrary<ConditionSpec> = fc
  .record({
    outcome: fc.constantFrom<Outcome>('holds', 'fails', 'error'),
    deny: fc.boolean(),
    approval: fc.option(approvalMode, { nil: undefined }),
  })
  .map((c) => (c.deny || c.approval !== undefined ? c : { ...c, deny: true }));
// Patterns that name one of the tools or both, and one that names neither.
const pattern = fc.constantFrom(
  'power-exchange/placeOrder',
  'placeOrder',
  'power-exchange/place*',
  'getOrderBook',
  'power-exchange/*',
  '*',
  'filesystem/*',
);
const policySpec: fc.Arbitrary<PolicySpec> = fc.dictionary(
  pattern,
  fc.record({
    approval: fc.option(approvalMode, { nil: undefined }),
    conditions: fc.array(condition, { maxLength: 3 }),
  }),
  { maxKeys: 4 },
);

function rule(spec: ConditionSpec): ConditionalRule {
  return {
    when: WHEN[spec.outcome],
    ...(spec.deny ? { deny: 'refused by a condition' } : {}),
    ...(spec.approval === undefined ? {} : { approval: spec.approval }),
  };
}

function policyOf(spec: PolicySpec): Policy {
  const tools: Record<string, ToolRule> = {};
  for (const [key, entry] of Object.entries(spec))
    tools[key] = {
      ...(entry.approval === undefined ? {} : { approval: entry.approval }),
      conditions: entry.conditions.map(rule),
    };
  return { tools, tenants: {} };
}

const situation = fc.record({
  read: fc.boolean(),
  allowed: fc.boolean(),
  dryRun: fc.boolean(),
  tainted: fc.boolean(),
  approval: fc.option(fc.constantFrom<ApprovalInput['decision']>('approve', 'edit', 'reject'), { nil: undefined }),
  hook: fc.option(fc.constantFrom<HookVerdict>({ action: 'allow' }, { action: 'deny', reason: 'hook' }), {
    nil: undefined,
  }),
});
type Situation = typeof situation extends fc.Arbitrary<infer T> ? T : never;

function decideWith(spec: PolicySpec, s: Situation): Decision {
  const tool = s.read ? GET_ORDER_BOOK : PLACE_ORDER;
  const facts: CallFacts = {
    name: tool.name,
    lookup: { kind: 'visible', tool, policy: resolveToolPolicy(policyOf(spec), tool, tool.name) },
    prepared: { ok: true, arguments: { qty: 5 }, normalisations: [], injected: [] },
    allowed: s.allowed ? { allowed: true } : { allowed: false, reason: 'not this tenant' },
    dryRun: s.dryRun,
    untrusted: s.tainted ? [{ toolCallId: 't', name: 'fetch', step: 1 }] : [],
    ...(s.approval === undefined ? {} : { approval: { decision: s.approval } }),
    ...(s.hook === undefined ? {} : { hook: s.hook }),
  };
  return decideCall(facts);
}

const STRICTNESS: Record<Decision['kind'], number> = {
  allowed: 0,
  dry_run: 0,
  marked_done: 0,
  approval_required: 1,
  denied: 2,
  invalid: 2,
  not_found: 2,
};

describe('gate conditions properties', () => {
  it('a matching deny condition always denies, whatever else matches (a person, a dry run, a hook)', () => {
    fc.assert(
      fc.property(policySpec, situation, (spec, s) => {
        const denies = Object.entries(spec).some(
          ([key, entry]) =>
            matchToolPattern(key, toolRefOf(s.read ? GET_ORDER_BOOK : PLACE_ORDER)) &&
            entry.conditions.some((c) => c.deny && c.outcome !== 'fails'),
        );
        const d = decideWith(spec, s);
        if (denies) assert.equal(d.kind, 'denied', JSON.stringify({ spec, s, d }));
        if (d.kind === 'denied' && d.condition?.effect === 'deny')
          assert.equal(d.error.message, `${d.tool.name} was refused: refused by a condition`);
        if (d.kind !== 'denied') assert.ok(!denies);
      }),
      { numRuns: 1500 },
    );
  });

  it('an evaluation error never loosens: it is at least as strict as the condition holding or failing', () => {
    const target = fc.record({ key: pattern, index: fc.nat({ max: 2 }) });
    fc.assert(
      fc.property(policySpec, situation, target, (spec, given, { key, index }) => {
        // The hook is asked only about a call that would run: its refusal is not the policy's strictness.
        const s = { ...given, hook: undefined };
        const entry = spec[key];
        const chosen = entry?.conditions[index];
        if (entry === undefined || chosen === undefined) return;
        const variant = (outcome: Outcome): PolicySpec => ({
          ...spec,
          [key]: { ...entry, conditions: entry.conditions.map((c, i) => (i === index ? { ...c, outcome } : c)) },
        });
        const onError = decideWith(variant('error'), s);
        for (const other of ['holds', 'fails'] as const) {
          const d = decideWith(variant(other), s);
          assert.ok(
            STRICTNESS[onError.kind] >= STRICTNESS[d.kind],
            `error gave ${onError.kind}, ${other} gave ${d.kind}: ${JSON.stringify({ spec, s, key, index })}`,
          );
        }
        // Without a person's decision, a condition that could not be evaluated never lets a call run.
        if (s.approval === undefined && onError.kind === 'allowed')
          assert.equal(onError.condition?.error, undefined, 'an error decided an allowed call');
      }),
      { numRuns: 1500 },
    );
  });

  it('is deterministic and leaves the policy unchanged', () => {
    fc.assert(
      fc.property(policySpec, situation, (spec, s) => {
        // structuredClone on both sides: fast-check builds some objects without a prototype.
        const before = structuredClone(spec);
        assert.deepEqual(structuredClone(decideWith(spec, s)), structuredClone(decideWith(spec, s)));
        assert.deepEqual(structuredClone(spec), before);
      }),
      { numRuns: 300 },
    );
  });
});
