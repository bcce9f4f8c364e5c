import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findMistralCalls } from './mistral.ts';

describe('findMistralCalls', () => {
  it('reads the v0.3 JSON list form and swallows </s>', () => {
    const text = '[TOOL_CALLS] [{"name": "a", "arguments": {}}]</s> after';
    const [env] = findMistralCalls(text);
    assert.equal(text.slice(env?.span.start, env?.span.end), '[TOOL_CALLS] [{"name": "a", "arguments": {}}]</s>');
    assert.equal(env?.payloads[0]?.kind, 'json');
  });

  it('reads name[ARGS]{…}, name[CALL_ID]id[ARGS]{…} and name{…}', () => {
    for (const text of ['[TOOL_CALLS]get_weather[ARGS]{"c": 1}', '[TOOL_CALLS]get_weather[CALL_ID]x9Yz12345[ARGS]{"c": 1}', '[TOOL_CALLS]get_weather{"c": 1}']) {
      const payload = findMistralCalls(text)[0]?.payloads[0];
      assert.ok(payload?.kind === 'named', text);
      assert.equal(payload.name, 'get_weather');
      assert.equal(payload.args.kind, 'json');
    }
  });

  it('splits calls at each repeated marker', () => {
    assert.equal(findMistralCalls('[TOOL_CALLS]a[ARGS]{}[TOOL_CALLS]b[ARGS]{}').length, 2);
  });

  it('marks arguments cut at the end', () => {
    const env = findMistralCalls('[TOOL_CALLS]a[ARGS]{"x": "cu')[0];
    assert.equal(env?.unclosed, true);
  });
});
