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
    assert.deepEqual(isToolAllowed(policy, {}, PLACE_ORDER), { allowed: true });
  });

  it('applies the "*" rule to callers without a tenant too', () => {
    const star: Policy = { tools: {}, tenants: { '*': { deny: ['placeOrder'] }, acme: {} } };
    const anonymous = isToolAllowed(star, {}, PLACE_ORDER);
    assert.equal(anonymous.allowed, false);
    assert.match(
      anonymous.reason ?? '',
      /denied for callers without their own tenant rule \("\*"\) by the pattern "placeOrder"/,
    );
    assert.equal(isToolAllowed(star, {}, GET_ORDER_BOOK).allowed, true);
    assert.equal(
      isToolAllowed(star, { tenantId: 'acme' }, PLACE_ORDER).allowed,
      true,
      'a tenant with its own rule is not governed by "*"',
    );
  });

  it('lets deny beat allow, and names the rule', () => {
    const result = isToolAllowed(policy, { tenantId: 'acme' }, PLACE_ORDER);
    assert.equal(result.allowed, false);
    assert.equal(result.rule, 'placeOrder');
    assert.match(
      result.reason ?? '',
      /power-exchange\/placeOrder is denied for tenant "acme" by the pattern "placeOrder"/,
    );
    assert.deepEqual(isToolAllowed(policy, { tenantId: 'acme' }, GET_ORDER_BOOK), {
      allowed: true,
      rule: 'power-exchange/*',
    });
  });

  it('allows only matches when the tenant has an allow list', () => {
    assert.equal(isToolAllowed(policy, { tenantId: 'readers' }, GET_ORDER_BOOK).allowed, true);
    const denied = isToolAllowed(policy, { tenantId: 'readers' }, WRITE_FILE);
    assert.equal(denied.allowed, false);
    assert.match(denied.reason ?? '', /not in the allow list of tenant "readers"/);
    assert.equal(
      isToolAllowed(policy, { tenantId: 'readers' }, { server: 'filesystem', tool: 'read_text_file', exposedName: 'x' })
        .allowed,
      true,
    );
    assert.equal(
      isToolAllowed(policy, { tenantId: 'locked' }, GET_ORDER_BOOK).allowed,
      false,
      'an empty allow list allows nothing',
    );
  });

  it('allows everything for a tenant with no lists or no entry', () => {
    assert.deepEqual(isToolAllowed(policy, { tenantId: 'open' }, PLACE_ORDER), { allowed: true });
    assert.deepEqual(isToolAllowed(policy, { tenantId: 'stranger' }, PLACE_ORDER), { allowed: true });
    assert.deepEqual(
      isToolAllowed(policy, { tenantId: 'constructor' }, PLACE_ORDER),
      { allowed: true },
      'no prototype lookups',
    );
  });

  it('applies the "*" entry to tenants without their own', () => {
    const strict: Policy = { tools: {}, tenants: { '*': { deny: ['filesystem/*'] }, admin: {} } };
    const stranger = isToolAllowed(strict, { tenantId: 'stranger' }, WRITE_FILE);
    assert.equal(stranger.allowed, false);
    assert.match(stranger.reason ?? '', /callers without their own tenant rule/);
    assert.equal(isToolAllowed(strict, { tenantId: 'admin' }, WRITE_FILE).allowed, true);
    assert.equal(
      isToolAllowed(strict, {}, WRITE_FILE).allowed,
      false,
      'a caller without a tenant is governed by "*" too',
    );
  });

  describe('roles', () => {
    const desk: Policy = {
      tools: {},
      tenants: {
        acme: {
          allow: ['getOrderBook'],
          deny: ['filesystem/*'],
          roles: {
            trader: { allow: ['power-exchange/placeOrder'] },
            intern: { deny: ['power-exchange/place*'] },
            admin: { allow: ['filesystem/*'] },
          },
        },
        '*': { allow: [], roles: { reader: { allow: ['getOrderBook'] } } },
      },
    };
    const acme = (roles?: string[]) => ({ tenantId: 'acme', roles });

    it("adds a held role's allow to the tenant's allow list", () => {
      assert.deepEqual(isToolAllowed(desk, acme(['trader']), PLACE_ORDER), {
        allowed: true,
        rule: 'power-exchange/placeOrder',
        role: 'trader',
      });
      const viewer = isToolAllowed(desk, acme(['viewer']), PLACE_ORDER);
      assert.equal(viewer.allowed, false);
      assert.match(
        viewer.reason ?? '',
        /placeOrder is not in the allow list of tenant "acme" \(a caller with role trader may call it\)/,
      );
      assert.equal(isToolAllowed(desk, acme(), PLACE_ORDER).allowed, false, 'no roles, no role rules');
    });

    it("refuses by a held role's deny, naming the role, even over another role's allow", () => {
      const result = isToolAllowed(desk, acme(['trader', 'intern']), PLACE_ORDER);
      assert.equal(result.allowed, false);
      assert.equal(result.role, 'intern');
      assert.match(
        result.reason ?? '',
        /placeOrder is denied for role "intern" of tenant "acme" by the pattern "power-exchange\/place\*"/,
      );
      assert.equal(isToolAllowed(desk, acme(['intern']), GET_ORDER_BOOK).allowed, true);
    });

    it("never lets a role's allow beat the tenant's deny", () => {
      const result = isToolAllowed(desk, acme(['admin']), WRITE_FILE);
      assert.equal(result.allowed, false);
      assert.match(result.reason ?? '', /denied for tenant "acme" by the pattern "filesystem\/\*"/);
    });

    it('applies the role rules of "*" to callers without their own tenant entry', () => {
      assert.equal(isToolAllowed(desk, { roles: ['reader'] }, GET_ORDER_BOOK).allowed, true);
      assert.equal(isToolAllowed(desk, { tenantId: 'beta', roles: ['reader'] }, GET_ORDER_BOOK).allowed, true);
      assert.equal(isToolAllowed(desk, { tenantId: 'beta' }, GET_ORDER_BOOK).allowed, false);
      assert.equal(
        isToolAllowed(desk, acme(['reader', 'constructor']), PLACE_ORDER).allowed,
        false,
        'a tenant with its own entry does not get the role rules of "*", and role names never reach the prototype',
      );
    });
  });
});
