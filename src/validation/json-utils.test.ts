import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonValue } from '../core/json.ts';
import { jsonEqual } from '../core/json-equal.ts';
import { setJsonKey } from '../core/set-json-key.ts';
import { cloneJson } from './json-utils.ts';

describe('json-utils', () => {
  it('clones deeply', () => {
    fc.assert(
      fc.property(fc.jsonValue() as fc.Arbitrary<JsonValue>, (value) => {
        const copy = cloneJson(value);
        assert.ok(jsonEqual(copy, value));
        if (value !== null && typeof value === 'object') assert.notEqual(copy, value);
      }),
    );
  });

  it('clones and compares values nested far deeper than any stack', () => {
    let value: JsonValue = 1;
    for (let i = 0; i < 50_000; i += 1) value = i % 2 === 0 ? [value] : { a: value };
    const copy = cloneJson(value);
    assert.notEqual(copy, value);
    assert.ok(jsonEqual(copy, value));
    let a: JsonValue = copy;
    let b: JsonValue = value;
    for (let i = 0; i < 50_000; i += 1) {
      assert.notEqual(a, b);
      a = Array.isArray(a) ? (a[0] as JsonValue) : ((a as Record<string, JsonValue>)['a'] as JsonValue);
      b = Array.isArray(b) ? (b[0] as JsonValue) : ((b as Record<string, JsonValue>)['a'] as JsonValue);
    }
    assert.equal(a, 1);
  });

  it('keeps "__proto__" as an own key', () => {
    const target = {};
    setJsonKey(target, '__proto__', { polluted: true });
    assert.ok(Object.hasOwn(target, '__proto__'));
    assert.equal(Object.getPrototypeOf(target), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('compares structurally', () => {
    assert.ok(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }));
    assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(!jsonEqual([1], { 0: 1 }));
    assert.ok(!jsonEqual(null, {}));
  });
});
