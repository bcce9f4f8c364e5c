import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAgainstSchema } from './schema-check.ts';

const ORDER = {
  type: 'object',
  properties: {
    side: { type: 'string', enum: ['BUY', 'SELL'] },
    qty: { type: 'number', exclusiveMinimum: 0 },
    price: { type: 'number', minimum: 0.01, maximum: 4000 },
    symbol: { type: 'string', minLength: 1, pattern: '^[A-Z]' },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
  },
  required: ['side', 'qty', 'symbol'],
  additionalProperties: false,
};

describe('checkAgainstSchema', () => {
  it('accepts arguments that satisfy the schema', () => {
    assert.deepEqual(checkAgainstSchema({ side: 'BUY', qty: 1.5, price: 90, symbol: 'DE', tags: ['a'] }, ORDER), []);
  });

  it('names every problem with its path', () => {
    const issues = checkAgainstSchema(
      { side: 'HOLD', qty: 0, price: 5000, symbol: 'de', tags: ['a', 1, 'c'], extra: true },
      ORDER,
    );
    assert.deepEqual(
      issues.map((i) => `${i.path} ${i.message}`),
      [
        'side must be one of "BUY", "SELL"',
        'qty must be more than 0',
        'price must be at most 4000',
        'symbol must match ^[A-Z]',
        'tags must have at most 2 items',
        'tags[1] must be string, got integer',
        'extra is not a known argument',
      ],
    );
  });

  it('reports missing required keys and wrong types', () => {
    assert.deepEqual(
      checkAgainstSchema({ qty: '3' }, ORDER).map((i) => `${i.path} ${i.message}`),
      ['side is required', 'symbol is required', 'qty must be number, got string'],
    );
    assert.deepEqual(checkAgainstSchema([], ORDER), [{ path: '(arguments)', message: 'must be object, got array' }]);
  });

  it('an integer is a number, a fraction is not an integer, and a schema it cannot read checks nothing', () => {
    assert.deepEqual(checkAgainstSchema(3, { type: 'number' }), []);
    assert.equal(checkAgainstSchema(3.5, { type: 'integer' }).length, 1);
    assert.deepEqual(checkAgainstSchema({ any: 1 }, true), []);
  });
});
