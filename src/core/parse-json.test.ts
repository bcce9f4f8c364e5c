import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseJson } from './parse-json.ts';

describe('parseJson', () => {
  it('reads escaped one-character keys right where JSON.parse (V8, nodejs/node#63785) may not', () => {
    // The poison: an object of the same shape with the key "\\".
    JSON.parse('{"/":{},"\\\\":""}');
    JSON.parse('{"h":[],"\\\\":0}');
    assert.deepEqual(Object.keys(parseJson('{"/":{},"\\n":""}') as object), ['/', '\n']);
    assert.deepEqual(Object.keys(parseJson('{"h":1,"\\"":2}') as object), ['h', '"']);
    assert.deepEqual(Object.keys(parseJson('{"x":1,"\\t":2,"\\u00e9\\ud83d\\ude00":3}') as object), ['x', '\t', 'é😀']);
  });

  it(
    'round-trips objects whose keys need escapes, even after ' +
      'JSON.parse was shown the same shape with a "\\\\" key',
    () => {
      const key = fc.string({ unit: fc.constantFrom('a', '/', '\\', '\n', '\t', '"', 'é', '\u0001'), maxLength: 3 });
      fc.assert(
        fc.property(
          fc.uniqueArray(key, { minLength: 1, maxLength: 5 }),
          fc.jsonValue({ maxDepth: 1 }),
          (keys, value) => {
            const object = Object.fromEntries(keys.map((k) => [k, value]));
            // The poison: the same keys but the last one replaced by a lone backslash.
            JSON.parse(JSON.stringify(Object.fromEntries([...keys.slice(0, -1), '\\'].map((k) => [k, value]))));
            assert.deepEqual(Object.keys(parseJson(JSON.stringify(object)) as object), Object.keys(object));
          },
        ),
        { numRuns: 1000 },
      );
    },
  );

  it('equals JSON.parse on any JSON text, escaped keys included', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        // The strict reader is forced through a key with an escape next to the value.
        const wrapped = `{"\\\\k":${text},"v":${text}}`;
        const expected = { '\\k': JSON.parse(text) as unknown, v: JSON.parse(text) as unknown };
        assert.deepEqual(parseJson(wrapped), expected);
        assert.deepEqual(parseJson(text), JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('finds escaped keys in one pass: long runs of escapes cost no more than the text', () => {
    // A look for escaped keys that restarts at every backslash would not finish on this megabyte.
    const text = `{"a":"${'\\\\'.repeat(500_000)}","b\\n":1}`;
    const value = parseJson(text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(value), ['a', 'b\n']);
    assert.equal((value['a'] as string).length, 500_000);
  });

  it('keeps __proto__ as an own key, as JSON.parse does', () => {
    const value = parseJson('{"\\n":1,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(value), ['\n', '__proto__']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('refuses what JSON.parse refuses, with a SyntaxError', () => {
    for (const bad of [
      '{"\\n":}',
      '{"\\n":1,}',
      '{"\\n" 1}',
      '{"\\q":1}',
      '{"\\n":"\u0001"}',
      '{"\\n":1} x',
      '{"\\n":01}',
      '{"\\n":"a',
      '[1,]',
    ]) {
      assert.throws(() => JSON.parse(bad), SyntaxError, `JSON.parse accepts ${bad}`);
      assert.throws(() => parseJson(bad), SyntaxError, bad);
    }
  });
});
