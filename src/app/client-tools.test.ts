import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import { checkClientTools } from './client-tools.ts';

const usage = (pattern: RegExp) => (error: unknown) =>
  error instanceof ToolgateError && error.code === 'usage' && pattern.test(error.message);

describe('checkClientTools', () => {
  it('keeps well-formed tools (a missing description becomes empty)', () => {
    const tools = checkClientTools([{ name: 'get_weather', description: 'w', parameters: { type: 'object' } }]);
    assert.deepEqual(tools, [{ name: 'get_weather', description: 'w', parameters: { type: 'object' } }]);
  });

  it('refuses names no model API accepts, duplicates, and parameters that are not a usable schema', () => {
    assert.throws(
      () => checkClientTools([{ name: 'a b', description: '', parameters: {} }]),
      usage(/clientTools\[0\]/),
    );
    assert.throws(
      () =>
        checkClientTools([
          { name: 'x', description: '', parameters: {} },
          { name: 'x', description: '', parameters: {} },
        ]),
      usage(/declared twice/),
    );
    assert.throws(
      () => checkClientTools([{ name: 'x', description: '', parameters: { type: 'no-such-type' } }]),
      usage(/x\): parameters is not a JSON Schema/),
    );
  });
});

describe('client tool schemas with regular expressions', () => {
  it('refuses a pattern that could backtrack catastrophically, naming it and where it is; keeps a linear one', () => {
    const tool = (parameters: Record<string, unknown>) => ({ name: 'lookup', description: '', parameters });
    assert.throws(
      () => checkClientTools([tool({ type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } })]),
      usage(/"\^\(a\+\)\+\$" at parameters\/properties\/code\/pattern could take exponential time/),
    );
    assert.throws(
      () => checkClientTools([tool({ type: 'object', patternProperties: { '^(\\w+\\s?)*$': { type: 'string' } } })]),
      usage(/at parameters\/patternProperties\//),
    );
    const safe = tool({
      type: 'object',
      properties: { symbol: { type: 'string', pattern: '^[A-Z]{2}-[A-Z]+-D\\+1$' }, pattern: { type: 'string' } },
      default: { pattern: '(a+)+' },
    });
    assert.equal(checkClientTools([safe]).length, 1, 'a property named pattern and data values are not keywords');
  });
});
