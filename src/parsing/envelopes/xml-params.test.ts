import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  attributeValue,
  parseGlmArguments,
  parseMinimaxParameters,
  parseQwenParameters,
  xmlValue,
} from './xml-params.ts';

const all = (text: string): { start: number; end: number } => ({ start: 0, end: text.length });

describe('xmlValue', () => {
  it('parses JSON values and keeps text, dropping one layout line break on each side', () => {
    assert.equal(xmlValue('\n42\n'), 42);
    assert.equal(xmlValue('true'), true);
    assert.deepEqual(xmlValue('{"a": [1]}'), { a: [1] });
    assert.equal(xmlValue('\nline one\nline two\n'), 'line one\nline two');
    assert.equal(xmlValue('nullable field'), 'nullable field');
    assert.equal(xmlValue('007'), '007');
  });
});

describe('argument tags', () => {
  it('reads Qwen3-Coder parameters and flags a value cut at the end', () => {
    const text = '<parameter=a>\n1\n</parameter>\n<parameter=b>\ncut';
    assert.deepEqual(parseQwenParameters(text, all(text)), { args: { a: 1, b: 'cut' }, reachesEnd: true });
  });

  it('reads MiniMax parameters', () => {
    const text = '<parameter name="city">Paris</parameter><parameter name=\'n\'>2</parameter>';
    assert.deepEqual(parseMinimaxParameters(text, all(text)), { args: { city: 'Paris', n: 2 }, reachesEnd: false });
  });

  it('reads GLM key/value pairs and skips a key without a value', () => {
    const text = '<arg_key>a</arg_key><arg_key>b</arg_key>\n<arg_value>x</arg_value>';
    assert.deepEqual(parseGlmArguments(text, all(text)), { args: { b: 'x' }, reachesEnd: false });
  });

  it('reads attribute values in any quoting', () => {
    assert.equal(attributeValue(' name="a b"', 'name'), 'a b');
    assert.equal(attributeValue(" name='x'", 'name'), 'x');
    assert.equal(attributeValue(' name=y', 'name'), 'y');
    assert.equal(attributeValue(' id="1"', 'name'), undefined);
  });
});
