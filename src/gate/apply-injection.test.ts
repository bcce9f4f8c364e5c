import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject, JsonValue } from '../core/json.ts';
import { applyInjection, type InjectionContext } from './apply-injection.ts';

const context: InjectionContext = {
  user: { id: 'alice', roles: ['trader'] },
  tenant: { id: 'acme' },
  context: { location: { lat: 52.5, city: 'Berlin' }, limit: 50, empty: '', nothing: null },
};

describe('applyInjection', () => {
  it('fills templates and overwrites what the model sent, recording it', () => {
    const result = applyInjection({
      arguments: { userId: 'mallory', side: 'BUY' },
      inject: { userId: '{{user.id}}', tenantId: '{{ tenant.id }}' },
      context,
    });
    assert.deepEqual(result.arguments, { userId: 'alice', side: 'BUY', tenantId: 'acme' });
    assert.deepEqual(result.injected, [
      { key: 'userId', value: 'alice', overridden: true, modelValue: 'mallory' },
      { key: 'tenantId', value: 'acme', overridden: false },
    ]);
    assert.deepEqual(result.missing, []);
  });

  it('keeps JSON types for whole templates, interpolates embedded ones, passes literals through', () => {
    const result = applyInjection({
      arguments: {},
      inject: {
        limit: '{{context.limit}}',
        location: '{{context.location}}',
        account: 'acct-{{user.id}}@{{tenant.id}}',
        near: 'near {{context.location.city}} ({{context.location.lat}})',
        desk: 'day-ahead',
      },
      context,
    });
    assert.deepEqual(result.arguments, {
      limit: 50,
      location: { lat: 52.5, city: 'Berlin' },
      account: 'acct-alice@acme',
      near: 'near Berlin (52.5)',
      desk: 'day-ahead',
    });
  });

  it('reports missing values and never injects an empty string', () => {
    const result = applyInjection({
      arguments: { userId: 'mallory', note: 'x' },
      inject: {
        userId: '{{user.id}}',
        region: '{{context.region}}',
        label: 'for {{context.empty}}',
        other: '{{context.nothing}}',
        bad: '{{session.id}}',
      },
      context: { ...context, user: {} },
    });
    assert.deepEqual(result.arguments, { note: 'x' }, 'the model value for a missing injected key is removed too');
    assert.deepEqual(result.missing, ['user.id', 'context.region', 'context.empty', 'context.nothing', 'session.id']);
    assert.deepEqual(result.injected, []);
  });

  it('does not mutate its input and shares no structure with the context', () => {
    const args = { userId: 'x' };
    const result = applyInjection({ arguments: args, inject: { location: '{{context.location}}' }, context });
    assert.deepEqual(args, { userId: 'x' });
    assert.notEqual(result.arguments['location'], context.context?.['location']);
  });

  it('does not read through prototypes', () => {
    const result = applyInjection({
      arguments: {},
      inject: { x: '{{user.constructor}}', y: '{{context.toString}}' },
      context,
    });
    assert.deepEqual(result.missing, ['user.constructor', 'context.toString']);
  });

  describe('values deeper than any stack', () => {
    const nest = (depth: number): JsonValue => {
      let value: JsonValue = 'leaf';
      for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { a: value };
      return value;
    };

    it('copies deep arguments without overflowing', () => {
      const args = { deep: nest(30_000), userId: 'mallory' };
      const result = applyInjection({ arguments: args, inject: { userId: '{{user.id}}' }, context });
      assert.equal(result.arguments['userId'], 'alice');
      assert.notEqual(result.arguments['deep'], args.deep);
      let node = result.arguments['deep'] as JsonValue;
      for (let i = 0; i < 30_000; i += 1)
        node = Array.isArray(node) ? (node[0] as JsonValue) : ((node as JsonObject)['a'] as JsonValue);
      assert.equal(node, 'leaf');
    });

    it('treats a context value past the shape limits as missing, so the call is denied', () => {
      const hostile: InjectionContext = {
        context: { deep: nest(100_000), huge: Number.POSITIVE_INFINITY, fine: nest(10) },
      };
      const result = applyInjection({
        arguments: {},
        inject: {
          a: '{{context.deep}}',
          b: 'x-{{context.deep}}',
          c: '{{context.huge}}',
          d: 'n={{context.huge}}',
          e: '{{context.fine}}',
        },
        context: hostile,
      });
      assert.deepEqual(result.missing, ['context.deep', 'context.huge']);
      assert.deepEqual(Object.keys(result.arguments), ['e']);
    });
  });
});
