import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readJson } from './repair-json.ts';
import { normalizeTypographicQuotes } from './typographic-quotes.ts';

describe('typographic quotes', () => {
  it('reads curly quotes as delimiters where they delimit', () => {
    const read = readJson('{“city”: “Paris”, „unit”: «C»}', { allowCloseAtEnd: false });
    assert.ok(read.ok);
    assert.deepEqual(read.value, { city: 'Paris', unit: 'C' });
    assert.ok(read.repairs.includes('typographic_quotes'));
  });

  it('keeps them inside values', () => {
    const read = readJson('{"text": "He said “hi” to me"}', { allowCloseAtEnd: false });
    assert.ok(read.ok);
    assert.deepEqual(read.value, { text: 'He said “hi” to me' });
    assert.deepEqual(read.repairs, []);
    assert.equal(normalizeTypographicQuotes('{"text": "He said “hi”"}'), undefined);
    // In a curly-quoted value, an inner curly quote not followed by a delimiter is text.
    const mixed = readJson('{“text”: “a “b” c”}', { allowCloseAtEnd: false });
    assert.ok(mixed.ok);
    assert.deepEqual(mixed.value, { text: 'a “b” c' });
  });

  it('keeps the length, so positions point into the original', () => {
    const text = '{“a”: “x”}';
    assert.equal(normalizeTypographicQuotes(text)?.length, text.length);
  });
});
