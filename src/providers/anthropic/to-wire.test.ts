import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../core/messages.ts';
import type { ModelRequest } from '../../core/ports/model-adapter.ts';
import { argumentsObject as inputOf } from '../shared/wire.ts';
import {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  thinkingBlocksOf,
  toWireBody,
  toWireBodyText,
  toWireMessages,
} from './to-wire.ts';

const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'Price?' }],
  tools: [],
  stream: false,
  ...over,
});

describe('toWireMessages', () => {
  it('moves every system message to the top-level system, joined with blank lines', () => {
    const { system, messages } = toWireMessages([
      { role: 'system', content: 'You trade power.' },
      { role: 'user', content: 'Price?' },
      { role: 'system', content: 'Answer in EUR.' },
    ]);
    assert.equal(system, 'You trade power.\n\nAnswer in EUR.');
    assert.deepEqual(messages, [{ role: 'user', content: [{ type: 'text', text: 'Price?' }] }]);
  });

  it('merges parallel tool results and the next user message into one user turn, results first', () => {
    const conversation: Message[] = [
      { role: 'user', content: 'Compare DE and FR.' },
      {
        role: 'assistant',
        content: 'Checking both.',
        toolCalls: [
          { id: 'toolu_a', name: 'get_spot_price', arguments: '{"area":"DE-LU"}' },
          { id: 'toolu_b', name: 'get_spot_price', arguments: '{"area":"FR"}' },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_a', name: 'get_spot_price', content: '87.4' },
      { role: 'tool', toolCallId: 'toolu_b', name: 'get_spot_price', content: '91.2' },
      { role: 'user', content: 'And in GBP?' },
    ];
    assert.deepEqual(toWireMessages(conversation).messages, [
      { role: 'user', content: [{ type: 'text', text: 'Compare DE and FR.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_use', id: 'toolu_a', name: 'get_spot_price', input: { area: 'DE-LU' } },
          { type: 'tool_use', id: 'toolu_b', name: 'get_spot_price', input: { area: 'FR' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '87.4' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '91.2' },
          { type: 'text', text: 'And in GBP?' },
        ],
      },
    ]);
  });

  it('puts tool results first even when user text came before them', () => {
    const { messages } = toWireMessages([
      { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'f', arguments: '{}' }] },
      { role: 'user', content: 'hurry' },
      { role: 'tool', toolCallId: 't1', name: 'f', content: 'ok' },
    ]);
    assert.deepEqual(
      messages[1]?.content.map((b) => b.type),
      ['tool_result', 'text'],
    );
  });

  it('sends no empty text blocks and no empty turns', () => {
    const { messages } = toWireMessages([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '' },
      { role: 'user', content: '' },
      { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'f', arguments: '{}' }] },
      { role: 'tool', toolCallId: 't1', name: 'f', content: '' },
    ]);
    assert.deepEqual(messages, [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1' }] },
    ]);
  });

  it('turns arguments text into the input object, and a broken call into {} without throwing', () => {
    assert.deepEqual(inputOf('{"area":"DE-LU","hours":[14,15]}'), { area: 'DE-LU', hours: [14, 15] });
    assert.deepEqual(inputOf(`{'area': 'DE'`), {});
    assert.deepEqual(inputOf('[1,2]'), {});
    assert.deepEqual(inputOf('"text"'), {});
    assert.deepEqual(inputOf(''), {});
    // Keys with escapes survive (core parseJson, not the affected JSON.parse path).
    assert.deepEqual(Object.keys(inputOf('{"\\\\":1}')), ['\\']);
  });

  it('sends the thinking blocks kept in providerData back first, skipping malformed entries', () => {
    const providerData = {
      anthropic: {
        thinking: [
          { type: 'thinking', thinking: 'Need the DE price.', signature: 'sig-1' },
          { type: 'thinking', thinking: 'no signature' },
          { type: 'redacted_thinking', data: 'EmwKAhgB' },
          { type: 'redacted_thinking' },
          'junk',
          null,
        ],
      },
    };
    const { messages } = toWireMessages([
      { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 't1', name: 'f', arguments: '{}' }], providerData },
    ]);
    assert.deepEqual(messages[0]?.content, [
      { type: 'thinking', thinking: 'Need the DE price.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'EmwKAhgB' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 't1', name: 'f', input: {} },
    ]);
    assert.deepEqual(thinkingBlocksOf({ anthropic: { thinking: 'not a list' } }), []);
    assert.deepEqual(thinkingBlocksOf({ openai: {} }), []);
    assert.deepEqual(thinkingBlocksOf(undefined), []);
  });
});

describe('toWireBody', () => {
  it('always sends max_tokens: the request wins, else the configured default, else 4096', () => {
    assert.equal(toWireBody({ model: 'm', request: ask() })['max_tokens'], DEFAULT_ANTHROPIC_MAX_TOKENS);
    assert.equal(DEFAULT_ANTHROPIC_MAX_TOKENS, 4096);
    assert.equal(toWireBody({ model: 'm', request: ask(), maxTokens: 1000 })['max_tokens'], 1000);
    assert.equal(toWireBody({ model: 'm', request: ask({ maxTokens: 64 }), maxTokens: 1000 })['max_tokens'], 64);
  });

  it('maps tools, adds type object to a schema without one, and maps tool_choice', () => {
    const tools = [
      {
        name: 'get_spot_price',
        description: 'Day-ahead price',
        parameters: { type: 'object', properties: { area: { type: 'string' } } },
      },
      { name: 'ping', description: '', parameters: { properties: {} } },
    ];
    const body = toWireBody({
      model: 'claude-sonnet-4-5',
      request: ask({ tools, toolChoice: 'required', temperature: 0 }),
    });
    assert.deepEqual(body, {
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Price?' }] }],
      tools: [
        {
          name: 'get_spot_price',
          description: 'Day-ahead price',
          input_schema: { type: 'object', properties: { area: { type: 'string' } } },
        },
        { name: 'ping', input_schema: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'any' },
      temperature: 0,
    });
    assert.deepEqual(toWireBody({ model: 'm', request: ask({ tools, toolChoice: 'auto' }) })['tool_choice'], {
      type: 'auto',
    });
    assert.deepEqual(toWireBody({ model: 'm', request: ask({ tools, toolChoice: 'none' }) })['tool_choice'], {
      type: 'none',
    });
    assert.equal(toWireBody({ model: 'm', request: ask({ tools }) })['tool_choice'], undefined);
  });

  it('sends neither tools nor tool_choice when no tools are offered', () => {
    const body = toWireBody({ model: 'm', request: ask({ toolChoice: 'required' }) });
    assert.deepEqual(Object.keys(body).sort(), ['max_tokens', 'messages', 'model']);
  });

  it('thinking: sends the budget, keeps max_tokens above it, drops temperature and forced tool use', () => {
    const tools = [{ name: 'f', description: 'f', parameters: { type: 'object' } }];
    const body = toWireBody({
      model: 'm',
      request: ask({ temperature: 0.3, tools, toolChoice: 'required' }),
      thinking: { budgetTokens: 8000 },
    });
    assert.deepEqual(body['thinking'], { type: 'enabled', budget_tokens: 8000 });
    assert.equal(body['max_tokens'], 8000 + 4096);
    assert.equal(body['temperature'], undefined);
    assert.deepEqual(body['tool_choice'], { type: 'auto' });
    assert.equal(
      toWireBody({ model: 'm', request: ask({ maxTokens: 2000 }), maxTokens: 1500, thinking: { budgetTokens: 2000 } })[
        'max_tokens'
      ],
      3500,
    );
    assert.equal(
      toWireBody({ model: 'm', request: ask({ maxTokens: 20_000 }), thinking: { budgetTokens: 2000 } })['max_tokens'],
      20_000,
    );
  });

  it(
    'does not send responseFormat (output_config takes only ' +
      'closed schemas), streams when asked, and merges extraBody last',
    () => {
      const schema = { type: 'object', properties: { tool_calls: { type: 'array' } }, additionalProperties: false };
      const body = toWireBody({
        model: 'm',
        request: ask({ stream: true, responseFormat: { type: 'json_schema', name: 'tool_calls', schema } }),
        extraBody: { top_k: 5, max_tokens: 77 },
      });
      assert.equal(body['output_config'], undefined);
      assert.equal(body['stream'], true);
      assert.equal(body['top_k'], 5);
      assert.equal(body['max_tokens'], 77);
      assert.equal(toWireBody({ model: 'm', request: ask() })['stream'], undefined);
    },
  );

  it(
    'maps call ids from other providers to the pattern the ' + 'API accepts, the same way in tool_use and tool_result',
    () => {
      const { messages } = toWireMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call.1:x', name: 't', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'call.1:x', name: 't', content: 'ok' },
      ]);
      assert.deepEqual(messages[1]?.content, [{ type: 'tool_use', id: 'call_1_x', name: 't', input: {} }]);
      assert.deepEqual(messages[2]?.content, [{ type: 'tool_result', tool_use_id: 'call_1_x', content: 'ok' }]);
    },
  );
});

describe('toWireBodyText', () => {
  it('parses to what the body object serialises to: tools, tool_choice with and without thinking, extraBody', () => {
    const tools = [
      {
        name: 'quote',
        description: 'Quote a price',
        parameters: { type: 'object', properties: { area: { type: 'string' } } },
      },
      { name: 'bare', description: '', parameters: { properties: {} } },
    ];
    const base: ModelRequest = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Price?' },
      ],
      tools: [],
      stream: true,
    };
    const cases: Parameters<typeof toWireBody>[0][] = [
      { model: 'claude', request: base },
      { model: 'claude', request: { ...base, tools, toolChoice: 'required' } },
      { model: 'claude', request: { ...base, tools, toolChoice: 'required' }, thinking: { budgetTokens: 2048 } },
      { model: 'claude', request: { ...base, tools }, extraBody: { top_k: 5 } },
      { model: 'claude', request: { ...base, tools }, extraBody: { tools: [] } },
    ];
    for (const input of cases)
      assert.deepEqual(JSON.parse(toWireBodyText(input)), JSON.parse(JSON.stringify(toWireBody(input))));
  });
});
