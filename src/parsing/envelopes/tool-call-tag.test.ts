import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findToolCallTags } from './tool-call-tag.ts';

const slice = (text: string, span: { start: number; end: number }): string => text.slice(span.start, span.end);

describe('findToolCallTags', () => {
  it('finds a Hermes block with its JSON payload', () => {
    const text = 'Sure.\n<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\nDone.';
    const [env] = findToolCallTags(text);
    assert.ok(env);
    assert.equal(slice(text, env.span), '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>');
    assert.equal(env.family, 'tool_call_tag');
    assert.equal(env.payloads[0]?.kind, 'json');
  });

  it('ends an unclosed block where its JSON ends, leaving the prose after it', () => {
    const text = '<tool_call>{"name": "a", "arguments": {}}\nAnything else?';
    const [env] = findToolCallTags(text);
    assert.ok(env);
    assert.equal(env.unclosed, true);
    assert.equal(slice(text, env.span), '<tool_call>{"name": "a", "arguments": {}}');
  });

  it('ends a block at the next opener when the model forgot the closer', () => {
    const text = '<tool_call>{"name": "a"}<tool_call>{"name": "b"}</tool_call>';
    assert.deepEqual(findToolCallTags(text).map((env) => slice(text, env.span)), ['<tool_call>{"name": "a"}', '<tool_call>{"name": "b"}</tool_call>']);
  });

  it('steps over a closer quoted inside a JSON string', () => {
    const text = '<tool_call>{"name": "w", "arguments": {"text": "end with </tool_call> ok"}}</tool_call>';
    const [env] = findToolCallTags(text);
    assert.ok(env);
    assert.equal(env.span.end, text.length);
  });

  it('reads GLM-4.5 name and arg_key/arg_value pairs', () => {
    const text = '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>';
    const [env] = findToolCallTags(text);
    assert.equal(env?.family, 'glm');
    assert.deepEqual(env?.payloads[0], { kind: 'named', name: 'get_weather', args: { kind: 'object', value: { city: 'Paris', days: 2 } }, span: { start: 0, end: text.length }, reachesEnd: false });
  });

  it('reads Qwen3-Coder functions inside the block', () => {
    const text = '<tool_call>\n<function=read_file>\n<parameter=path>\na.txt\n</parameter>\n</function>\n</tool_call>';
    const [env] = findToolCallTags(text);
    assert.equal(env?.family, 'qwen3_coder');
    const payload = env?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.deepEqual(payload.args, { kind: 'object', value: { path: 'a.txt' } });
  });

  it('reads the Phi-4 <|tool_call|> variant', () => {
    const text = '<|tool_call|>[{"name": "a", "arguments": {}}]<|/tool_call|>';
    assert.equal(findToolCallTags(text)[0]?.span.end, text.length);
  });

  it('reports an empty block, and ignores a bare mention of the tag in prose', () => {
    assert.equal(findToolCallTags('<tool_call></tool_call>')[0]?.payloads[0]?.kind, 'malformed');
    assert.deepEqual(findToolCallTags('Wrap calls in a <tool_call> tag.'), []);
  });

  it('stops at its envelope cap on a flood of openers', () => {
    assert.equal(findToolCallTags('<tool_call>'.repeat(10_000)).length, 256);
  });
});
