import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseLooseInteger, parseLooseNumber } from './parse-loose-number.ts';

describe('parseLooseNumber', () => {
  it('reads plain and grouped numbers', () => {
    const cases: [string, number][] = [
      ['7000', 7000],
      ['7,000', 7000],
      ['1 000.5', 1000.5],
      ['1,234,567.8', 1234567.8],
      ['7 000', 7000],
      ['7_000', 7000],
      ["1'000", 1000],
      ['7\u00a0000', 7000],
      [' -3.5 ', -3.5],
      ['+2', 2],
      ['.5', 0.5],
      ['1e3', 1000],
      ['1,500', 1500],
    ];
    for (const [text, expected] of cases) assert.equal(parseLooseNumber(text), expected, text);
  });

  it('leaves ambiguous or non-numeric text alone', () => {
    for (const text of [
      '1,5',
      '1,50',
      '1.234,5',
      '12,34,567',
      '1,0000',
      '1,000 000',
      '$7,000',
      '7000 MWh',
      '0x1F',
      '',
      '  ',
      'abc',
      'NaN',
      'Infinity',
      '1e999',
      ',000',
      '1,',
    ]) {
      assert.equal(parseLooseNumber(text), undefined, JSON.stringify(text));
    }
  });

  it('reads integers only when the result is integral and exact', () => {
    assert.equal(parseLooseInteger('7,000'), 7000);
    assert.equal(parseLooseInteger('7.0'), 7);
    assert.equal(parseLooseInteger('7.5'), undefined);
    assert.equal(parseLooseInteger('12345678901234567890'), undefined);
  });

  it('round-trips every finite number JavaScript prints', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        assert.equal(parseLooseNumber(String(n)), n === 0 ? 0 : n);
      }),
    );
  });

  it('reads any integer written with English thousands separators', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.constantFrom(',', ' ', '_'), (n, sep) => {
        const grouped = Math.abs(n).toLocaleString('en-US').replaceAll(',', sep);
        assert.equal(parseLooseNumber(`${n < 0 ? '-' : ''}${grouped}`), n);
      }),
    );
  });
});
