import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findFunctionTags } from './function-tag.ts';

describe('findFunctionTags', () => {
  it('reads a Llama 3.1 custom function with a JSON body', () => {
    const text = '<function=search>{"q": "x"}</function><|eom_id|>';
    const [env] = findFunctionTags(text);
    assert.equal(env?.family, 'function_tag');
    assert.deepEqual(env?.payloads[0], { kind: 'named', name: 'search', args: { kind: 'json', span: { start: 17, end: 27 }, closed: true }, span: { start: 0, end: 38 }, reachesEnd: false });
  });

  it('reads Qwen3-Coder parameters, even without </parameter>', () => {
    const text = '<function=list_dir>\n<parameter=path>\n./src\n</function>';
    const payload = findFunctionTags(text)[0]?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.deepEqual(payload.args, { kind: 'object', value: { path: './src' } });
  });

  it('marks a body cut at the end of the text', () => {
    const payload = findFunctionTags('<function=w>{"text": "abc')[0]?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.reachesEnd, true);
  });

  it('ignores an unclosed tag around prose', () => {
    assert.deepEqual(findFunctionTags('The syntax is <function=name> followed by JSON.'), []);
  });
});
