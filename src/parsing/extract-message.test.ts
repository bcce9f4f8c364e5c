import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractFromMessage, extractMessageDetailed } from './extract-message.ts';
import type { AssistantMessageInput, ToolRef } from './types.ts';

const TOOLS: ToolRef[] = [
  {
    name: 'get_weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'tag_items',
    inputSchema: {
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'string' } }, filter: { type: 'object' } },
      required: ['tags'],
    },
  },
  { name: 'list_files' },
];

function read(input: Omit<AssistantMessageInput, 'tools'>) {
  const result = extractFromMessage({ tools: TOOLS, ...input });
  return {
    calls: result.calls.map((c) => [c.name, c.arguments, c.origin]),
    codes: result.diagnostics.map((d) => d.code),
    result,
  };
}

describe('extractFromMessage: native calls', () => {
  it('repairs a native arguments string and records the repairs', () => {
    const { calls, result } = read({ toolCalls: [{ id: 'c1', name: 'get_weather', arguments: "{'city': 'Brest',}" }] });
    assert.deepEqual(calls, [['get_weather', { city: 'Brest' }, 'native']]);
    assert.equal(result.calls[0]?.id, 'c1');
    const repaired = result.diagnostics.find((d) => d.code === 'repaired');
    assert.deepEqual(repaired?.repairs, ['single_quoted_strings', 'removed_trailing_commas']);
  });

  it('cleans native names: functions. prefix and :N index', () => {
    const { calls, result } = read({ toolCalls: [{ name: 'functions.get_weather:0', arguments: '{"city": "Oslo"}' }] });
    assert.deepEqual(calls, [['get_weather', { city: 'Oslo' }, 'native']]);
    assert.deepEqual(result.diagnostics.find((d) => d.code === 'repaired')?.repairs, [
      'stripped_name_index',
      'stripped_name_prefix',
    ]);
  });

  it('an unknown native name is not a call and gets "did you mean"', () => {
    const detailed = extractMessageDetailed({
      tools: TOOLS,
      toolCalls: [{ name: 'get_wether', arguments: '{"city": "Oslo"}' }],
    });
    assert.deepEqual(detailed.result.calls, []);
    assert.deepEqual(detailed.native, [undefined]);
    const unknown = detailed.result.diagnostics[0];
    assert.equal(unknown?.code, 'unknown_tool');
    assert.equal(unknown?.suggestion, 'get_weather');
    assert.match(unknown?.message ?? '', /Did you mean "get_weather"\?/);
  });

  it('unreadable native arguments give invalid_json with a position, and no call', () => {
    const detailed = extractMessageDetailed({
      tools: TOOLS,
      toolCalls: [{ name: 'get_weather', arguments: '{"city": }' }],
    });
    assert.deepEqual(detailed.native, [undefined]);
    const failure = detailed.result.diagnostics[0];
    assert.equal(failure?.code, 'invalid_json');
    assert.equal(typeof failure?.position, 'number');
  });

  it('arguments cut at the token limit are truncated, not repaired', () => {
    const { calls, codes } = read({
      finishReason: 'length',
      toolCalls: [{ name: 'get_weather', arguments: '{"city": "Par' }],
    });
    assert.deepEqual(calls, []);
    assert.deepEqual(codes, ['truncated']);
  });

  it('types values by the schema: a string holding a list where an array is wanted', () => {
    const { calls, result } = read({
      toolCalls: [{ name: 'tag_items', arguments: JSON.stringify({ tags: "['a', 'b']", filter: '{"x": 1}' }) }],
    });
    assert.deepEqual(calls, [['tag_items', { tags: ['a', 'b'], filter: { x: 1 } }, 'native']]);
    assert.ok(result.diagnostics.find((d) => d.code === 'repaired')?.repairs?.includes('typed_by_schema'));
  });

  it('an arguments string holding several objects in a row is one call per object', () => {
    const detailed = extractMessageDetailed({
      tools: TOOLS,
      toolCalls: [{ id: 'p', name: 'get_weather', arguments: '{"city": "Paris"}{"city": "Rome"}' }],
    });
    assert.deepEqual(
      detailed.result.calls.map((c) => [c.name, c.arguments, c.id]),
      [
        ['get_weather', { city: 'Paris' }, 'p'],
        ['get_weather', { city: 'Rome' }, 'p'],
      ],
    );
    assert.equal(detailed.native[0]?.length, 2);
    assert.ok(
      detailed.result.diagnostics.every(
        (d) => d.code === 'repaired' && d.repairs?.includes('split_concatenated_objects'),
      ),
    );
  });

  it('a text copy of the native calls leaves the content; the calls are not doubled', () => {
    const text = 'Checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
    const { calls, result } = read({ text, toolCalls: [{ name: 'get_weather', arguments: '{"city": "Oslo"}' }] });
    assert.equal(calls.length, 1);
    assert.equal(result.content, 'Checking.');
  });

  it('a text call next to different native calls is left in the content and not run', () => {
    const text = 'Also <tool_call>{"name": "list_files", "arguments": {}}</tool_call>';
    const { calls, result } = read({ text, toolCalls: [{ name: 'get_weather', arguments: '{"city": "Oslo"}' }] });
    assert.deepEqual(calls, [['get_weather', { city: 'Oslo' }, 'native']]);
    assert.equal(result.content, text);
  });
});

describe('extractFromMessage: reasoning', () => {
  const call = '<tool_call>{"name": "get_weather", "arguments": {"city": "Lima"}}</tool_call>';

  it('takes a complete call at the end of the reasoning field when the reply has nothing else', () => {
    const { calls, codes } = read({ reasoning: `The user wants Lima's weather.\n${call}\n`, text: '' });
    assert.deepEqual(calls, [['get_weather', { city: 'Lima' }, 'reasoning']]);
    assert.deepEqual(codes, ['call_in_reasoning']);
  });

  it('takes a call at the end of a <think> block when nothing follows it', () => {
    const { calls, codes } = read({ text: `<think>Need the weather.\n${call}</think>\n` });
    assert.deepEqual(calls, [['get_weather', { city: 'Lima' }, 'reasoning']]);
    assert.ok(codes.includes('call_in_reasoning'));
  });

  it('ignores a call in the middle of the reasoning (a plan), recording it', () => {
    const { calls, codes } = read({ reasoning: `First ${call} then I will think again about it.`, text: '' });
    assert.deepEqual(calls, []);
    assert.deepEqual(codes, ['ignored_reasoning_call']);
  });

  it('ignores the reasoning call when the reply has an answer or a call outside it', () => {
    assert.deepEqual(read({ reasoning: call, text: 'It is sunny in Lima.' }).calls, []);
    const both = read({ reasoning: call, text: '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>' });
    assert.deepEqual(both.calls, [['list_files', {}, 'text']]);
    assert.ok(both.codes.includes('ignored_reasoning_call'));
    const native = read({ reasoning: call, toolCalls: [{ name: 'list_files', arguments: '{}' }] });
    assert.deepEqual(native.calls, [['list_files', {}, 'native']]);
  });

  it('a broken call at the end of the reasoning is reported so the model can be told', () => {
    const { calls, codes } = read({
      reasoning: 'Calling it.\n<tool_call>{"name": "nope_tool", "arguments": {}}</tool_call>',
      text: '',
    });
    assert.deepEqual(calls, []);
    assert.ok(codes.includes('unknown_tool'), codes.join(','));
  });
});

describe('extractFromMessage: text', () => {
  it('reads text calls, cleans names, types values and keeps the content', () => {
    const text = 'Tagging.\n<tool_call>{"name": "functions.tag_items", "arguments": {"tags": "[\\"x\\"]"}}</tool_call>';
    const { calls, result } = read({ text });
    assert.deepEqual(calls, [['tag_items', { tags: ['x'] }, 'text']]);
    assert.equal(result.content, 'Tagging.');
    const repairs = result.diagnostics.find((d) => d.code === 'repaired')?.repairs ?? [];
    assert.ok(repairs.includes('stripped_name_prefix') && repairs.includes('typed_by_schema'), repairs.join(','));
  });

  it('never throws, whatever the input', () => {
    const hostile = {
      text: '<tool_call>'.repeat(1000),
      reasoning: '{'.repeat(5000),
      toolCalls: [{ name: '', arguments: '"'.repeat(1000) }],
    };
    assert.doesNotThrow(() => extractFromMessage({ tools: TOOLS, ...hostile }));
  });
});
