import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue } from '../core/json.ts';
import { readCallShapes } from './call-shapes.ts';
import { extractToolCalls } from './index.ts';

const names = (value: JsonValue): [string, JsonValue | undefined, boolean][] =>
  readCallShapes(value).intents.map((i) => [i.name, i.args, i.explicit]);

describe('readCallShapes', () => {
  it('reads {name, arguments|parameters|args|input}', () => {
    assert.deepEqual(names({ name: 'a', arguments: { x: 1 } }), [['a', { x: 1 }, false]]);
    assert.deepEqual(names({ name: 'a', parameters: { x: 1 } }), [['a', { x: 1 }, false]]);
    assert.deepEqual(names({ tool: 'a', args: {} }), [['a', {}, false]]);
    assert.deepEqual(names({ type: 'tool_use', name: 'a', input: { y: 2 } }), [['a', { y: 2 }, true]]);
  });

  it('reads OpenAI function objects, legacy function_call and tool_calls lists', () => {
    assert.deepEqual(names({ type: 'function', function: { name: 'a', arguments: '{}' } }), [['a', '{}', true]]);
    assert.deepEqual(names({ function_call: { name: 'a', arguments: '{}' } }), [['a', '{}', true]]);
    assert.deepEqual(names({ tool_calls: [{ function: { name: 'a', arguments: {} } }, { name: 'b' }] }), [
      ['a', {}, true],
      ['b', undefined, true],
    ]);
  });

  it("reads seed 001's call_tool and seed 000's action plan with its answer", () => {
    assert.deepEqual(names({ action: 'call_tool', tool_name: 'get_time' }), [['get_time', undefined, true]]);
    const plan = readCallShapes({
      actions: [{ action: 'getOrderBook', arguments: { depth: 20 } }],
      final_answer: 'ok',
    });
    assert.deepEqual(plan, {
      intents: [{ name: 'getOrderBook', args: { depth: 20 }, explicit: true, echo: false }],
      answer: 'ok',
    });
  });

  it('reads LangChain {action, action_input} and arrays of calls', () => {
    assert.deepEqual(names({ action: 'search', action_input: { q: 'x' } }), [['search', { q: 'x' }, false]]);
    assert.deepEqual(names([{ name: 'a', arguments: {} }, 3, { name: 'b', arguments: {} }]), [
      ['a', {}, false],
      ['b', {}, false],
    ]);
  });

  it('marks echoed results', () => {
    assert.equal(readCallShapes({ name: 'a', result: { t: 1 } }).intents[0]?.echo, true);
    assert.equal(readCallShapes({ name: 'a', arguments: {}, output: 'x' }).intents[0]?.echo, true);
    assert.equal(readCallShapes({ result: { name: 'a', arguments: {} } }).intents[0]?.echo, true);
    assert.equal(readCallShapes({ name: 'a', arguments: {} }).intents[0]?.echo, false);
  });

  it('finds nothing in plain data', () => {
    assert.deepEqual(readCallShapes({ temperature: 21 }), { intents: [] });
    assert.deepEqual(readCallShapes('text'), { intents: [] });
    assert.deepEqual(readCallShapes({ final_answer: 'done' }), { intents: [], answer: 'done' });
  });

  it('reads MCP tools/call requests as explicit calls', () => {
    const request = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_weather', arguments: { city: 'Paris' } },
    };
    assert.deepEqual(names(request), [['get_weather', { city: 'Paris' }, true]]);
    assert.deepEqual(readCallShapes({ method: 'tools/call', params: { arguments: {} } }), { intents: [] });
  });

  it('reads {method: <tool>, params: {…}} as a plain (not explicit) call', () => {
    assert.deepEqual(names({ method: 'get_weather', params: { city: 'Paris' } }), [
      ['get_weather', { city: 'Paris' }, false],
    ]);
    assert.deepEqual(names({ jsonrpc: '2.0', id: 3, method: 'search', params: { q: 'x' } }), [
      ['search', { q: 'x' }, false],
    ]);
  });

  it('finds no call in HTTP data, protocol methods or params that are not an object', () => {
    for (const value of [
      { method: 'GET', url: 'https://example.com', params: { page: 1 } },
      { method: 'post', params: { a: 1 } },
      { method: 'fetch_page', url: '/x', params: { a: 1 } },
      { jsonrpc: '2.0', method: 'notifications/initialized', params: {} },
      { jsonrpc: '2.0', method: 'rpc.discover', params: {} },
      { method: 'get_weather', params: ['Paris'] },
      { method: 'get_weather' },
    ] as JsonValue[]) {
      assert.deepEqual(readCallShapes(value).intents, [], JSON.stringify(value));
    }
  });
});

describe('extractToolCalls with JSON-RPC shapes', () => {
  const tools = ['get_weather'];

  it('calls a declared tool named by an MCP request or a method', () => {
    const mcp = extractToolCalls(
      '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ' +
        '{"name": "get_weather", "arguments": {"city": "Paris"}}}',
      { tools },
    );
    assert.deepEqual(
      mcp.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Paris' }]],
    );
    const method = extractToolCalls('{"method": "get_weather", "params": {"city": "Paris"}}', { tools });
    assert.deepEqual(
      method.calls.map((c) => [c.name, c.arguments]),
      [['get_weather', { city: 'Paris' }]],
    );
  });

  it('never calls anything for HTTP data', () => {
    const text =
      'The request was {"method": "GET", "url": "https://api.example.com/weather", "params": {"city": "Paris"}}.';
    const result = extractToolCalls(text, { tools: ['get_weather', 'GET'] });
    assert.deepEqual(result.calls, []);
    assert.equal(result.content, text);
  });
});
