import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import type { Message } from '../../core/messages.ts';
import type { ModelAdapter, ModelRequest, ModelResponse, ModelToolDefinition } from '../../core/ports/model-adapter.ts';
import { estimatedTokens } from '../../core/usage.ts';
import { estimateUsage, missingCounts, withEstimatedUsage } from './estimate-usage.ts';
import { loadTokenCounter, type CountTokens } from './token-counter.ts';

const count = await loadTokenCounter();

const spotPrice: ModelToolDefinition = {
  name: 'get_spot_price',
  description: 'Day-ahead price for an area.',
  parameters: { type: 'object', properties: { area: { type: 'string' } }, required: ['area'] },
};

function request(tools: ModelToolDefinition[] = []): ModelRequest {
  const messages: Message[] = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'What is the price for DE-LU?' },
  ];
  return { messages, tools, stream: false };
}

const answer = (usage?: ModelResponse['usage']): ModelResponse => ({
  text: 'The price is 87.40 €/MWh.',
  toolCalls: [],
  finishReason: 'stop',
  ...(usage === undefined ? {} : { usage }),
});

// Token counts in cl100k_base: "You are terse." 4, "What is the price for DE-LU?" 9, "The price is 87.40 €/MWh." 12,
// the tool definition as JSON 36, "Looking it up." 4, "Thinking about areas." 4, "get_spot_price" 3, '{"area":"DE-LU"}'
// 7.
const PROMPT = 3 + (3 + 4) + (3 + 9);

describe('estimateUsage', () => {
  it('counts the request and the answer when the provider reported nothing, and marks the usage estimated', () => {
    assert.deepEqual(estimateUsage({ request: request(), response: answer(), count }), {
      promptTokens: PROMPT,
      completionTokens: 12,
      totalTokens: PROMPT + 12,
      estimated: true,
    });
  });

  it('counts the tool definitions sent, and the reasoning and tool calls of the answer', () => {
    const response: ModelResponse = {
      text: 'Looking it up.',
      reasoning: 'Thinking about areas.',
      toolCalls: [{ id: 'c1', name: 'get_spot_price', arguments: '{"area":"DE-LU"}' }],
      finishReason: 'tool_calls',
    };
    const usage = estimateUsage({ request: request([spotPrice]), response, count });
    assert.deepEqual(usage, {
      promptTokens: PROMPT + 36,
      completionTokens: 4 + 4 + 3 + 7,
      totalTokens: PROMPT + 36 + 18,
      estimated: true,
    });
  });

  it('counts earlier turns: an assistant message with its calls, a tool result with its name', () => {
    const base = request();
    const later: ModelRequest = {
      ...base,
      messages: [
        ...base.messages,
        {
          role: 'assistant',
          content: 'Looking it up.',
          toolCalls: [{ id: 'c1', name: 'get_spot_price', arguments: '{"area":"DE-LU"}' }],
        },
        { role: 'tool', toolCallId: 'c1', name: 'get_spot_price', content: 'The price is 87.40 €/MWh.' },
      ],
    };
    const usage = estimateUsage({ request: later, response: answer(), count });
    assert.equal(usage?.promptTokens, PROMPT + (3 + 4 + 3 + 7) + (3 + 12 + 3));
  });

  it('keeps what the provider reported and estimates only the count it left out (partial usage)', () => {
    // Prompt tokens only (completion_tokens missing or 0 for an answer that has text); cache counts kept.
    const promptOnly = estimateUsage({
      request: request(),
      response: answer({ promptTokens: 500, completionTokens: 0, totalTokens: 500, cacheReadTokens: 100 }),
      count,
    });
    assert.deepEqual(promptOnly, {
      promptTokens: 500,
      completionTokens: 12,
      totalTokens: 512,
      cacheReadTokens: 100,
      estimated: true,
      estimatedOnly: 'completionTokens',
    });
    // Ollama leaves prompt_eval_count out for a prompt it had cached: the prompt is counted here.
    const completionOnly = estimateUsage({
      request: request(),
      response: answer({ promptTokens: 0, completionTokens: 20, totalTokens: 20 }),
      count,
    });
    assert.deepEqual(completionOnly, {
      promptTokens: PROMPT,
      completionTokens: 20,
      totalTokens: PROMPT + 20,
      estimated: true,
      estimatedOnly: 'promptTokens',
    });
    assert.deepEqual(estimatedTokens(promptOnly ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 }), {
      promptTokens: 0,
      completionTokens: 12,
    });
    assert.deepEqual(estimatedTokens(completionOnly ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 }), {
      promptTokens: PROMPT,
      completionTokens: 0,
    });
  });

  it('leaves usage the provider reported in full exactly as it is', () => {
    const reported = { promptTokens: 420, completionTokens: 31, totalTokens: 451, cacheReadTokens: 12 };
    assert.equal(estimateUsage({ request: request(), response: answer(reported), count }), reported);
    // An empty answer really is 0 tokens of completion.
    const empty: ModelResponse = {
      text: '',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 40, completionTokens: 0, totalTokens: 40 },
    };
    assert.deepEqual(missingCounts(request(), empty), { prompt: false, completion: false });
  });
});

function model(response: ModelResponse, onRequest: () => void = () => undefined): ModelAdapter {
  return {
    id: 'local:m',
    generate() {
      onRequest();
      return Promise.resolve(response);
    },
  };
}

describe('withEstimatedUsage', () => {
  it('loads the tokenizer at the first answer without usage, never for answers with it', async () => {
    let loads = 0;
    const loadCounter = (): Promise<CountTokens> => {
      loads += 1;
      return Promise.resolve(count);
    };
    const reported = { promptTokens: 10, completionTokens: 2, totalTokens: 12 };
    const full = withEstimatedUsage(model(answer(reported)), { loadCounter });
    assert.equal(full.id, 'local:m');
    assert.deepEqual((await full.generate(request())).usage, reported);
    assert.equal(loads, 0);
    const bare = withEstimatedUsage(model(answer()), { loadCounter });
    assert.deepEqual((await bare.generate(request())).usage, {
      promptTokens: PROMPT,
      completionTokens: 12,
      totalTokens: PROMPT + 12,
      estimated: true,
    });
    assert.equal(loads, 1);
  });

  it('tokenizes each message and tool definition once, however many steps send it again', async () => {
    const texts: string[] = [];
    const spy: CountTokens = (text) => {
      texts.push(text);
      return count(text);
    };
    const wrapped = withEstimatedUsage(model(answer()), { loadCounter: () => Promise.resolve(spy) });
    const first = request([spotPrice]);
    await wrapped.generate(first);
    const seen = texts.length;
    const second: ModelRequest = {
      ...first,
      messages: [...first.messages, { role: 'user', content: 'And tomorrow?' }],
    };
    const usage = (await wrapped.generate(second)).usage;
    // Only the new message and the answer were tokenized for the second request.
    assert.deepEqual(texts.slice(seen), ['And tomorrow?', 'The price is 87.40 €/MWh.', '']);
    assert.equal(usage?.promptTokens, PROMPT + 36 + 3 + count('And tomorrow?'));
  });

  it('wraps once, and passes a failed call through untouched', async () => {
    const failing: ModelAdapter = {
      id: 'x:y',
      generate: () => Promise.reject(new ToolgateError('model_unavailable', 'down')),
    };
    const wrapped = withEstimatedUsage(failing);
    assert.equal(withEstimatedUsage(wrapped), wrapped);
    await assert.rejects(wrapped.generate(request()), { code: 'model_unavailable', message: 'down' });
  });
});
