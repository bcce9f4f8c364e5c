import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelRequest, ModelToolDefinition } from '../../core/ports/model-adapter.ts';
import { toWireBody, toWireBodyText } from './to-wire.ts';

const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'You trade power.' },
    { role: 'user', content: 'Price?' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_price', arguments: "{'area': 'DE'" }] },
    { role: 'tool', toolCallId: 'call_1', name: 'get_price', content: '87.4' },
    { role: 'assistant', content: 'It is 87.4.' },
  ],
  tools: [],
  stream: false,
};

describe('toWireBody', () => {
  it('translates every message role, keeping history arguments as they are', () => {
    assert.deepEqual(toWireBody({ model: 'm', request }), {
      model: 'm',
      messages: [
        { role: 'system', content: 'You trade power.' },
        { role: 'user', content: 'Price?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_price', arguments: "{'area': 'DE'" } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '87.4' },
        { role: 'assistant', content: 'It is 87.4.' },
      ],
    });
  });

  it('keeps assistant text next to tool calls', () => {
    const body = toWireBody({
      model: 'm',
      request: {
        ...request,
        messages: [{ role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] }],
      },
    });
    assert.equal((body['messages'] as { content: unknown }[])[0]?.content, 'Checking.');
  });

  it('adds tools, tool_choice, sampling, response_format and streaming flags only when asked', () => {
    const body = toWireBody({
      model: 'm',
      request: {
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'f', description: 'does f', parameters: { type: 'object', properties: {} } }],
        toolChoice: 'required',
        temperature: 0,
        maxTokens: 256,
        responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' } },
        stream: true,
      },
      extraBody: { top_p: 0.9, temperature: 0.2 },
    });
    assert.deepEqual(body, {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [
        {
          type: 'function',
          function: { name: 'f', description: 'does f', parameters: { type: 'object', properties: {} } },
        },
      ],
      tool_choice: 'required',
      temperature: 0.2,
      max_tokens: 256,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: false },
      },
      stream: true,
      stream_options: { include_usage: true },
      top_p: 0.9,
    });
  });

  it('omits tools and tool_choice when no tools are offered (servers reject tool_choice alone)', () => {
    const body = toWireBody({ model: 'm', request: { messages: [], tools: [], toolChoice: 'auto', stream: false } });
    assert.deepEqual(Object.keys(body).sort(), ['messages', 'model']);
  });
});

describe('toWireBodyText', () => {
  const offered: ModelToolDefinition[] = ['quote', 'place_bid'].map((name) => ({
    name,
    description: `${name} tool`,
    parameters: { type: 'object', properties: { area: { type: 'string' } } },
  }));

  it('parses to what the body object serialises to, with or without tools, tool_choice and extraBody', () => {
    const cases: Parameters<typeof toWireBody>[0][] = [
      { model: 'm', request },
      { model: 'm', request: { ...request, tools: offered, toolChoice: 'required', stream: true } },
      { model: 'm', request: { ...request, tools: offered }, extraBody: { top_p: 0.9, model: 'other' } },
      { model: 'm', request: { ...request, tools: offered }, extraBody: { tools: [] } },
    ];
    for (const input of cases) {
      assert.deepEqual(JSON.parse(toWireBodyText(input)), JSON.parse(JSON.stringify(toWireBody(input))));
    }
  });
});
