// decideCall over random facts: total (never throws), deterministic, leaves its
// input alone, and never lets a call run that any earlier check refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonObject } from '../core/json.ts';
import type { ValidationIssue } from '../validation/index.ts';
import type { ApprovalInput, CallFacts, HookVerdict, PrepareResult, ToolLookup } from './call-facts.ts';
import { decideCall } from './decide-call.ts';
import type { ResolvedToolPolicy } from './policy.ts';
import { ECHO, GET_ORDER_BOOK, PLACE_ORDER, WRITE_FILE } from '../../test/support/test-tools.ts';

const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const args = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 4 }) as fc.Arbitrary<JsonObject>;
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });

const policy: fc.Arbitrary<ResolvedToolPolicy> = fc.record(
  {
    effect: fc.constantFrom('read', 'write'),
    effectSource: fc.constantFrom('config', 'annotation', 'default'),
    approval: fc.constantFrom('required', 'auto', 'never'),
    inject: fc.constant({}),
    timeoutMs: fc.nat(),
    returnDirect: fc.boolean(),
    untrusted: fc.boolean(),
    untrustedSource: fc.constantFrom('config', 'annotation', 'default'),
    unknownOutcome: fc.constantFrom('ask', 'tell_model'),
    policyRule: fc.string(),
  },
  {
    requiredKeys: [
      'effect',
      'effectSource',
      'approval',
      'inject',
      'returnDirect',
      'untrusted',
      'untrustedSource',
      'unknownOutcome',
    ],
  },
);
const tool = fc.constantFrom(PLACE_ORDER, GET_ORDER_BOOK, WRITE_FILE, ECHO);
const lookup: fc.Arbitrary<ToolLookup> = fc.oneof(
  fc.record({ kind: fc.constant('visible' as const), tool, policy }),
  fc.record({ kind: fc.constant('denied' as const), tool, policy, reason: fc.string() }),
  fc.record({ kind: fc.constant('unknown' as const), known: fc.array(fc.string(), { maxLength: 4 }) }),
);
const issue: fc.Arbitrary<ValidationIssue> = fc.record({
  code: fc.constantFrom('type', 'required', 'enum'),
  path: fc.string(),
  message: fc.string(),
});
const normalisation = fc.record({
  path: fc.string(),
  from: json,
  to: json,
  rule: fc.constantFrom('enum_case', 'number_from_string'),
}) as fc.Arbitrary<PrepareResult['normalisations'][number]>;
const prepared: fc.Arbitrary<PrepareResult> = fc.oneof(
  fc.record({
    ok: fc.constant(true as const),
    arguments: args,
    normalisations: fc.array(normalisation, { maxLength: 2 }),
    injected: fc.array(fc.record({ key: fc.string(), value: json, overridden: fc.boolean() }), { maxLength: 2 }),
  }) as fc.Arbitrary<PrepareResult>,
  fc.record(
    {
      ok: fc.constant(false as const),
      decision: fc.constantFrom('invalid', 'denied'),
      code: fc.constantFrom('invalid_arguments', 'denied'),
      message: fc.string(),
      issues: fc.array(issue, { maxLength: 3 }),
      normalisations: fc.array(normalisation, { maxLength: 2 }),
    },
    { requiredKeys: ['ok', 'decision', 'code', 'message', 'normalisations'] },
  ) as fc.Arbitrary<PrepareResult>,
);
const approval: fc.Arbitrary<ApprovalInput> = fc.record(
  {
    decision: fc.constantFrom('approve', 'reject', 'edit', 'mark_done'),
    reason: fc.string(),
    result: json,
    userId: fc.string(),
  },
  { requiredKeys: ['decision'] },
) as fc.Arbitrary<ApprovalInput>;
const hook: fc.Arbitrary<HookVerdict> = fc.oneof(
  fc.constant({ action: 'allow' as const }),
  fc.record({ action: fc.constant('deny' as const), reason: fc.string() }),
  fc.record({
    action: fc.constant('rewrite' as const),
    arguments: args,
    reason: maybe(fc.string()),
    issues: fc.array(issue, { maxLength: 2 }),
  }),
);
const facts: fc.Arbitrary<CallFacts> = fc.record({
  name: fc.string({ maxLength: 12 }),
  lookup,
  prepared: maybe(prepared),
  approval: maybe(approval),
  hook: maybe(hook),
  allowed: fc.record({ allowed: fc.boolean(), reason: maybe(fc.string()) }),
  dryRun: fc.boolean(),
  untrusted: fc.array(fc.record({ toolCallId: fc.string(), name: fc.string(), step: fc.nat() }), { maxLength: 7 }),
}) as fc.Arbitrary<CallFacts>;

describe('decideCall properties', () => {
  it('is total and deterministic, and leaves its input unchanged', () => {
    fc.assert(
      fc.property(facts, (input) => {
        // structuredClone on both sides: fast-check builds some objects without a prototype.
        const before = structuredClone(input);
        const first = decideCall(input);
        assert.deepEqual(structuredClone(input), before, 'the facts are not mutated');
        assert.deepEqual(structuredClone(decideCall(before)), structuredClone(first), 'same facts, same decision');
        assert.ok(
          ['allowed', 'dry_run', 'approval_required', 'denied', 'invalid', 'not_found', 'marked_done'].includes(
            first.kind,
          ),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('a call runs (or dry-runs) only when every check passed', () => {
    fc.assert(
      fc.property(facts, (input) => {
        const d = decideCall(input);
        if (d.kind !== 'allowed' && d.kind !== 'dry_run') return;
        assert.equal(input.lookup.kind, 'visible');
        assert.equal(input.prepared?.ok, true);
        assert.equal(input.allowed.allowed, true, 'deny beats everything');
        assert.ok(input.approval?.decision !== 'reject' && input.approval?.decision !== 'mark_done');
        assert.ok(input.hook?.action !== 'deny' && !(input.hook?.action === 'rewrite' && input.hook.issues.length > 0));
        if (d.kind === 'allowed' && d.policy.effect === 'write') {
          assert.equal(input.dryRun, false, 'no write runs in a dry run');
          if (input.approval === undefined)
            assert.ok(
              d.policy.approval !== 'required' && input.untrusted.length === 0,
              'no write skips the person it needs',
            );
        }
        const expected =
          input.hook?.action === 'rewrite'
            ? input.hook.arguments
            : input.prepared?.ok === true
              ? input.prepared.arguments
              : undefined;
        assert.deepEqual(d.arguments, expected, "the arguments are the prepared ones, or the hook's valid rewrite");
      }),
      { numRuns: 2000 },
    );
  });

  it("a person's decision is final: never asked again, and a rejection is never overturned", () => {
    fc.assert(
      fc.property(facts, approval, (input, given) => {
        const d = decideCall({ ...input, approval: given });
        assert.notEqual(d.kind, 'approval_required');
        if (given.decision === 'reject') assert.ok(d.kind !== 'allowed' && d.kind !== 'dry_run');
        if (given.decision === 'mark_done') assert.equal(d.kind, 'marked_done');
      }),
      { numRuns: 1000 },
    );
  });
});
