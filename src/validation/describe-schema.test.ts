import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeSchema } from './describe-schema.ts';
import { DEFINITIONS_SCHEMA, PLACE_ORDER_SCHEMA, PYDANTIC_SCHEMA } from '../../test/support/test-schemas.ts';

const props = (schema: Record<string, unknown>) => schema['properties'] as Record<string, unknown>;

describe('describeSchema', () => {
  it('describes types with their bounds, formats and enums', () => {
    assert.equal(describeSchema(props(PLACE_ORDER_SCHEMA)['price'], PLACE_ORDER_SCHEMA), 'number > 0');
    assert.equal(describeSchema(props(PLACE_ORDER_SCHEMA)['side'], PLACE_ORDER_SCHEMA), 'one of "BUY", "SELL"');
    assert.equal(describeSchema(props(DEFINITIONS_SCHEMA)['email'], DEFINITIONS_SCHEMA), 'string (email)');
    assert.equal(describeSchema({ type: 'integer', minimum: 1, maximum: 10 }, {}), 'integer >= 1 <= 10');
    assert.equal(describeSchema({ type: ['string', 'null'] }, {}), 'string or null');
    assert.equal(describeSchema({ type: 'string', nullable: true }, {}), 'string or null');
    assert.equal(describeSchema({ const: 42 }, {}), 'exactly 42');
  });

  it('follows refs and unions', () => {
    assert.equal(describeSchema(props(PYDANTIC_SCHEMA)['currency'], PYDANTIC_SCHEMA), 'one of "EUR", "USD", "GBP"');
    assert.equal(describeSchema(props(PYDANTIC_SCHEMA)['dueDays'], PYDANTIC_SCHEMA), 'integer or null');
    assert.equal(
      describeSchema(props(DEFINITIONS_SCHEMA)['address'], DEFINITIONS_SCHEMA),
      'object {street: string, zip: string (matching /^[0-9]{5}$/)} or null',
    );
    assert.equal(describeSchema(props(DEFINITIONS_SCHEMA)['tags'], DEFINITIONS_SCHEMA), 'array of string');
  });

  it('falls back to plain words for unconstrained, false and cyclic schemas', () => {
    assert.equal(describeSchema({}, {}), 'any value');
    assert.equal(describeSchema(true, {}), 'any value');
    assert.match(describeSchema(false, {}), /^nothing/);
    const cyclic = { $defs: { A: { $ref: '#/$defs/A' } } };
    assert.equal(describeSchema({ $ref: '#/$defs/A' }, cyclic), 'any value');
  });

  it('cuts long descriptions', () => {
    const big = { enum: Array.from({ length: 100 }, (_, i) => `value-${i}`) };
    const text = describeSchema(big, {});
    assert.ok(text.length <= 160);
    assert.ok(text.endsWith('…'));
  });
});
