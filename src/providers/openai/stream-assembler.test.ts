import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { SseParser } from '../shared/sse-reader.ts';
import { parseCompletion } from './from-wire.ts';
import { StreamAssembler } from './stream-assembler.ts';

const FIXTURES = new URL('../../../test/fixtures/openai-wire/', import.meta.url);

function assemble(fixture: string): { deltas: string[]; assembler: StreamAssembler } {
  const deltas: string[] = [];
  const assembler = new StreamAssembler({ onTextDelta: (t) => deltas.push(t) });
  const parser = new SseParser();
  const text = readFileSync(new URL(fixture, FIXTURES), 'utf8');
  for (const event of [...parser.push(text), ...parser.end()]) {
    if (event.data === '[DONE]') break;
    assembler.push(JSON.parse(event.data));
  }
  return { deltas, assembler };
}

function delta(d: Record<string, unknown>, finish: string | null = null): unknown {
  return { choices: [{ index: 0, delta: d, finish_reason: finish }] };
}

describe('StreamAssembler on recorded streams', () => {
  it('OpenAI parallel tool calls: fragments joined per index, ids and names from the first delta', () => {
    const result = assemble('openai-stream-parallel-tool-calls.sse').assembler.finish();
    assert.deepEqual(result.toolCalls, [
      {
        id: 'call_Xq3PmWvB7nLk2sJd9Rt4YhUe',
        name: 'get_spot_price',
        arguments: '{"area":"DE-LU","delivery_hour":"2025-03-14T14:00Z"}',
      },
      {
        id: 'call_b8Hn2QkTzVx5MwLp0Gc6AfRs',
        name: 'get_spot_price',
        arguments: '{"area":"FR","delivery_hour":"2025-03-14T14:00Z"}',
      },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
    assert.equal(result.text, '');
    assert.deepEqual(result.usage, { promptTokens: 214, completionTokens: 58, totalTokens: 272 });
  });

  it('OpenAI text: deltas in order, concatenation equals the final text', () => {
    const { deltas, assembler } = assemble('openai-stream-text-usage.sse');
    const result = assembler.finish();
    assert.equal(result.text, 'The day-ahead price for DE-LU at 14:00 is €87.40/MWh. Shall I place a buy order?');
    assert.equal(deltas.join(''), result.text);
    assert.equal(deltas.length, 24);
    assert.equal(result.finishReason, 'stop');
    assert.deepEqual(result.usage, { promptTokens: 301, completionTokens: 24, totalTokens: 325 });
    assert.equal(assembler.delivered, true);
  });

  it('Ollama: a whole tool call in one chunk, finish_reason "stop" kept as the provider said', () => {
    const result = assemble('ollama-stream-tool-call.sse').assembler.finish();
    assert.deepEqual(result.toolCalls, [
      {
        id: 'call_k3b1x8zq',
        name: 'get_spot_price',
        arguments: '{"area":"DE-LU","delivery_hour":"2025-03-14T14:00Z"}',
      },
    ]);
    assert.equal(result.finishReason, 'stop');
    assert.deepEqual(result.usage, { promptTokens: 187, completionTokens: 31, totalTokens: 218 });
  });

  it('vLLM: text preamble then a tool call whose first delta has no arguments field', () => {
    const { deltas, assembler } = assemble('vllm-stream-tool-call.sse');
    const result = assembler.finish();
    assert.equal(result.text, 'Let me check the order book.');
    assert.equal(deltas.join(''), result.text);
    assert.deepEqual(result.toolCalls, [
      {
        id: 'chatcmpl-tool-3b9e1f6a2c8d4e07a5b1c9d3e7f2a6b4',
        name: 'get_order_book',
        arguments: '{"area": "NL", "product": "hourly", "depth": 10}',
      },
    ]);
    assert.deepEqual(result.usage, { promptTokens: 412, completionTokens: 43, totalTokens: 455 });
  });

  it('llama.cpp: malformed, truncated arguments are handed on byte for byte', () => {
    const result = assemble('llamacpp-stream-malformed-args.sse').assembler.finish();
    assert.equal(result.toolCalls.length, 1);
    assert.equal(result.toolCalls[0]?.arguments, `{'area': 'DE-LU', "side": "buy", "volume_mw": 5,, "limit_price": 8`);
    assert.equal(result.finishReason, 'length');
    assert.deepEqual(result.usage, { promptTokens: 356, completionTokens: 32, totalTokens: 388 });
  });

  it('OpenRouter: comments skipped, usage from the extra last chunk', () => {
    const result = assemble('openrouter-stream-comments.sse').assembler.finish();
    assert.equal(result.text, 'Bonjour — the market is open.');
    assert.deepEqual(result.usage, { promptTokens: 95, completionTokens: 9, totalTokens: 104 });
  });

  it('DeepSeek reasoner: reasoning_content is not answer text', () => {
    const { deltas, assembler } = assemble('deepseek-stream-reasoning.sse');
    assert.equal(assembler.finish().text, '87.40 €/MWh');
    assert.deepEqual(deltas, ['87', '.40', ' €/MWh']);
  });

  it('an in-stream error object becomes model_error with the provider message', () => {
    assert.throws(
      () => assemble('openrouter-stream-midstream-error.sse'),
      (e: unknown) =>
        e instanceof ToolgateError &&
        e.code === 'model_error' &&
        e.message.includes('Provider disconnected unexpectedly'),
    );
  });

  it('reasoning deltas (reasoning_content or reasoning) are collected apart from the text and never shown', () => {
    const deltas: string[] = [];
    const assembler = new StreamAssembler({ onTextDelta: (t) => deltas.push(t) });
    assembler.push(delta({ role: 'assistant', reasoning_content: 'The user wants ' }));
    assembler.push(delta({ reasoning_content: 'the weather.' }));
    assembler.push(delta({ content: 'Sunny.' }, 'stop'));
    const result = assembler.finish();
    assert.equal(result.reasoning, 'The user wants the weather.');
    assert.equal(result.text, 'Sunny.');
    assert.deepEqual(deltas, ['Sunny.']);
    const ollama = new StreamAssembler();
    ollama.push(delta({ reasoning: 'Thinking.' }, 'stop'));
    assert.equal(ollama.finish().reasoning, 'Thinking.');
    const none = new StreamAssembler();
    none.push(delta({ content: 'x' }, 'stop'));
    assert.equal(none.finish().reasoning, undefined);
  });

  it('non-streaming: reasoning_content (or reasoning) becomes the response reasoning', () => {
    const message = (m: Record<string, unknown>) => ({
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok', ...m }, finish_reason: 'stop' }],
    });
    assert.equal(parseCompletion(message({ reasoning_content: 'R1 thinks.' }), { url: 'u' }).reasoning, 'R1 thinks.');
    assert.equal(parseCompletion(message({ reasoning: 'Ollama thinks.' }), { url: 'u' }).reasoning, 'Ollama thinks.');
    assert.equal(parseCompletion(message({ reasoning_content: null }), { url: 'u' }).reasoning, undefined);
  });
});

describe('StreamAssembler quirks', () => {
  it('generates an id for a tool call that arrives without one', () => {
    const a = new StreamAssembler();
    a.push(delta({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] }, 'tool_calls'));
    const [call] = a.finish().toolCalls;
    assert.match(call?.id ?? '', /^call_[0-9a-f]{24}$/);
    assert.equal(call?.name, 'f');
  });

  it('without index: a new id opens a call, deltas without id continue the last one', () => {
    const a = new StreamAssembler();
    a.push(delta({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{"x"' } }] }));
    a.push(delta({ tool_calls: [{ function: { arguments: ':1}' } }] }));
    a.push(delta({ tool_calls: [{ id: 'b', function: { name: 'g', arguments: '{}' } }] }));
    assert.deepEqual(a.finish().toolCalls, [
      { id: 'a', name: 'f', arguments: '{"x":1}' },
      { id: 'b', name: 'g', arguments: '{}' },
    ]);
  });

  it('two calls both numbered index 0 but with different ids stay two calls', () => {
    const a = new StreamAssembler();
    a.push(delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }));
    a.push(delta({ tool_calls: [{ index: 0, id: 'b', function: { name: 'g', arguments: '{"y":2}' } }] }));
    assert.deepEqual(
      a.finish().toolCalls.map((c) => [c.id, c.name, c.arguments]),
      [
        ['a', 'f', '{}'],
        ['b', 'g', '{"y":2}'],
      ],
    );
  });

  it('a repeated name or id in later deltas does not duplicate them', () => {
    const a = new StreamAssembler();
    a.push(delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"q":' } }] }));
    a.push(delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '"v"}' } }] }));
    assert.deepEqual(a.finish().toolCalls, [{ id: 'a', name: 'f', arguments: '{"q":"v"}' }]);
  });

  it('arguments sent as an object are serialised once', () => {
    const a = new StreamAssembler();
    a.push(delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: { n: 1 } } }] }));
    assert.equal(a.finish().toolCalls[0]?.arguments, '{"n":1}');
  });

  it('finish reason defaults from the content when the provider sends none', () => {
    const a = new StreamAssembler();
    a.push(delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '' } }] }));
    assert.equal(a.finished, false);
    assert.equal(a.finish().finishReason, 'tool_calls');
    const b = new StreamAssembler();
    b.push(delta({ content: 'hi' }));
    assert.equal(b.finish().finishReason, 'stop');
  });

  it('without a text callback nothing counts as delivered', () => {
    const a = new StreamAssembler();
    a.push(delta({ content: 'hi' }));
    assert.equal(a.delivered, false);
    assert.equal(a.finish().text, 'hi');
  });
});

describe('StreamAssembler bounds', () => {
  it('refuses more tool calls than maxToolCalls, with or without indexes', () => {
    const indexed = new StreamAssembler({ maxToolCalls: 3 });
    for (let i = 0; i < 3; i += 1)
      indexed.push(delta({ tool_calls: [{ index: i, id: `c${i}`, function: { name: 'f', arguments: '{}' } }] }));
    assert.throws(
      () => indexed.push(delta({ tool_calls: [{ index: 3, id: 'c3', function: { name: 'f', arguments: '{}' } }] })),
      (e: unknown) =>
        e instanceof ToolgateError &&
        e.code === 'model_error' &&
        /maxToolCalls.*providers\.openai\.maxToolCalls/.test(e.message),
    );
    const byId = new StreamAssembler({ maxToolCalls: 3 });
    assert.throws(() => {
      for (let i = 0; i < 4; i += 1)
        byId.push(delta({ tool_calls: [{ id: `c${i}`, function: { name: 'f', arguments: '{}' } }] }));
    }, /maxToolCalls/);
  });

  it('a chunk or an error nested far too deep is model_error, not a stack overflow', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 20_000; i += 1) deep = [deep];
    const isModelError = (e: unknown): boolean => e instanceof ToolgateError && e.code === 'model_error';
    assert.throws(() => new StreamAssembler().push(deep), isModelError);
    assert.throws(() => new StreamAssembler().push({ error: { detail: deep } }), isModelError);
    assert.throws(
      () =>
        new StreamAssembler().push(
          delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: { a: deep } } }] }),
        ),
      (e: unknown) => isModelError(e) && /arguments/.test((e as Error).message),
    );
  });
});
