import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { parseJson } from '../../core/parse-json.ts';
import { finishReasonOf, parseMessage, toUsage } from './from-wire.ts';
import { toWireMessages } from './to-wire.ts';

const url = 'https://api.anthropic.com/v1/messages';

/** A Messages API answer with thinking, text and two tool_use blocks, as the API sends it. */
const TOOL_USE_MESSAGE =
  `{
  "id": "msg_01Aq9w938a90dw8q",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-5-20250929",
  "content": [
    {"type": "thinking", "thinking": "The user wants both areas. ` +
  `", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pk"},
    {"type": "redacted_thinking", "data": ` +
  (`"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"},
    {"type": "text", "text": "I'll check both areas."},
    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", ` +
    (`"name": "get_spot_price", "input": {"area": "DE-LU", "hour": 14}},
    {"type": "tool_use", "id": "toolu_01B77c2mx0pq8s7d1kf0e3hz", ` +
      `"name": "get_spot_price", "input": {"area": "FR", "hour": 14}}
  ],
  "stop_reason": "tool_use",
  "stop_sequence": null,
  "usage": {"input_tokens": 472, "cache_creation_input_tokens": 2048, `)) +
  `"cache_read_input_tokens": 1024, "output_tokens": 156, "service_tier": "standard"}
}`;

describe('parseMessage', () => {
  it(
    'reads text, tool_use input as arguments text, thinking ' +
      'as reasoning and providerData, usage with cache tokens',
    () => {
      const result = parseMessage(parseJson(TOOL_USE_MESSAGE), { url });
      assert.equal(result.text, "I'll check both areas.");
      assert.deepEqual(result.toolCalls, [
        { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_spot_price', arguments: '{"area":"DE-LU","hour":14}' },
        { id: 'toolu_01B77c2mx0pq8s7d1kf0e3hz', name: 'get_spot_price', arguments: '{"area":"FR","hour":14}' },
      ]);
      assert.equal(result.finishReason, 'tool_calls');
      assert.equal(result.reasoning, 'The user wants both areas. ');
      assert.deepEqual(result.providerData, {
        anthropic: {
          thinking: [
            {
              type: 'thinking',
              thinking: 'The user wants both areas. ',
              signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pk',
            },
            {
              type: 'redacted_thinking',
              data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj',
            },
          ],
        },
      });
      assert.deepEqual(result.usage, {
        promptTokens: 472 + 2048 + 1024,
        completionTokens: 156,
        totalTokens: 472 + 2048 + 1024 + 156,
        cacheReadTokens: 1024,
        cacheWriteTokens: 2048,
      });
    },
  );

  it('round trip: the providerData of an answer goes back as the same blocks, before the tool_use blocks', () => {
    const result = parseMessage(parseJson(TOOL_USE_MESSAGE), { url });
    const { messages } = toWireMessages([
      {
        role: 'assistant',
        content: result.text,
        toolCalls: result.toolCalls,
        ...(result.providerData === undefined ? {} : { providerData: result.providerData }),
      },
    ]);
    const original = (parseJson(TOOL_USE_MESSAGE) as { content: unknown[] }).content;
    assert.deepEqual(messages[0]?.content, original);
  });

  it('concatenates several text blocks and leaves out reasoning, providerData and cache counts it did not get', () => {
    const result = parseMessage(
      {
        type: 'message',
        content: [
          { type: 'text', text: 'The price is ' },
          { type: 'text', text: '€87.40.' },
        ],
        stop_reason: 'end_turn',
        usage: { input_tokens: 20, output_tokens: 9, cache_read_input_tokens: 0 },
      },
      { url },
    );
    assert.deepEqual(result, {
      text: 'The price is €87.40.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 20, completionTokens: 9, totalTokens: 29 },
    });
  });

  it('passes a tool call with an empty input on as "{}" and gives a call without id one', () => {
    const result = parseMessage(
      { content: [{ type: 'tool_use', name: 'list_orders', input: {} }], stop_reason: 'tool_use' },
      { url },
    );
    assert.equal(result.toolCalls[0]?.arguments, '{}');
    assert.match(result.toolCalls[0]?.id ?? '', /^toolu_/);
  });

  it('ignores block types it does not know (server tools, results)', () => {
    const result = parseMessage(
      {
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
          { type: 'web_search_tool_result', content: [] },
          { type: 'text', text: 'ok' },
        ],
        stop_reason: 'end_turn',
      },
      { url },
    );
    assert.deepEqual(result.toolCalls, []);
    assert.equal(result.text, 'ok');
  });

  it('refuses a body that is not a message, and more tool calls than maxToolCalls', () => {
    assert.throws(
      () => parseMessage({ choices: [] }, { url }),
      (e: unknown) =>
        e instanceof ToolgateError && e.code === 'model_error' && /not a Messages API message/.test(e.message),
    );
    const two = parseJson(TOOL_USE_MESSAGE);
    assert.throws(
      () => parseMessage(two, { url, maxToolCalls: 1, provider: 'claude' }),
      (e: unknown) =>
        e instanceof ToolgateError &&
        e.code === 'model_error' &&
        /maxToolCalls.*providers\.claude\.maxToolCalls/.test(e.message),
    );
  });
});

describe('finishReasonOf', () => {
  it('maps the stop reasons and passes others through', () => {
    assert.equal(finishReasonOf('end_turn', 0), 'stop');
    assert.equal(finishReasonOf('stop_sequence', 0), 'stop');
    assert.equal(finishReasonOf('tool_use', 1), 'tool_calls');
    assert.equal(finishReasonOf('max_tokens', 1), 'length');
    assert.equal(finishReasonOf('refusal', 0), 'content_filter');
    assert.equal(finishReasonOf('pause_turn', 0), 'pause_turn');
    assert.equal(finishReasonOf('model_context_window_exceeded', 0), 'model_context_window_exceeded');
    assert.equal(finishReasonOf(null, 2), 'tool_calls');
    assert.equal(finishReasonOf(undefined, 0), 'stop');
  });
});

describe('toUsage', () => {
  it('counts cached input in promptTokens and reports nothing when nothing was reported', () => {
    assert.deepEqual(toUsage({ input: 10, cacheRead: 90, output: 5 }), {
      promptTokens: 100,
      completionTokens: 5,
      totalTokens: 105,
      cacheReadTokens: 90,
    });
    assert.equal(toUsage({}), undefined);
  });
});
