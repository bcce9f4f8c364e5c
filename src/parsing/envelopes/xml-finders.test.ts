import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findXmlCalls } from './xml-finders.ts';

const slice = (text: string, span: { start: number; end: number }): string => text.slice(span.start, span.end);

describe('findXmlCalls: moved ToolCallTags cases', () => {
  it('finds a Hermes block with its JSON payload', () => {
    const text = 'Sure.\n<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\nDone.';
    const [env] = findXmlCalls(text);
    assert.ok(env);
    assert.equal(slice(text, env.span), '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>');
    assert.equal(env.family, 'tool_call_tag');
    assert.equal(env.payloads[0]?.kind, 'json');
  });

  it('ends an unclosed block where its JSON ends, leaving the prose after it', () => {
    const text = '<tool_call>{"name": "a", "arguments": {}}\nAnything else?';
    const [env] = findXmlCalls(text);
    assert.ok(env);
    assert.equal(env.unclosed, true);
    assert.equal(slice(text, env.span), '<tool_call>{"name": "a", "arguments": {}}');
  });

  it('ends a block at the next opener when the model forgot the closer', () => {
    const text = '<tool_call>{"name": "a"}<tool_call>{"name": "b"}</tool_call>';
    assert.deepEqual(
      findXmlCalls(text).map((env) => slice(text, env.span)),
      ['<tool_call>{"name": "a"}', '<tool_call>{"name": "b"}</tool_call>'],
    );
  });

  it('steps over a closer quoted inside a JSON string', () => {
    const text = '<tool_call>{"name": "w", "arguments": {"text": "end with </tool_call> ok"}}</tool_call>';
    const [env] = findXmlCalls(text);
    assert.ok(env);
    assert.equal(env.span.end, text.length);
  });

  it('reads GLM-4.5 name and arg_key/arg_value pairs', () => {
    const text =
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_' +
      'value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>';
    const [env] = findXmlCalls(text);
    assert.equal(env?.family, 'glm');
    assert.deepEqual(env?.payloads[0], {
      kind: 'named',
      name: 'get_weather',
      args: { kind: 'object', value: { city: 'Paris', days: 2 } },
      span: { start: 0, end: text.length },
      reachesEnd: false,
    });
  });

  it('reads Qwen3-Coder functions inside the block', () => {
    const text = '<tool_call>\n<function=read_file>\n<parameter=path>\na.txt\n</parameter>\n</function>\n</tool_call>';
    const [env] = findXmlCalls(text);
    assert.equal(env?.family, 'qwen3_coder');
    const payload = env?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.deepEqual(payload.args, { kind: 'object', value: { path: 'a.txt' } });
  });

  it('reads the Phi-4 <|tool_call|> variant', () => {
    const text = '<|tool_call|>[{"name": "a", "arguments": {}}]<|/tool_call|>';
    assert.equal(findXmlCalls(text)[0]?.span.end, text.length);
  });

  it('reports an empty block, and ignores a bare mention of the tag in prose', () => {
    assert.equal(findXmlCalls('<tool_call></tool_call>')[0]?.payloads[0]?.kind, 'malformed');
    assert.deepEqual(findXmlCalls('Wrap calls in a <tool_call> tag.'), []);
  });

  it('stops at its envelope cap on a flood of openers', () => {
    assert.equal(findXmlCalls('<tool_call>'.repeat(10_000)).length, 256);
  });
});

describe('findXmlCalls: moved FunctionTags cases', () => {
  it('reads a Llama 3.1 custom function with a JSON body', () => {
    const text = '<function=search>{"q": "x"}</function><|eom_id|>';
    const [env] = findXmlCalls(text);
    assert.equal(env?.family, 'function_tag');
    assert.deepEqual(env?.payloads[0], {
      kind: 'named',
      name: 'search',
      args: { kind: 'json', span: { start: 17, end: 27 }, closed: true },
      span: { start: 0, end: 38 },
      reachesEnd: false,
    });
  });

  it('reads Qwen3-Coder parameters, even without </parameter>', () => {
    const text = '<function=list_dir>\n<parameter=path>\n./src\n</function>';
    const payload = findXmlCalls(text)[0]?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.deepEqual(payload.args, { kind: 'object', value: { path: './src' } });
  });

  it('marks a body cut at the end of the text', () => {
    const payload = findXmlCalls('<function=w>{"text": "abc')[0]?.payloads[0];
    assert.ok(payload?.kind === 'named');
    assert.equal(payload.reachesEnd, true);
  });

  it('ignores an unclosed tag around prose', () => {
    assert.deepEqual(findXmlCalls('The syntax is <function=name> followed by JSON.'), []);
  });
});

describe('findXmlCalls: moved MinimaxCalls cases', () => {
  it('reads every <invoke> with its parameters', () => {
    const text =
      '<minimax:tool_call>\n<invoke name="a">\n<parameter name="x">1</parameter>\n</invoke>\n<invoke ' +
      'name=\'b\'>\n<parameter name="y">text</parameter>\n</invoke>\n</minimax:tool_call>';
    const [env] = findXmlCalls(text);
    assert.equal(env?.span.end, text.length);
    assert.deepEqual(
      env?.payloads.map((p) => (p.kind === 'named' ? [p.name, p.args] : p.kind)),
      [
        ['a', { kind: 'object', value: { x: 1 } }],
        ['b', { kind: 'object', value: { y: 'text' } }],
      ],
    );
  });

  it('reports an invoke without a name and a block without invokes', () => {
    assert.equal(
      findXmlCalls('<minimax:tool_call><invoke>x</invoke></minimax:tool_call>')[0]?.payloads[0]?.kind,
      'malformed',
    );
    assert.equal(findXmlCalls('<minimax:tool_call>hello</minimax:tool_call>')[0]?.payloads[0]?.kind, 'malformed');
  });
});
