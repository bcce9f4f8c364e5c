// Messy model output end to end: prompted tool mode, calls written as text,
// broken native arguments, retry with feedback — real adapter, mock model,
// the power-exchange example as a real MCP server process.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Toolgate } from '../../src/app/toolgate.ts';
import type { ToolgateConfig } from '../../src/config/config-schema.ts';
import { resolveSettings, type SettingsFlags } from '../../src/config/resolve-settings.ts';
import { ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER } from '../support/processes.ts';

function toolgateFor(mock: MockOpenAI, config: Partial<ToolgateConfig> = {}, flags: SettingsFlags = {}): Toolgate {
  const settings = resolveSettings(
    {
      model: 'openai:small-local-model',
      providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
      servers: { 'power-exchange': { command: process.execPath, args: [POWER_EXCHANGE_SERVER] } },
      ...config,
    },
    flags,
    {},
  );
  return new Toolgate({ settings });
}

type Body = {
  messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
  tools?: unknown[];
  response_format?: { type: string };
};

function body(mock: MockOpenAI, index: number): Body {
  return mock.requests[index]?.body as Body;
}

describe('messy models e2e', () => {
  let mock: MockOpenAI;
  before(async () => {
    mock = await startMockOpenAI();
  });
  after(() => mock.close());

  it(
    'prompted mode completes a multi-step task: tools described ' +
      'in the prompt, calls read from text, results sent back as text',
    async () => {
      const first = mock.requests.length;
      mock.enqueue(
        { text: 'Let me check the market.\n<tool_call>\n{"name": "getMarketMetrics", "arguments": {}}\n</tool_call>' },
        {
          text: 'Now the book:\n```json\n{"name": "getOrderBook", "arguments": {"depth": 2,}}  // top two levels\n```',
        },
        { text: 'The market is open and the book has bids and asks.' },
      );
      const toolgate = toolgateFor(mock, { toolMode: 'prompted' });
      try {
        const run = await toolgate.run({ input: 'How is the market?' });
        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        assert.equal(run.output, 'The market is open and the book has bids and asks.');
        const events = await toolgate.store.readEvents(run.id);
        assert.deepEqual(
          ofType(events, 'tool_result').map((e) => [e.data.name, e.data.ok]),
          [
            ['getMarketMetrics', true],
            ['getOrderBook', true],
          ],
        );
        assert.deepEqual(
          ofType(events, 'tool_call')[1]?.data.arguments,
          { depth: 2 },
          'the trailing comma and comment were repaired',
        );
        const request = body(mock, first);
        assert.equal(request.tools, undefined, 'no native tool definitions in prompted mode');
        assert.equal(request.messages[0]?.role, 'system');
        assert.match(request.messages[0]?.content ?? '', /getOrderBook/);
        assert.match(request.messages[0]?.content ?? '', /<tool_call>/);
        const third = body(mock, first + 2).messages;
        assert.ok(
          third.every((m) => m.role !== 'tool'),
          'tool results come back as user text',
        );
        assert.match(third.at(-1)?.content ?? '', /<tool_response name="getOrderBook"/);
        const shown = ofType(events, 'assistant_message')[0]?.data.content;
        assert.equal(shown, 'Let me check the market.', 'the envelope is not part of the text shown to the user');
        const deltas = ofType(events, 'assistant_delta')
          .filter((e) => e.data.step === 1)
          .map((e) => e.data.text)
          .join('');
        assert.doesNotMatch(deltas, /tool_call/, 'the envelope never streamed to the user');
      } finally {
        await toolgate.close();
      }
    },
  );

  it('a broken call is retried after precise feedback, and then succeeds', async () => {
    const first = mock.requests.length;
    mock.enqueue(
      { text: '<tool_call>{"name": "getOrderBok", "arguments": {"depth": 3}}</tool_call>' },
      { text: '<tool_call>{"name": "getOrderBook", "arguments": {"depth": 3}}</tool_call>' },
      { text: 'Done.' },
    );
    const toolgate = toolgateFor(mock, { toolMode: 'prompted' });
    try {
      const run = await toolgate.run({ input: 'book?' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const events = await toolgate.store.readEvents(run.id);
      const retries = ofType(events, 'parse_retry');
      assert.equal(retries.length, 1);
      assert.equal(retries[0]?.data.attempt, 1);
      assert.match(retries[0]?.data.feedback ?? '', /getOrderBok/);
      assert.match(retries[0]?.data.feedback ?? '', /getOrderBook/, 'the feedback names the closest real tool');
      const sent = body(mock, first + 1).messages.at(-1);
      assert.equal(sent?.role, 'user');
      assert.equal(sent?.content, retries[0]?.data.feedback, 'the model received exactly the recorded feedback');
      assert.equal(ofType(events, 'tool_result')[0]?.data.ok, true);
      assert.deepEqual(
        ofType(events, 'assistant_message').map((e) => [e.data.step, e.data.attempt]),
        [
          [1, 1],
          [1, 2],
          [2, 1],
        ],
      );
    } finally {
      await toolgate.close();
    }
  });

  it('broken turns beyond parseRetries fail the run with unparseable_tool_call; no tool is ever called', async () => {
    mock.enqueue(
      { text: '<tool_call>{"name": "getOrderBook", "arguments": {"depth": 3', finishReason: 'length' },
      { text: '<tool_call>{"name": "placeOrdr", "arguments": {}}</tool_call>' },
      { text: '<tool_call>{"name": "nothing_real", "arguments": {}}</tool_call>' },
    );
    const toolgate = toolgateFor(mock, { toolMode: 'prompted', parseRetries: 2 });
    try {
      const run = await toolgate.run({ input: 'book?' });
      assert.equal(run.status, 'failed');
      assert.equal(run.error?.code, 'unparseable_tool_call');
      const events = await toolgate.store.readEvents(run.id);
      assert.equal(ofType(events, 'assistant_message').length, 3, 'three broken turns');
      assert.equal(ofType(events, 'parse_retry').length, 2);
      assert.match(ofType(events, 'parse_retry')[0]?.data.feedback ?? '', /cut off|truncat/i);
      assert.equal(ofType(events, 'tool_call').length, 0);
    } finally {
      await toolgate.close();
    }
  });

  it('native mode: a malformed arguments string is repaired (with a diagnostic trail) and the call runs', async () => {
    mock.enqueue(
      { toolCalls: [{ id: 'n1', name: 'getOrderBook', arguments: "{'depth': 2, /* two levels */}" }] },
      { text: 'ok' },
    );
    const toolgate = toolgateFor(mock);
    try {
      const run = await toolgate.run({ input: 'book?' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const events = await toolgate.store.readEvents(run.id);
      assert.deepEqual(ofType(events, 'tool_call')[0]?.data.arguments, { depth: 2 });
      assert.equal(
        ofType(events, 'assistant_message')[0]?.data.toolCalls[0]?.arguments,
        "{'depth': 2, /* two levels */}",
        'the raw string is kept untouched in the log',
      );
    } finally {
      await toolgate.close();
    }
  });

  it('native mode: a model that writes its call as text (Hermes tags) still gets it executed', async () => {
    mock.enqueue(
      { text: '<tool_call>\n{"name": "getMarketMetrics", "arguments": {}}\n</tool_call>' },
      { text: 'fine' },
    );
    const toolgate = toolgateFor(mock);
    try {
      const run = await toolgate.run({ input: 'metrics?' });
      assert.equal(run.status, 'completed');
      const events = await toolgate.store.readEvents(run.id);
      const message = ofType(events, 'assistant_message')[0]?.data;
      assert.equal(message?.calls?.[0]?.name, 'getMarketMetrics');
      assert.equal(ofType(events, 'tool_result')[0]?.data.ok, true);
    } finally {
      await toolgate.close();
    }
  });

  it('native mode: a native name in Kimi form (functions.x:0) is cleaned, recorded and the call runs', async () => {
    mock.enqueue(
      { toolCalls: [{ id: 'k1', name: 'functions.getOrderBook:0', arguments: '{"depth": 1}' }] },
      { text: 'ok' },
    );
    const toolgate = toolgateFor(mock);
    try {
      const run = await toolgate.run({ input: 'book?' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const events = await toolgate.store.readEvents(run.id);
      const message = ofType(events, 'assistant_message')[0]?.data;
      assert.equal(message?.calls?.[0]?.name, 'getOrderBook');
      assert.equal(message?.toolCalls[0]?.name, 'functions.getOrderBook:0', 'the name as sent stays in the log');
      assert.match(JSON.stringify(message?.diagnostics), /stripped_name_index/);
      assert.deepEqual(
        ofType(events, 'tool_result').map((e) => [e.data.name, e.data.ok]),
        [['getOrderBook', true]],
      );
    } finally {
      await toolgate.close();
    }
  });

  it(
    'a reply that is only reasoning with a call at its end runs ' +
      'that call; the reasoning is kept in the log and never streamed',
    async () => {
      mock.enqueue(
        {
          reasoning:
            'The user wants the market state. I will call the tool.\n<tool_call>\n{"name": ' +
            '"getMarketMetrics", "arguments": {}}\n</tool_call>\n',
          text: '',
        },
        { text: 'The market is open.' },
      );
      const toolgate = toolgateFor(mock);
      try {
        const run = await toolgate.run({ input: 'market?' });
        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        assert.equal(run.output, 'The market is open.');
        const events = await toolgate.store.readEvents(run.id);
        const message = ofType(events, 'assistant_message')[0]?.data;
        assert.match(message?.reasoning ?? '', /I will call the tool/);
        assert.equal(message?.calls?.[0]?.name, 'getMarketMetrics');
        assert.match(JSON.stringify(message?.diagnostics), /call_in_reasoning/);
        assert.deepEqual(
          ofType(events, 'tool_result').map((e) => [e.data.name, e.data.ok]),
          [['getMarketMetrics', true]],
        );
        const deltas = ofType(events, 'assistant_delta')
          .map((e) => e.data.text)
          .join('');
        assert.doesNotMatch(deltas, /I will call|tool_call/);
      } finally {
        await toolgate.close();
      }
    },
  );

  it(
    'native mode, streamed: a Kimi-format call written as text ' +
      'runs, and none of its tokens reach the streamed answer',
    async () => {
      mock.enqueue(
        {
          text:
            '<|tool_calls_section_begin|><|tool_call_begin|>functio' +
            'ns.getOrderBook:0<|tool_call_argument_begin|>{"depth": ' +
            '1}<|tool_call_end|><|tool_calls_section_end|>',
        },
        { text: 'Done.' },
      );
      const toolgate = toolgateFor(mock);
      try {
        const run = await toolgate.run({ input: 'book?' });
        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        const events = await toolgate.store.readEvents(run.id);
        assert.deepEqual(
          ofType(events, 'tool_call').map((e) => [e.data.name, e.data.arguments]),
          [['getOrderBook', { depth: 1 }]],
        );
        const deltas = ofType(events, 'assistant_delta')
          .map((e) => e.data.text)
          .join('');
        assert.equal(deltas, 'Done.');
      } finally {
        await toolgate.close();
      }
    },
  );

  it('prose that only mentions a tool, or shows an example, is an answer, not a call', async () => {
    mock.enqueue({
      text:
        'You could call it like this, for example: {"name": "placeOrder", "arguments": {"userId": ' +
        '"alice", "side": "BUY", "price": 1, "qty": 1, "symbol": "DE-BASE-D+1"}} — but I will not.',
    });
    const toolgate = toolgateFor(mock, { toolMode: 'prompted' });
    try {
      const run = await toolgate.run({ input: 'how would I buy?' });
      assert.equal(run.status, 'completed');
      const events = await toolgate.store.readEvents(run.id);
      assert.equal(ofType(events, 'tool_call').length, 0);
      assert.equal(ofType(events, 'gate_decision').length, 0);
    } finally {
      await toolgate.close();
    }
  });

  it('auto mode falls back to prompted when the endpoint rejects tools', async () => {
    const first = mock.requests.length;
    mock.enqueue(
      {
        status: 400,
        body: {
          error: { message: 'registry.ollama.ai/library/phi3:latest does not support tools', type: 'api_error' },
        },
      },
      { text: '<tool_call>{"name": "getMarketMetrics", "arguments": {}}</tool_call>' },
      { text: 'ok' },
    );
    const toolgate = toolgateFor(mock, {}, { toolMode: 'auto' });
    try {
      const run = await toolgate.run({ input: 'metrics?' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      assert.ok(body(mock, first).tools !== undefined, 'first try: native tools');
      assert.equal(body(mock, first + 1).tools, undefined, 'then prompted');
      const events = await toolgate.store.readEvents(run.id);
      assert.equal(ofType(events, 'assistant_message')[0]?.data.toolMode, 'prompted');
    } finally {
      await toolgate.close();
    }
  });

  it('--constrain asks the endpoint for structured output in the call format', async () => {
    const first = mock.requests.length;
    mock.enqueue(
      { text: '{"tool_calls": [{"name": "getMarketMetrics", "arguments": {}}]}' },
      { text: '{"tool_calls": [], "answer": "all good"}' },
    );
    const toolgate = toolgateFor(mock, { toolMode: 'prompted', constrain: true });
    try {
      const run = await toolgate.run({ input: 'metrics?' });
      assert.equal(body(mock, first).response_format?.type, 'json_schema');
      const events = await toolgate.store.readEvents(run.id);
      assert.equal(ofType(events, 'tool_result')[0]?.data.name, 'getMarketMetrics');
      assert.equal(run.status, 'completed');
    } finally {
      await toolgate.close();
    }
  });
});
