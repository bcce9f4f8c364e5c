import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLenient, parseLenientObjects } from './lenient-json.ts';
import { parseJson } from '../core/parse-json.ts';

describe('parseLenient extended reads', () => {
  it('are off by default: the envelopes reading parameter values keep the plain reader', () => {
    for (const text of ['{{"a": 1}}', '{"a": "x "y" z"}', '{\\n"a": 1}', '["""x"""]', '[{"a": 1]']) {
      assert.equal(parseLenient(text, { allowCloseAtEnd: false }).ok, false, text);
      assert.equal(parseLenient(text, { allowCloseAtEnd: false, extended: true }).ok, true, text);
    }
  });

  it('read valid JSON exactly as JSON.parse does, with no repairs', () => {
    for (const text of [
      '{"a": "x", "b": ["", "y", {"c": ""}], "d": "\\"q\\""}',
      '["a", "b"]',
      '"top"',
      '{"k\\"ey": "v", "e": {}}',
    ]) {
      assert.deepEqual(parseLenient(text, { allowCloseAtEnd: false, extended: true }), {
        ok: true,
        value: parseJson(text),
        repairs: [],
        closedAtEnd: false,
      });
    }
  });

  it('close a missing closer only for the container right around it', () => {
    assert.equal(parseLenient('{"a": 1]', { allowCloseAtEnd: false, extended: true }).ok, false);
    assert.equal(parseLenient('[1, 2}', { allowCloseAtEnd: false, extended: true }).ok, false);
  });

  it('take at most three braces for a template escape', () => {
    assert.equal(parseLenient('{{{{"a": 1}}}}', { allowCloseAtEnd: true, extended: true }).ok, false);
    assert.equal(parseLenient('{'.repeat(10_000), { allowCloseAtEnd: true, extended: true }).ok, false);
  });
});

describe('parseLenientObjects', () => {
  it('reads objects in a row and says where each starts', () => {
    assert.deepEqual(parseLenientObjects(' {"a": 1}{"b": 2} ,\n{"c": 3}', { allowCloseAtEnd: false, extended: true }), {
      ok: true,
      values: [{ a: 1 }, { b: 2 }, { c: 3 }],
      starts: [1, 9, 20],
      repairs: [],
      closedAtEnd: false,
    });
  });

  it('reads a single value as a row of one, and nothing but objects after an object', () => {
    assert.deepEqual(parseLenientObjects('[1]', { allowCloseAtEnd: false }), {
      ok: true,
      values: [[1]],
      starts: [0],
      repairs: [],
      closedAtEnd: false,
    });
    assert.equal(parseLenientObjects('[1] {"a": 1}', { allowCloseAtEnd: false }).ok, false);
    assert.equal(parseLenientObjects('{"a": 1} 2', { allowCloseAtEnd: false }).ok, false);
  });
});
