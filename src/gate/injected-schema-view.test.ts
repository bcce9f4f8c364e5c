import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PLACE_ORDER_SCHEMA } from '../../test/support/test-schemas.ts';
import { injectedSchemaView } from './injected-schema-view.ts';

describe('injectedSchemaView', () => {
  it('removes injected keys from properties and required, keeping everything else', () => {
    const view = injectedSchemaView(PLACE_ORDER_SCHEMA, ['userId']);
    assert.deepEqual(Object.keys(view['properties'] as object), ['side', 'price', 'qty', 'symbol']);
    assert.deepEqual(view['required'], ['side', 'price', 'qty']);
    assert.equal(view['additionalProperties'], false);
    assert.equal(view['$schema'], PLACE_ORDER_SCHEMA['$schema']);
  });

  it('does not mutate the original schema', () => {
    const before = structuredClone(PLACE_ORDER_SCHEMA);
    injectedSchemaView(PLACE_ORDER_SCHEMA, ['userId', 'side']);
    assert.deepEqual(PLACE_ORDER_SCHEMA, before);
  });

  it('also cleans top-level allOf/anyOf members', () => {
    const schema = {
      allOf: [
        {
          type: 'object',
          properties: { tenantId: { type: 'string' }, a: { type: 'number' } },
          required: ['tenantId', 'a'],
        },
        { type: 'object', properties: { b: { type: 'string' } } },
      ],
    };
    const view = injectedSchemaView(schema, ['tenantId']);
    assert.deepEqual(view['allOf'], [
      { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
      { type: 'object', properties: { b: { type: 'string' } } },
    ]);
  });

  it('returns an equal copy when nothing is injected', () => {
    const view = injectedSchemaView(PLACE_ORDER_SCHEMA, []);
    assert.deepEqual(view, PLACE_ORDER_SCHEMA);
    assert.notEqual(view, PLACE_ORDER_SCHEMA);
  });
});
