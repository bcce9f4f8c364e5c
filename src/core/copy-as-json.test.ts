import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { copyAsJson } from './copy-as-json.ts';

/** What the copy must equal: the JSON round trip. */
function roundTrip(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

function same(value: unknown): void {
  let expected: unknown;
  let error: unknown;
  try {
    expected = roundTrip(value);
  } catch (e) {
    error = e;
  }
  if (error !== undefined) {
    assert.throws(() => copyAsJson(value), TypeError);
    return;
  }
  assert.deepStrictEqual(copyAsJson(value), expected);
}

describe('copyAsJson', () => {
  it('copies what JSON would keep, as JSON would read it back', () => {
    const date = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    same({ a: 1, b: 'x', c: true, d: null, e: [1, 'two', { three: 3 }], f: { g: { h: [] } } });
    same({ gone: undefined, fn: () => 1, sym: Symbol('s'), kept: 1 });
    same([undefined, () => 1, Symbol('s'), 2]);
    same({
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      negInf: Number.NEGATIVE_INFINITY,
      negZero: -0,
      arr: [-0, Number.NaN],
    });
    same({ date, nested: { dates: [date] } });
    same({ boxed: [new Number(3), new String('s'), new Boolean(false), new Number(Number.NaN)] });
    same({ map: new Map([[1, 2]]), set: new Set([1]), typed: new Uint8Array([1, 2]) });
    // eslint-disable-next-line no-sparse-arrays -- a hole is what is tested
    same({ sparse: [1, , 3] });
    same({ '2': 'b', '1': 'a', z: 1, y: 2 });
    same(
      Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true }, hidden: { value: 3, enumerable: false } }),
    );
    same({
      custom: { toJSON: (key: string) => `key was ${key}` },
      list: [{ toJSON: (key: string) => `index ${key}` }],
    });
    same({ dropped: { toJSON: () => undefined }, inArray: [{ toJSON: () => undefined }] });
    same(JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as unknown);
    const { rawJSON } = JSON as unknown as { rawJSON: (text: string) => unknown };
    same(rawJSON('12345678901234567890'));
    same({ raw: rawJSON('"text"') });
  });

  it('keeps __proto__ an own key, never the prototype', () => {
    const copied = copyAsJson(JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>);
    assert.equal(Object.getPrototypeOf(copied), Object.prototype);
    assert.deepEqual(Object.keys(copied), ['__proto__']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('shares nothing with the original', () => {
    const original = { list: [{ n: 1 }], inner: { n: 2 } };
    const copied = copyAsJson(original);
    copied.list[0]!.n = 9;
    copied.inner.n = 9;
    assert.deepEqual(original, { list: [{ n: 1 }], inner: { n: 2 } });
  });

  it('throws a TypeError on a cycle and on a BigInt, as JSON.stringify does', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    assert.throws(() => copyAsJson(cyclic), TypeError);
    assert.throws(() => copyAsJson({ big: 1n }), TypeError);
  });

  it('property: equals the JSON round trip for any value', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBoxedValues: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withTypedArray: true,
          withSparseArray: true,
          withNullPrototype: true,
          withObjectString: true,
          withBigInt: true,
        }),
        (value) => same({ value }),
      ),
      { numRuns: 2000 },
    );
  });
});
