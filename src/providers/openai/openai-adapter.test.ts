import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { ToolgateError, type ErrorCode } from '../../core/errors.ts';
import type { ModelAdapter, ModelRequest } from '../../core/ports/model-adapter.ts';
import { startMockOpenAI, type MockOpenAI, type MockResponse } from '../../../test/support/mock-openai-server.ts';
import { createOpenAIAdapter, type OpenAIAdapterOptions } from './openai-adapter.ts';

const FIXTURES = new URL('../../../test/fixtures/openai-wire/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');
/** A recorded body replayed in 7-byte writes, so network chunks cut lines and characters. */
const replay = (name: string, status = 200): MockResponse => ({ raw: fixture(name), status, chunkSize: 7 });
const errorFixture = (name: string, status: number, headers: Record<string, string> = {}): MockResponse => ({
  status,
  body: JSON.parse(fixture(name)) as unknown,
  headers,
});

const TOOLS = [
  {
    name: 'get_spot_price',
    description: 'Day-ahead price',
    parameters: { type: 'object', properties: { area: { type: 'string' } } },
  },
];
const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [
    { role: 'system', content: 'You trade power.' },
    { role: 'user', content: 'Price for DE-LU?' },
  ],
  tools: TOOLS,
  stream: true,
  ...over,
});

async function rejectsWith(promise: Promise<unknown>, code: ErrorCode, pattern?: RegExp): Promise<ToolgateError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (pattern !== undefined) assert.match(error.message, pattern);
    return error;
  }
  assert.fail(`expected a ${code} error`);
}

let mock: MockOpenAI;
const adapter = (over: Partial<OpenAIAdapterOptions> = {}): ModelAdapter =>
  createOpenAIAdapter({ model: 'gpt-4o-mini', baseUrl: mock.url, apiKey: 'sk-test', retryBaseDelayMs: 1, ...over });

before(async () => {
  mock = await startMockOpenAI();
});
after(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});
afterEach(() => {
  assert.equal(mock.remaining(), 0, 'the test left scripted responses unused');
});

describe('openai adapter: request on the wire', () => {
  it('sends messages, tools, tool_choice, stream flags and auth to POST {baseUrl}/chat/completions', async () => {
    mock.enqueue({ text: 'ok' });
    const model = createOpenAIAdapter({
      model: 'qwen2.5:7b',
      baseUrl: `${mock.url}/`,
      apiKey: 'sk-test',
      headers: { 'X-Title': 'toolgate-test' },
      extraBody: { top_p: 0.5 },
    });
    assert.equal(model.id, 'openai:qwen2.5:7b');
    await model.generate(ask({ toolChoice: 'auto', temperature: 0, maxTokens: 64 }));
    assert.equal(mock.requests.length, 1);
    const [req] = mock.requests;
    assert.equal(req?.method, 'POST');
    assert.equal(req?.path, '/v1/chat/completions');
    assert.equal(req?.headers.authorization, 'Bearer sk-test');
    assert.equal(req?.headers['content-type'], 'application/json');
    assert.equal(req?.headers['x-title'], 'toolgate-test');
    assert.deepEqual(req?.body, {
      model: 'qwen2.5:7b',
      messages: [
        { role: 'system', content: 'You trade power.' },
        { role: 'user', content: 'Price for DE-LU?' },
      ],
      tools: [{ type: 'function', function: TOOLS[0] }],
      tool_choice: 'auto',
      temperature: 0,
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
      top_p: 0.5,
    });
  });

  it('a configured header replaces the default of the same name, whatever its case, and is sent once', async () => {
    mock.enqueue({ text: 'ok' });
    await adapter({
      headers: { Authorization: 'Bearer from-config', 'Content-Type': 'application/json; charset=utf-8' },
    }).generate(ask());
    const req = mock.requests[0];
    assert.equal(req?.headers.authorization, 'Bearer from-config');
    assert.equal(req?.headers['content-type'], 'application/json; charset=utf-8');
  });

  it('sends no authorization header without a key, and no stream flags when not streaming', async () => {
    mock.enqueue({ text: 'ok' });
    await adapter({ apiKey: '' }).generate(ask({ stream: false, tools: [] }));
    const req = mock.requests[0];
    assert.equal(req?.headers.authorization, undefined);
    assert.equal(req?.body.stream, undefined);
    assert.equal(req?.body.stream_options, undefined);
    assert.equal(req?.body.tools, undefined);
  });
});

describe('openai adapter: answers', () => {
  it('streams text deltas in order and assembles split tool-call arguments byte for byte', async () => {
    const malformed = `{'area': "DE-LU", "hours": [14, 15,], "note": "Ünïcødé ⚡ 🔌"`;
    mock.enqueue({
      text: 'Checking both areas — one moment ⚡.',
      toolCalls: [
        { id: 'call_a', name: 'get_spot_price', arguments: '{"area":"DE-LU"}' },
        { id: 'call_b', name: 'get_spot_price', arguments: malformed },
      ],
      usage: { promptTokens: 120, completionTokens: 40 },
    });
    const deltas: string[] = [];
    const result = await adapter().generate(ask(), { onTextDelta: (t) => deltas.push(t) });
    assert.ok(deltas.length > 5, `expected several deltas, got ${deltas.length}`);
    assert.equal(deltas.join(''), 'Checking both areas — one moment ⚡.');
    assert.equal(result.text, deltas.join(''));
    assert.deepEqual(result.toolCalls, [
      { id: 'call_a', name: 'get_spot_price', arguments: '{"area":"DE-LU"}' },
      { id: 'call_b', name: 'get_spot_price', arguments: malformed },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.usage, { promptTokens: 120, completionTokens: 40, totalTokens: 160 });
  });

  it('non-streaming: reads a recorded completion with two tool calls and usage', async () => {
    mock.enqueue({ raw: fixture('openai-completion-tool-calls.json') });
    const result = await adapter().generate(ask({ stream: false }));
    assert.equal(result.text, '');
    assert.deepEqual(result.toolCalls, [
      {
        id: 'call_Qm4nB7vX2kLp9sWd3Rt6YhJe',
        name: 'get_spot_price',
        arguments: '{"area":"DE-LU","delivery_hour":"2025-03-14T14:00Z"}',
      },
      { id: 'call_Ze5cV8bN1mQw4xTr7Yk2LpHs', name: 'list_open_orders', arguments: '{}' },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.usage, { promptTokens: 214, completionTokens: 49, totalTokens: 263 });
  });

  it('non-streaming: generates an id for a tool call without one', async () => {
    mock.enqueue({
      raw: JSON.stringify({
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      }),
    });
    const result = await adapter().generate(ask({ stream: false }));
    assert.match(result.toolCalls[0]?.id ?? '', /^call_/);
    assert.equal(result.usage, undefined);
  });

  for (const [name, check] of [
    [
      'openai-stream-parallel-tool-calls.sse',
      (r: { toolCalls: { arguments: string }[] }) =>
        assert.equal(r.toolCalls[1]?.arguments, '{"area":"FR","delivery_hour":"2025-03-14T14:00Z"}'),
    ],
    ['ollama-stream-tool-call.sse', (r: { finishReason: string }) => assert.equal(r.finishReason, 'stop')],
    ['vllm-stream-tool-call.sse', (r: { text: string }) => assert.equal(r.text, 'Let me check the order book.')],
    [
      'llamacpp-stream-malformed-args.sse',
      (r: { toolCalls: { arguments: string }[] }) =>
        assert.equal(r.toolCalls[0]?.arguments, `{'area': 'DE-LU', "side": "buy", "volume_mw": 5,, "limit_price": 8`),
    ],
    ['openrouter-stream-comments.sse', (r: { text: string }) => assert.equal(r.text, 'Bonjour — the market is open.')],
  ] as const) {
    it(`replays ${name} over HTTP in small network chunks`, async () => {
      mock.enqueue(replay(name));
      const deltas: string[] = [];
      const result = await adapter().generate(ask(), { onTextDelta: (t) => deltas.push(t) });
      assert.equal(deltas.join(''), result.text);
      check(result as never);
    });
  }

  it('accepts one JSON body from a server that ignored stream: true', async () => {
    mock.enqueue({
      raw: JSON.stringify({
        choices: [{ index: 0, message: { role: 'assistant', content: 'whole answer' }, finish_reason: 'stop' }],
      }),
    });
    const deltas: string[] = [];
    const result = await adapter().generate(ask(), { onTextDelta: (t) => deltas.push(t) });
    assert.deepEqual(deltas, ['whole answer']);
    assert.equal(result.text, 'whole answer');
  });
});

describe('openai adapter: transport', () => {
  it('reads an event stream sent to a non-streaming request, showing no deltas', async () => {
    mock.enqueue(replay('openai-stream-text-usage.sse'));
    const deltas: string[] = [];
    const result = await adapter().generate(ask({ stream: false }), { onTextDelta: (t) => deltas.push(t) });
    assert.match(result.text, /^The day-ahead price/);
    assert.deepEqual(deltas, []);
  });

  it(
    'does not follow a redirect: the error names where it ' + 'points and the key to change, and nothing is retried',
    async () => {
      mock.enqueue({
        status: 308,
        body: { moved: true },
        headers: { location: 'https://elsewhere.example/v1/chat/completions' },
      });
      const error = await rejectsWith(
        adapter().generate(ask()),
        'model_error',
        new RegExp(
          String.raw`answered HTTP 308, a redirect to https:\/\/elsewhere\.example\/v1\/chat\/comp` +
            String.raw`letions; model calls do not follow redirects: set providers\.openai's base URL`,
        ),
      );
      assert.equal(error.details?.['location'], 'https://elsewhere.example/v1/chat/completions');
      assert.equal(mock.requests.length, 1);
    },
  );

  it('uses the injected fetch', async () => {
    const calls: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response(fixture('ollama-stream-tool-call.sse'), { headers: { 'content-type': 'text/event-stream' } });
    };
    const model = createOpenAIAdapter({
      model: 'qwen2.5:7b',
      baseUrl: 'http://ollama.invalid:11434/v1',
      fetch: fakeFetch,
    });
    const result = await model.generate(ask());
    assert.deepEqual(calls, ['http://ollama.invalid:11434/v1/chat/completions']);
    assert.equal(result.toolCalls[0]?.id, 'call_k3b1x8zq');
  });
});

describe('openai adapter: retries', () => {
  it('429 with Retry-After, then success: retried once', async () => {
    mock.enqueue(errorFixture('openai-429-rate-limit.json', 429, { 'retry-after': '0' }), { text: 'after the wait' });
    const result = await adapter().generate(ask());
    assert.equal(result.text, 'after the wait');
    assert.equal(mock.requests.length, 2);
  });

  it('503 twice, then success', async () => {
    mock.enqueue(errorFixture('openai-503-overloaded.json', 503), errorFixture('openai-503-overloaded.json', 503), {
      text: 'back',
    });
    assert.equal((await adapter().generate(ask({ stream: false }))).text, 'back');
    assert.equal(mock.requests.length, 3);
  });

  it('a dropped connection, then success', async () => {
    mock.enqueue({ dropConnection: true }, { text: 'reconnected' });
    assert.equal((await adapter().generate(ask())).text, 'reconnected');
    assert.equal(mock.requests.length, 2);
  });

  it('exhausted 503s → model_unavailable naming the attempts and the last status', async () => {
    for (let i = 0; i < 3; i += 1) mock.enqueue(errorFixture('openai-503-overloaded.json', 503));
    const error = await rejectsWith(
      adapter({ maxRetries: 2 }).generate(ask()),
      'model_unavailable',
      /3 attempts, last HTTP 503/,
    );
    assert.match(error.message, /The server is overloaded/);
    assert.equal(mock.requests.length, 3);
  });

  it('exhausted 429s → model_rate_limited', async () => {
    for (let i = 0; i < 2; i += 1)
      mock.enqueue(errorFixture('openai-429-rate-limit.json', 429, { 'retry-after': '0' }));
    await rejectsWith(
      adapter({ maxRetries: 1 }).generate(ask()),
      'model_rate_limited',
      /2 attempts, last HTTP 429 \(Rate limit reached/,
    );
    assert.equal(mock.requests.length, 2);
  });

  it('429 insufficient_quota is not retried', async () => {
    mock.enqueue(errorFixture('openai-429-insufficient-quota.json', 429));
    await rejectsWith(adapter().generate(ask()), 'model_rate_limited', /quota exhausted/);
    assert.equal(mock.requests.length, 1);
  });

  it('a server that refuses connections → model_unavailable after every attempt', async () => {
    const closed = await startMockOpenAI();
    const url = closed.url;
    await closed.close();
    await rejectsWith(
      createOpenAIAdapter({ model: 'm', baseUrl: url, maxRetries: 1, retryBaseDelayMs: 1 }).generate(ask()),
      'model_unavailable',
      /connection to .* failed: gave up after 2 attempts.*ECONNREFUSED/,
    );
  });

  it('a stream cut after text reached the caller is not retried', async () => {
    const partial = fixture('openai-stream-text-usage.sse').split('\n\n').slice(0, 5).join('\n\n') + '\n\n';
    mock.enqueue({ raw: partial, contentType: 'text/event-stream' });
    const deltas: string[] = [];
    await rejectsWith(
      adapter().generate(ask(), { onTextDelta: (t) => deltas.push(t) }),
      'model_unavailable',
      /not retried/,
    );
    assert.equal(deltas.join(''), 'The day-ahead price');
    assert.equal(mock.requests.length, 1);
    mock.requests.length = 0;
    // Nobody saw the partial text without a callback, so the same cut is retried.
    mock.enqueue({ raw: partial, contentType: 'text/event-stream' }, { text: 'second try' });
    assert.equal((await adapter().generate(ask())).text, 'second try');
    assert.equal(mock.requests.length, 2);
  });

  for (const [name, status, code] of [
    ['openai-400-bad-request.json', 400, 'model_bad_request'],
    ['openai-401-invalid-key.json', 401, 'model_auth'],
    ['openai-404-model-not-found.json', 404, 'model_not_found'],
  ] as const) {
    it(`HTTP ${status} is not retried (${code})`, async () => {
      mock.enqueue(errorFixture(name, status));
      const error = await rejectsWith(adapter().generate(ask()), code);
      assert.equal(mock.requests.length, 1);
      assert.ok(
        error.message.includes(String((JSON.parse(fixture(name)) as { error: { message: string } }).error.message)),
        error.message,
      );
    });
  }
});

describe('openai adapter: errors', () => {
  it('401 says where to put the key', async () => {
    mock.enqueue(errorFixture('openai-401-invalid-key.json', 401));
    await rejectsWith(
      adapter().generate(ask()),
      'model_auth',
      new RegExp(`check --api-key / OPENAI_API_KEY / providers\\.openai\\.apiKey for ${mock.url}`),
    );
  });

  it('404 names the URL called and the base-URL rule', async () => {
    const wrongRoot = createOpenAIAdapter({ model: 'llama3.1', baseUrl: mock.url.replace(/\/v1$/, ''), maxRetries: 0 });
    const error = await rejectsWith(
      wrongRoot.generate(ask()),
      'model_not_found',
      /e\.g\. http:\/\/localhost:11434\/v1/,
    );
    assert.ok(error.message.includes(`${mock.url.replace(/\/v1$/, '')}/chat/completions`), error.message);
    assert.match(error.message, /Unknown request URL/);
    assert.equal(mock.requests[0]?.path, '/chat/completions');
  });

  for (const [name, unsupported] of [
    ['ollama-400-tools-unsupported.json', true],
    ['llamacpp-400-tools-jinja.json', true],
    ['vllm-400-auto-tool-choice.json', true],
    ['openai-400-bad-request.json', false],
  ] as const) {
    it(
      `400 ${name}: details.toolsUnsupported = ${unsupported}, code ` +
        `${unsupported ? 'tools_unsupported' : 'model_bad_request'}`,
      async () => {
        mock.enqueue(errorFixture(name, 400));
        const error = await rejectsWith(
          adapter().generate(ask()),
          unsupported ? 'tools_unsupported' : 'model_bad_request',
        );
        assert.equal(error.details?.['toolsUnsupported'], unsupported);
        assert.equal(error.details?.['status'], 400);
      },
    );
  }

  it('an error object inside the stream → model_error with the provider message', async () => {
    mock.enqueue(replay('openrouter-stream-midstream-error.sse'));
    await rejectsWith(adapter().generate(ask()), 'model_error', /Provider disconnected unexpectedly/);
    assert.equal(mock.requests.length, 1);
  });

  it('a stream event that is not JSON → model_error', async () => {
    mock.enqueue({
      raw: 'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: {not json\n\n',
      contentType: 'text/event-stream',
    });
    await rejectsWith(adapter().generate(ask()), 'model_error', /malformed stream .* not JSON: "\{not json"/);
  });

  it('an HTML page with status 200 → model_error pointing at the base URL', async () => {
    mock.enqueue({ raw: '<!doctype html><html><body>LM Studio</body></html>', contentType: 'text/html' });
    await rejectsWith(
      adapter().generate(ask({ stream: false })),
      'model_error',
      /expected a JSON chat completion .* text\/html.*base URL/,
    );
  });

  it('a 200 body that carries an error → model_error', async () => {
    mock.enqueue({ raw: '{"error":{"message":"No endpoints found for x/y","code":404}}' });
    await rejectsWith(adapter().generate(ask({ stream: false })), 'model_error', /No endpoints found for x\/y/);
  });
});

describe('openai adapter: cancellation and timeouts', () => {
  it('abort mid-stream → cancelled', async () => {
    mock.enqueue({ text: 'a long answer that keeps coming', chunkDelayMs: 200 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = adapter().generate(ask(), {
      signal: controller.signal,
      onTextDelta: (t) => {
        deltas.push(t);
        controller.abort();
      },
    });
    await rejectsWith(pending, 'cancelled');
    assert.equal(deltas.length, 1);
    assert.equal(mock.requests.length, 1);
  });

  it('an already aborted signal sends nothing', async () => {
    await rejectsWith(adapter().generate(ask(), { signal: AbortSignal.abort() }), 'cancelled');
    assert.equal(mock.requests.length, 0);
  });

  it('abort while waiting to retry → cancelled', async () => {
    mock.enqueue(errorFixture('openai-503-overloaded.json', 503, { 'retry-after': '30' }));
    const controller = new AbortController();
    const pending = adapter().generate(ask(), { signal: controller.signal });
    while (mock.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await rejectsWith(pending, 'cancelled');
  });

  it('no answer within timeoutMs → model_timeout naming the option', async () => {
    mock.enqueue({ delayMs: 5_000, then: { text: 'too late' } });
    await rejectsWith(adapter({ timeoutMs: 50 }).generate(ask()), 'model_timeout', /within 50 ms; raise timeoutMs/);
    assert.equal(mock.requests.length, 1);
  });

  it('a stream that stalls past timeoutMs → model_timeout', async () => {
    mock.enqueue({ text: 'slow tokens here', chunkDelayMs: 5_000 });
    await rejectsWith(adapter({ timeoutMs: 100 }).generate(ask(), { onTextDelta: () => undefined }), 'model_timeout');
  });
});
