import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Policy } from './policy.ts';
import { EMPTY_POLICY } from './policy.ts';
import { resolveToolPolicy } from './resolve-tool-policy.ts';
import { ECHO, GET_ORDER_BOOK, PLACE_ORDER, WRITE_FILE } from '../../test/support/test-tools.ts';

describe('resolveToolPolicy', () => {
  it('defaults: writes need approval, reads never ask', () => {
    assert.deepEqual(resolveToolPolicy(EMPTY_POLICY, PLACE_ORDER, 'placeOrder'), {
      effect: 'write',
      effectSource: 'annotation',
      approval: 'required',
      inject: {},
      returnDirect: false,
      untrusted: false,
      untrustedSource: 'default',
      unknownOutcome: 'ask',
    });
    assert.deepEqual(resolveToolPolicy(EMPTY_POLICY, GET_ORDER_BOOK, 'getOrderBook'), {
      effect: 'read',
      effectSource: 'annotation',
      approval: 'never',
      inject: {},
      returnDirect: false,
      untrusted: false,
      untrustedSource: 'default',
      unknownOutcome: 'ask',
    });
    assert.equal(resolveToolPolicy(EMPTY_POLICY, ECHO, 'echo').effectSource, 'default');
  });

  it('merges matching rules from least to most specific and reports them', () => {
    const policy: Policy = {
      tools: {
        '*': { timeoutMs: 30_000 },
        'power-exchange/*': { approval: 'auto', inject: { userId: '{{user.id}}', desk: 'day-ahead' } },
        placeOrder: { timeoutMs: 5_000 },
        'power-exchange/placeOrder': { approval: 'required', inject: { desk: 'intraday' } },
      },
      tenants: {},
    };
    assert.deepEqual(resolveToolPolicy(policy, PLACE_ORDER, 'placeOrder'), {
      effect: 'write',
      effectSource: 'annotation',
      approval: 'required',
      inject: { userId: '{{user.id}}', desk: 'intraday' },
      timeoutMs: 5_000,
      returnDirect: false,
      untrusted: false,
      untrustedSource: 'default',
      unknownOutcome: 'ask',
      policyRule: 'power-exchange/placeOrder, placeOrder, power-exchange/*, *',
    });
    const book = resolveToolPolicy(policy, GET_ORDER_BOOK, 'getOrderBook');
    assert.equal(book.approval, 'auto');
    assert.equal(book.timeoutMs, 30_000);
    assert.equal(book.policyRule, 'power-exchange/*, *');
    assert.deepEqual(resolveToolPolicy(policy, WRITE_FILE, 'filesystem_write_file').inject, {});
  });

  it('lets a config effect override the annotation and changes the default approval with it', () => {
    const policy: Policy = {
      tools: { echo: { effect: 'read' }, 'power-exchange/getOrderBook': { effect: 'write', returnDirect: true } },
      tenants: {},
    };
    const echo = resolveToolPolicy(policy, ECHO, 'echo');
    assert.equal(echo.effect, 'read');
    assert.equal(echo.effectSource, 'config');
    assert.equal(echo.approval, 'never');
    const book = resolveToolPolicy(policy, GET_ORDER_BOOK, 'getOrderBook');
    assert.equal(book.effect, 'write');
    assert.equal(book.approval, 'required');
    assert.equal(book.returnDirect, true);
  });

  it('treats tools as untrusted by an explicit openWorldHint or by config, config winning', () => {
    const fetcher = {
      ...ECHO,
      name: 'fetch',
      annotations: { readOnlyHint: true, openWorldHint: true },
      origin: { kind: 'mcp' as const, server: 'web', tool: 'fetch' },
    };
    assert.equal(resolveToolPolicy(EMPTY_POLICY, fetcher, 'fetch').untrusted, true);
    assert.equal(resolveToolPolicy(EMPTY_POLICY, fetcher, 'fetch').untrustedSource, 'annotation');
    assert.equal(
      resolveToolPolicy(EMPTY_POLICY, ECHO, 'echo').untrusted,
      false,
      'no annotation: trusted (the MCP default of true would taint everything)',
    );
    const policy: Policy = {
      tools: { 'web/*': { untrusted: false }, echo: { untrusted: true, unknownOutcome: 'tell_model' } },
      tenants: {},
    };
    assert.equal(resolveToolPolicy(policy, fetcher, 'fetch').untrusted, false);
    assert.equal(resolveToolPolicy(policy, fetcher, 'fetch').untrustedSource, 'config');
    assert.equal(resolveToolPolicy(policy, ECHO, 'echo').untrusted, true);
    assert.equal(resolveToolPolicy(policy, ECHO, 'echo').unknownOutcome, 'tell_model');
  });

  it('matches bare names against the exposed name too', () => {
    const policy: Policy = { tools: { filesystem_write_file: { approval: 'never' } }, tenants: {} };
    assert.equal(resolveToolPolicy(policy, WRITE_FILE, 'filesystem_write_file').approval, 'never');
    assert.equal(resolveToolPolicy(policy, WRITE_FILE, 'fs_write').approval, 'required');
  });

  it('does not depend on the order of the policy file', () => {
    const a: Policy = {
      tools: { 'power-exchange/*': { approval: 'auto' }, 'power-exchange/placeOrder': { approval: 'never' } },
      tenants: {},
    };
    const b: Policy = {
      tools: { 'power-exchange/placeOrder': { approval: 'never' }, 'power-exchange/*': { approval: 'auto' } },
      tenants: {},
    };
    assert.deepEqual(resolveToolPolicy(a, PLACE_ORDER, 'placeOrder'), resolveToolPolicy(b, PLACE_ORDER, 'placeOrder'));
    assert.equal(resolveToolPolicy(a, PLACE_ORDER, 'placeOrder').approval, 'never');
  });

  it("collects every matching pattern's conditions, the most specific pattern first, each list in order", () => {
    const wide = { when: 'true', approval: 'never' } as const;
    const first = { when: 'args.qty > 1', approval: 'required' } as const;
    const second = { when: 'args.qty > 2', deny: 'no' } as const;
    const policy: Policy = {
      tools: {
        '*': { conditions: [wide] },
        'power-exchange/placeOrder': { conditions: [first, second] },
        'filesystem/*': { conditions: [{ when: 'true', deny: 'not this tool' }] },
      },
      tenants: {},
    };
    const resolved = resolveToolPolicy(policy, PLACE_ORDER, 'placeOrder');
    assert.deepEqual(resolved.conditions, [
      { pattern: 'power-exchange/placeOrder', index: 0, rule: first },
      { pattern: 'power-exchange/placeOrder', index: 1, rule: second },
      { pattern: '*', index: 0, rule: wide },
    ]);
    assert.equal(resolved.conditions?.[0]?.rule, first, "the policy's own rule objects (compiled once per object)");
    assert.equal(resolveToolPolicy({ tools: {}, tenants: {} }, PLACE_ORDER, 'placeOrder').conditions, undefined);
  });
});
