import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide, type DecideInput } from './decide.ts';
import type { ResolvedToolPolicy } from './policy.ts';
import { GET_ORDER_BOOK, PLACE_ORDER } from '../../test/support/test-tools.ts';

const BASE = {
  inject: {},
  returnDirect: false,
  untrusted: false,
  untrustedSource: 'default',
  unknownOutcome: 'ask',
} as const;
const WRITE: ResolvedToolPolicy = { ...BASE, effect: 'write', effectSource: 'annotation', approval: 'required' };
const READ: ResolvedToolPolicy = { ...BASE, effect: 'read', effectSource: 'annotation', approval: 'never' };

function input(overrides: Partial<DecideInput>): DecideInput {
  return {
    tool: PLACE_ORDER,
    exposedName: 'placeOrder',
    arguments: {},
    policy: WRITE,
    allowed: { allowed: true },
    dryRun: false,
    ...overrides,
  };
}

describe('decide', () => {
  it('denies first, with the reason', () => {
    assert.deepEqual(decide(input({ allowed: { allowed: false, reason: 'not for you' }, dryRun: true })), {
      kind: 'deny',
      reason: 'not for you',
    });
    assert.deepEqual(decide(input({ allowed: { allowed: false } })), {
      kind: 'deny',
      reason: 'the tool placeOrder is not allowed here',
    });
  });

  it('turns writes into dry runs before asking for approval', () => {
    assert.deepEqual(decide(input({ dryRun: true })), { kind: 'dry_run' });
    assert.deepEqual(decide(input({ dryRun: true, approvalGranted: true })), { kind: 'dry_run' });
  });

  it('executes reads in a dry run', () => {
    assert.deepEqual(decide(input({ tool: GET_ORDER_BOOK, policy: READ, dryRun: true })), { kind: 'allow' });
  });

  it('asks for approval when required and not granted', () => {
    assert.deepEqual(decide(input({})), { kind: 'approval_required', reason: 'policy' });
    assert.deepEqual(decide(input({ approvalGranted: false })), { kind: 'approval_required', reason: 'policy' });
    assert.deepEqual(decide(input({ approvalGranted: true })), { kind: 'allow' });
    assert.deepEqual(decide(input({ policy: { ...READ, approval: 'required' }, dryRun: true })), {
      kind: 'approval_required',
      reason: 'policy',
    });
  });

  it('runs without asking for approval "never" and "auto"', () => {
    assert.deepEqual(decide(input({ policy: { ...WRITE, approval: 'never' } })), { kind: 'allow' });
    assert.deepEqual(decide(input({ policy: { ...WRITE, approval: 'auto' } })), { kind: 'allow' });
  });

  it('asks for every write after untrusted output, whatever its rule says', () => {
    for (const approval of ['never', 'auto'] as const) {
      assert.deepEqual(decide(input({ policy: { ...WRITE, approval }, tainted: true })), {
        kind: 'approval_required',
        reason: 'untrusted_output',
      });
      assert.deepEqual(decide(input({ policy: { ...WRITE, approval }, tainted: true, approvalGranted: true })), {
        kind: 'allow',
      });
    }
    assert.deepEqual(
      decide(input({ tainted: true })),
      { kind: 'approval_required', reason: 'policy' },
      'a rule that asks anyway keeps its reason',
    );
    assert.deepEqual(
      decide(input({ tool: GET_ORDER_BOOK, policy: READ, tainted: true })),
      { kind: 'allow' },
      'reads still run',
    );
    assert.deepEqual(decide(input({ policy: { ...WRITE, approval: 'never' }, tainted: true, dryRun: true })), {
      kind: 'dry_run',
    });
    assert.deepEqual(decide(input({ allowed: { allowed: false, reason: 'no' }, tainted: true })), {
      kind: 'deny',
      reason: 'no',
    });
  });
});
