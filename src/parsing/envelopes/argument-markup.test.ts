import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractToolCalls } from '../extract-tool-calls.ts';

// Issue 38, point 4: argument markup in an envelope is consumed whole, or the call fails — never a call missing an argument.
const tools = ['search', 'list_dir', 'noop', 'get_weather'];
const run = (text: string) => extractToolCalls(text, { tools });

describe('GLM pairs: every piece of markup is read', () => {
  it('repairs a missing <arg_value> opener and a doubled </arg_key> closer', () => {
    const a = run('<tool_call>search<arg_key>query</arg_key>how many days</arg_value></tool_call>');
    assert.deepEqual(a.calls.map((c) => c.arguments), [{ query: 'how many days' }]);
    assert.ok(a.diagnostics.some((d) => d.repairs?.includes('repaired_argument_markup')));
    const b = run('<tool_call>list_dir<arg_key>path</arg_key></arg_key><arg_value>/tmp/x</arg_value></tool_call>');
    assert.deepEqual(b.calls.map((c) => c.arguments), [{ path: '/tmp/x' }]);
  });

  it('reads a no-argument call followed by a stray closer', () => {
    assert.deepEqual(run('<tool_call>noop</arg_value>').calls.map((c) => [c.name, c.arguments]), [['noop', {}]]);
    assert.deepEqual(run('<tool_call>noop</arg_value></tool_call>').calls.map((c) => [c.name, c.arguments]), [['noop', {}]]);
  });

  it('fails a key without a value, and a stray tag after the pairs, with position and expectation', () => {
    const a = run('<tool_call>search<arg_key>query</arg_key><arg_key>x</arg_key><arg_value>1</arg_value></tool_call>');
    assert.deepEqual(a.calls, []);
    assert.equal(a.diagnostics[0]?.code, 'malformed_call');
    assert.equal(a.diagnostics[0]?.position, 41);
    assert.match(a.diagnostics[0]?.message ?? '', /expected <arg_value>…<\/arg_value> with the value of "query"/);
    const b = run('<tool_call>search<arg_key>query</arg_key><arg_value>a</arg_value></arg_value></tool_call>');
    assert.deepEqual(b.calls, []);
    assert.equal(b.diagnostics[0]?.code, 'malformed_call');
  });
});

describe('Mistral [ARGS] in another grammar', () => {
  it('reads key=value arguments instead of dropping them', () => {
    const r = run('[TOOL_CALLS]get_weather[ARGS]city="Paris"');
    assert.deepEqual(r.calls.map((c) => c.arguments), [{ city: 'Paris' }]);
    assert.equal(r.content, '');
  });

  it('fails arguments that read in no grammar', () => {
    const r = run('[TOOL_CALLS]get_weather[ARGS]city=Paris, oops(');
    assert.deepEqual(r.calls, []);
    assert.equal(r.diagnostics[0]?.code, 'invalid_json');
    assert.equal(typeof r.diagnostics[0]?.position, 'number');
  });
});
