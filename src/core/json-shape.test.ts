import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkJsonShape } from './json-shape.ts';

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { a: v } : [v];
  return v;
}

describe('checkJsonShape', () => {
  it('accepts ordinary values', () => {
    assert.equal(checkJsonShape({ a: [1, 2, { b: 'x' }], c: null, d: true }), undefined);
    assert.equal(checkJsonShape(nested(64)), undefined);
  });

  it('refuses deep nesting without recursion (100,000 levels)', () => {
    const problem = checkJsonShape(nested(100_000));
    assert.equal(problem?.code, 'too_deep');
    assert.match(problem?.message ?? '', /deeper than 64/);
    assert.equal(checkJsonShape(nested(65))?.code, 'too_deep');
  });

  it('refuses non-finite numbers and names where they are', () => {
    assert.deepEqual(checkJsonShape(JSON.parse('{"order": {"qty": 1e400}}')), {
      code: 'not_finite',
      path: '/order/qty',
      message: 'a number too large (Infinity) is not a finite number (JSON numbers must fit a 64-bit float)',
    });
    assert.equal(checkJsonShape([Number.NaN])?.path, '/0');
    assert.equal(checkJsonShape({ 'a/b~': -Infinity })?.path, '/a~1b~0');
  });

  it('refuses too many values', () => {
    assert.equal(
      checkJsonShape(
        Array.from({ length: 20 }, () => 0),
        { maxNodes: 10 },
      )?.code,
      'too_large',
    );
  });
});
