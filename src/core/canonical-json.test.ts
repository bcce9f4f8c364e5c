import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from './canonical-json.ts';
import { parseJson } from './parse-json.ts';

describe('canonicalJson', () => {
  it('ignores key order but not content', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [1, 2], c: null } }),
      canonicalJson({ a: { c: null, d: [1, 2] }, b: 1 }),
    );
    assert.notEqual(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
    assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  });

  it('is valid JSON equal to the value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) =>
        assert.deepEqual(parseJson(canonicalJson(value)), parseJson(JSON.stringify(value))),
      ),
    );
  });

  it('throws on cycles', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    assert.throws(() => canonicalJson(cyclic), /cycle/);
  });

  it('writes an object met twice but not inside itself each time', () => {
    const shared = { z: 1, a: [true] };
    assert.equal(
      canonicalJson({ y: shared, x: [shared, shared] }),
      '{"x":[{"a":[true],"z":1},{"a":[true],"z":1}],"y":{"a":[true],"z":1}}',
    );
  });
});
