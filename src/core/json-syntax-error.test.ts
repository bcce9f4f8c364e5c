import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { findJsonSyntaxError } from './json-syntax-error.ts';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Characters JSON syntax turns on, so random strings hit every branch. */
const jsonish = fc.string({
  unit: fc.constantFrom(...'{}[]",:0123456789-+.eEtrufalsn \\/u\n\tabcAF\u0001é'.split('')),
  maxLength: 30,
});
/** Valid JSON with one character deleted, replaced or inserted. */
const mutated = fc
  .tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', ']', '}', '"', ':', '\\', 'x', '0', '-', '\u0000'), fc.boolean())
  .map(([text, at, piece, replace]) => {
    const i = text.length === 0 ? 0 : at % text.length;
    return text.slice(0, i) + piece + text.slice(replace ? i + 1 : i);
  });

describe('findJsonSyntaxError', () => {
  it('finds the first error with its line and column, in words of its own', () => {
    assert.deepEqual(findJsonSyntaxError('root:x:0:0:SECRET'), {
      position: 0,
      line: 1,
      column: 1,
      reason: 'unexpected character',
    });
    assert.deepEqual(findJsonSyntaxError('{\n  "a": 1,\n  "b" 2\n}'), {
      position: 18,
      line: 3,
      column: 7,
      reason: "expected ':' after a property name",
    });
    assert.deepEqual(findJsonSyntaxError('[1, 2'), {
      position: 5,
      line: 1,
      column: 6,
      reason: 'unexpected end of input',
    });
    assert.equal(findJsonSyntaxError('{"a":1,}')?.reason, 'expected a double-quoted property name');
    assert.equal(findJsonSyntaxError('"tab\there"')?.reason, 'control character in a string (it must be escaped)');
    assert.equal(findJsonSyntaxError('"\\x"')?.reason, 'invalid escape in a string');
    assert.equal(findJsonSyntaxError('01')?.reason, 'unexpected character after the JSON value');
    assert.equal(findJsonSyntaxError('-.5')?.reason, 'invalid number');
    assert.equal(findJsonSyntaxError('tru')?.reason, 'unexpected end of input');
    assert.equal(findJsonSyntaxError('"open')?.reason, 'unterminated string');
    assert.equal(findJsonSyntaxError('\uFEFF{}')?.position, 0);
  });

  it('accepts what JSON.parse accepts, deep nesting included', () => {
    for (const text of [
      '{}',
      '[]',
      ' 0 ',
      '-0.5e+10',
      '"\\u00e9\\n"',
      '{"a":[true,false,null,{"b":"c"}]}',
      '[[[[]]]]',
    ]) {
      assert.equal(findJsonSyntaxError(text), undefined, text);
    }
    assert.equal(findJsonSyntaxError(`${'['.repeat(200_000)}${']'.repeat(200_000)}`), undefined);
    assert.equal(findJsonSyntaxError(`${'['.repeat(200_000)}`)?.reason, 'unexpected end of input');
  });

  it('property: finds an error exactly when JSON.parse throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), jsonish, mutated), (text) => {
        assert.equal(findJsonSyntaxError(text) === undefined, parses(text), JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('property: the reason never contains the text', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }).map((s) => `Zq${s}`),
        (text) => {
          const error = findJsonSyntaxError(text);
          assert.ok(error !== undefined && !error.reason.includes('Zq'));
        },
      ),
    );
  });
});
