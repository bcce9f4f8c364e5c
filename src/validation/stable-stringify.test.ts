import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stableStringify } from './stable-stringify.ts';
import { parseJson } from '../core/parse-json.ts';

describe('stableStringify', () => {
  it('ignores key order but not content', () => {
    assert.equal(stableStringify({ b: 1, a: { d: [1, 2], c: null } }), stableStringify({ a: { c: null, d: [1, 2] }, b: 1 }));
    assert.notEqual(stableStringify({ a: [1, 2] }), stableStringify({ a: [2, 1] }));
    assert.equal(stableStringify({ a: undefined, b: 1 }), '{"b":1}');
  });

  it('is valid JSON equal to the value', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => assert.deepEqual(parseJson(stableStringify(value)), parseJson(JSON.stringify(value)))));
  });

  it('throws on cycles', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    assert.throws(() => stableStringify(cyclic), /cycle/);
  });

  it('writes an object met twice but not inside itself each time', () => {
    const shared = { z: 1, a: [true] };
    assert.equal(stableStringify({ y: shared, x: [shared, shared] }), '{"x":[{"a":[true],"z":1},{"a":[true],"z":1}],"y":{"a":[true],"z":1}}');
  });
});
