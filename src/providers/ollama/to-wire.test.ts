import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelRequest } from '../../core/ports/model-adapter.ts';
import { argumentsObject as toolArguments } from '../shared/wire.ts';
import { toWireBody, toWireBodyText } from './to-wire.ts';

const TOOL = {
  name: 'get_spot_price',
  description: 'Day-ahead price',
  parameters: { type: 'object', properties: { area: { type: 'string' } } },
};
const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  stream: false,
  ...over,
});

describe('toWireBody: messages', () => {
  it('translates every role; history arguments go as objects, tool results with tool_name', () => {
    const request = ask({
      messages: [
        { role: 'system', content: 'You trade power.' },
        { role: 'user', content: 'Price?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_1', name: 'get_spot_price', arguments: '{"area":"DE-LU","hours":[14,15]}' },
            { id: 'call_2', name: 'get_spot_price', arguments: "{'area': 'DE'" },
          ],
        },
        { role: 'tool', toolCallId: 'call_1', name: 'get_spot_price', content: '87.4' },
        { role: 'tool', toolCallId: 'call_2', name: 'get_spot_price', content: 'error: arguments are not valid JSON' },
        { role: 'assistant', content: 'It is 87.4.' },
      ],
    });
    assert.deepEqual(toWireBody({ model: 'qwen2.5:7b', request }), {
      model: 'qwen2.5:7b',
      stream: false,
      messages: [
        { role: 'system', content: 'You trade power.' },
        { role: 'user', content: 'Price?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_1', function: { name: 'get_spot_price', arguments: { area: 'DE-LU', hours: [14, 15] } } },
            { id: 'call_2', function: { name: 'get_spot_price', arguments: {} } },
          ],
        },
        { role: 'tool', content: '87.4', tool_name: 'get_spot_price', tool_call_id: 'call_1' },
        {
          role: 'tool',
          content: 'error: arguments are not valid JSON',
          tool_name: 'get_spot_price',
          tool_call_id: 'call_2',
        },
        { role: 'assistant', content: 'It is 87.4.' },
      ],
    });
  });

  it('keeps assistant text next to tool calls', () => {
    const body = toWireBody({
      model: 'm',
      request: ask({
        messages: [{ role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] }],
      }),
    });
    assert.deepEqual((body['messages'] as unknown[])[0], {
      role: 'assistant',
      content: 'Checking.',
      tool_calls: [{ id: 'c', function: { name: 'f', arguments: {} } }],
    });
  });
});

describe('toolArguments', () => {
  it('parses JSON object text; anything else becomes {} without throwing', () => {
    assert.deepEqual(toolArguments('{"a":{"b":[1,"x"]},"n":null}'), { a: { b: [1, 'x'] }, n: null });
    for (const text of ['', '   ', "{'a': 1}", '{"a":1', '[1,2]', '"text"', '42', 'null', 'true']) {
      assert.deepEqual(toolArguments(text), {}, JSON.stringify(text));
    }
  });

  it('keeps escaped keys as written (parsed with parseJson, not JSON.parse)', () => {
    assert.deepEqual(Object.keys(toolArguments('{"\\\\":1}')), ['\\']);
    assert.deepEqual(Object.keys(toolArguments('{"\\n":2}')), ['\n']);
  });
});

describe('toWireBody: request fields', () => {
  it('always sends stream explicitly, true or false (Ollama streams when it is absent)', () => {
    assert.equal(toWireBody({ model: 'm', request: ask({ stream: true }) })['stream'], true);
    const body = toWireBody({ model: 'm', request: ask({ stream: false }) });
    assert.equal(body['stream'], false);
    assert.ok(Object.hasOwn(body, 'stream'));
  });

  it('offers tools in the function shape, with no tool_choice field', () => {
    for (const toolChoice of [undefined, 'auto', 'required'] as const) {
      const body = toWireBody({
        model: 'm',
        request: ask({ tools: [TOOL], ...(toolChoice === undefined ? {} : { toolChoice }) }),
      });
      assert.deepEqual(body['tools'], [{ type: 'function', function: TOOL }]);
      assert.equal(body['tool_choice'], undefined);
    }
  });

  it("toolChoice 'none' sends no tools at all; no tools offered sends no tools key", () => {
    assert.equal(
      Object.hasOwn(toWireBody({ model: 'm', request: ask({ tools: [TOOL], toolChoice: 'none' }) }), 'tools'),
      false,
    );
    assert.equal(Object.hasOwn(toWireBody({ model: 'm', request: ask() }), 'tools'), false);
  });

  it('sends responseFormat as the format schema object', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const body = toWireBody({
      model: 'm',
      request: ask({ responseFormat: { type: 'json_schema', name: 'answer', schema } }),
    });
    assert.deepEqual(body['format'], schema);
    assert.equal(Object.hasOwn(toWireBody({ model: 'm', request: ask() }), 'format'), false);
  });

  it('maps temperature and maxTokens into options, merged with configured options (which win)', () => {
    assert.deepEqual(toWireBody({ model: 'm', request: ask({ temperature: 0, maxTokens: 256 }) })['options'], {
      temperature: 0,
      num_predict: 256,
    });
    assert.deepEqual(
      toWireBody({
        model: 'm',
        request: ask({ temperature: 0, maxTokens: 256 }),
        options: { num_ctx: 8192, temperature: 0.2 },
      })['options'],
      {
        temperature: 0.2,
        num_predict: 256,
        num_ctx: 8192,
      },
    );
    assert.deepEqual(toWireBody({ model: 'm', request: ask(), options: { num_ctx: 4096 } })['options'], {
      num_ctx: 4096,
    });
    assert.equal(Object.hasOwn(toWireBody({ model: 'm', request: ask() }), 'options'), false);
  });

  it('sends think and keep_alive only when configured', () => {
    const body = toWireBody({ model: 'm', request: ask(), think: false, keepAlive: '10m' });
    assert.equal(body['think'], false);
    assert.equal(body['keep_alive'], '10m');
    assert.equal(toWireBody({ model: 'm', request: ask(), think: 'high', keepAlive: -1 })['think'], 'high');
    assert.equal(toWireBody({ model: 'm', request: ask(), keepAlive: -1 })['keep_alive'], -1);
    const bare = toWireBody({ model: 'm', request: ask() });
    assert.equal(Object.hasOwn(bare, 'think'), false);
    assert.equal(Object.hasOwn(bare, 'keep_alive'), false);
  });

  it('merges extraBody last', () => {
    const body = toWireBody({
      model: 'm',
      request: ask({ temperature: 0 }),
      extraBody: { truncate: false, options: { seed: 7 } },
    });
    assert.equal(body['truncate'], false);
    assert.deepEqual(body['options'], { seed: 7 });
  });
});

describe('toWireBodyText', () => {
  it('parses to what the body object serialises to: tools, toolChoice none (no tools), options and extraBody', () => {
    const tools = [
      {
        name: 'quote',
        description: 'Quote a price',
        parameters: { type: 'object', properties: { area: { type: 'string' } } },
      },
    ];
    const base: ModelRequest = { messages: [{ role: 'user', content: 'Price?' }], tools: [], stream: false };
    const cases: Parameters<typeof toWireBody>[0][] = [
      { model: 'qwen2.5:7b', request: base },
      { model: 'qwen2.5:7b', request: { ...base, tools, temperature: 0.1 }, options: { num_ctx: 8192 } },
      { model: 'qwen2.5:7b', request: { ...base, tools, toolChoice: 'none' } },
      { model: 'qwen2.5:7b', request: { ...base, tools }, extraBody: { format: 'json' } },
      { model: 'qwen2.5:7b', request: { ...base, tools }, extraBody: { tools: [] } },
    ];
    for (const input of cases)
      assert.deepEqual(JSON.parse(toWireBodyText(input)), JSON.parse(JSON.stringify(toWireBody(input))));
  });
});
