import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mayDecide } from './may-decide.ts';
import type { Policy } from './policy.ts';
import { GET_ORDER_BOOK, PLACE_ORDER, WRITE_FILE } from '../../test/support/test-tools.ts';

const policy: Policy = {
  tools: {},
  tenants: {
    acme: { approvers: { 'power-exchange/*': ['desk'], 'power-exchange/placeOrder': ['trader', 'risk'] } },
    '*': { approvers: { '**': ['admin'] } },
    open: {},
  },
};

describe('mayDecide', () => {
  it('lets only the roles of the most specific matching pattern decide, naming them and the held ones', () => {
    assert.equal(mayDecide(policy, { tenantId: 'acme', roles: ['trader'], tool: PLACE_ORDER }).allowed, true);
    assert.equal(mayDecide(policy, { tenantId: 'acme', roles: ['viewer', 'risk'], tool: PLACE_ORDER }).allowed, true);
    const desk = mayDecide(policy, { tenantId: 'acme', roles: ['desk'], tool: PLACE_ORDER });
    assert.equal(desk.allowed, false, 'a less specific pattern does not add its roles');
    assert.equal(desk.rule, 'power-exchange/placeOrder');
    assert.equal(
      desk.reason,
      'only roles trader or risk may decide approvals of power-exchange/placeOrder (tenants.acme.approvers); ' +
        'you hold: desk',
    );
    assert.equal(mayDecide(policy, { tenantId: 'acme', roles: ['desk'], tool: GET_ORDER_BOOK }).allowed, true);
    const none = mayDecide(policy, { tenantId: 'acme', tool: GET_ORDER_BOOK });
    assert.equal(none.allowed, false);
    assert.match(none.reason ?? '', /only role desk may decide .*; you hold: no role$/);
  });

  it('lets anyone decide a tool no pattern matches, and tenants without approvers', () => {
    assert.deepEqual(mayDecide(policy, { tenantId: 'acme', tool: WRITE_FILE }), { allowed: true });
    assert.deepEqual(mayDecide(policy, { tenantId: 'open', tool: PLACE_ORDER }), { allowed: true });
    assert.deepEqual(mayDecide({ tools: {}, tenants: {} }, { tool: PLACE_ORDER }), { allowed: true });
  });

  it('applies the "*" entry to runs of tenants without their own, and without a tenant', () => {
    const stranger = mayDecide(policy, { tenantId: 'beta', roles: ['viewer'], tool: WRITE_FILE });
    assert.equal(stranger.allowed, false);
    assert.match(stranger.reason ?? '', /\(tenants\.\*\.approvers\)/);
    assert.equal(mayDecide(policy, { roles: ['admin'], tool: WRITE_FILE }).allowed, true);
    assert.equal(mayDecide(policy, { tenantId: 'constructor', tool: WRITE_FILE }).allowed, false, 'no prototype');
  });

  it('lets the escalation approvers decide too once the call was escalated', () => {
    const request = { tenantId: 'acme', roles: ['head-of-desk'], tool: PLACE_ORDER };
    assert.equal(mayDecide(policy, request).allowed, false);
    const escalated = mayDecide(policy, { ...request, escalationApprovers: ['head-of-desk'] });
    assert.deepEqual(escalated, {
      allowed: true,
      rule: 'power-exchange/placeOrder',
      roles: ['trader', 'risk', 'head-of-desk'],
    });
    const viewer = mayDecide(policy, { ...request, roles: ['viewer'], escalationApprovers: ['head-of-desk'] });
    assert.match(
      viewer.reason ?? '',
      /only roles trader or risk or head-of-desk .*and approvals\.escalation\.approvers/,
    );
  });
});
