import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isToolAllowed } from './is-tool-allowed.ts';
import type { Policy } from './policy.ts';
import { GET_ORDER_BOOK, PLACE_ORDER, WRITE_FILE } from '../../test/support/test-tools.ts';

const policy: Policy = {
  tools: {},
  tenants: {
    acme: { allow: ['power-exchange/*'], deny: ['placeOrder'] },
    readers: { allow: ['getOrderBook', 'filesystem/read_*'] },
    open: {},
    locked: { allow: [] },
  },
};

describe('isToolAllowed', () => {
  it('allows everything without a tenant when there is no "*" rule', () => {
    assert.deepEqual(isToolAllowed(policy, undefined, PLACE_ORDER), { allowed: true });
  });

  it('applies the "*" rule to callers without a tenant too', () => {
    const star: Policy = { tools: {}, tenants: { '*': { deny: ['placeOrder'] }, acme: {} } };
    const anonymous = isToolAllowed(star, undefined, PLACE_ORDER);
    assert.equal(anonymous.allowed, false);
    assert.match(
      anonymous.reason ?? '',
      /denied for callers without their own tenant rule \("\*"\) by the pattern "placeOrder"/,
    );
    assert.equal(isToolAllowed(star, undefined, GET_ORDER_BOOK).allowed, true);
    assert.equal(
      isToolAllowed(star, 'acme', PLACE_ORDER).allowed,
      true,
      'a tenant with its own rule is not governed by "*"',
    );
  });

  it('lets deny beat allow, and names the rule', () => {
    const result = isToolAllowed(policy, 'acme', PLACE_ORDER);
    assert.equal(result.allowed, false);
    assert.equal(result.rule, 'placeOrder');
    assert.match(
      result.reason ?? '',
      /power-exchange\/placeOrder is denied for tenant "acme" by the pattern "placeOrder"/,
    );
    assert.deepEqual(isToolAllowed(policy, 'acme', GET_ORDER_BOOK), { allowed: true, rule: 'power-exchange/*' });
  });

  it('allows only matches when the tenant has an allow list', () => {
    assert.equal(isToolAllowed(policy, 'readers', GET_ORDER_BOOK).allowed, true);
    const denied = isToolAllowed(policy, 'readers', WRITE_FILE);
    assert.equal(denied.allowed, false);
    assert.match(denied.reason ?? '', /not in the allow list of tenant "readers"/);
    assert.equal(
      isToolAllowed(policy, 'readers', { server: 'filesystem', tool: 'read_text_file', exposedName: 'x' }).allowed,
      true,
    );
    assert.equal(isToolAllowed(policy, 'locked', GET_ORDER_BOOK).allowed, false, 'an empty allow list allows nothing');
  });

  it('allows everything for a tenant with no lists or no entry', () => {
    assert.deepEqual(isToolAllowed(policy, 'open', PLACE_ORDER), { allowed: true });
    assert.deepEqual(isToolAllowed(policy, 'stranger', PLACE_ORDER), { allowed: true });
    assert.deepEqual(isToolAllowed(policy, 'constructor', PLACE_ORDER), { allowed: true }, 'no prototype lookups');
  });

  it('applies the "*" entry to tenants without their own', () => {
    const strict: Policy = { tools: {}, tenants: { '*': { deny: ['filesystem/*'] }, admin: {} } };
    const stranger = isToolAllowed(strict, 'stranger', WRITE_FILE);
    assert.equal(stranger.allowed, false);
    assert.match(stranger.reason ?? '', /callers without their own tenant rule/);
    assert.equal(isToolAllowed(strict, 'admin', WRITE_FILE).allowed, true);
    assert.equal(
      isToolAllowed(strict, undefined, WRITE_FILE).allowed,
      false,
      'a caller without a tenant is governed by "*" too',
    );
  });
});
