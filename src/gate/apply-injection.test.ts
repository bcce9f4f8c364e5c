import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
      inject: { userId: '{{user.id}}', region: '{{context.region}}', label: 'for {{context.empty}}', other: '{{context.nothing}}', bad: '{{session.id}}' },
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
    const result = applyInjection({ arguments: {}, inject: { x: '{{user.constructor}}', y: '{{context.toString}}' }, context });
    assert.deepEqual(result.missing, ['user.constructor', 'context.toString']);
  });
});
