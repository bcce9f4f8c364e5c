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
