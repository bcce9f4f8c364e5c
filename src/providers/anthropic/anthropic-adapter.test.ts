import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, type ErrorCode } from '../../core/errors.ts';
import type { ModelRequest } from '../../core/ports/model-adapter.ts';
import {
  createAnthropicAdapter,
  DEFAULT_ANTHROPIC_VERSION,
  type AnthropicAdapterOptions,
} from './anthropic-adapter.ts';

interface Sent {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A fetch that answers from a script and records what it was sent. */
function scripted(...answers: (() => Response)[]): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    sent.push({
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as Record<string, unknown>,
    });
    const next = answers.shift();
    assert.ok(next, 'more requests than scripted answers');
    return next();
  };
  return { fetch: fetchFn, sent };
}

/** SSE text as the API writes it. */
const sse = (events: [string, unknown][]): string =>
  events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');

/** A body delivered in 7-byte pieces, so network chunks cut lines and characters. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) controller.close();
      else controller.enqueue(bytes.slice(at, (at += 7)));
    },
  });
}

const streamed =
  (text: string): (() => Response) =>
  () =>
    new Response(chunked(text), { headers: { 'content-type': 'text/event-stream' } });
const json =
  (value: unknown, status = 200): (() => Response) =>
  () =>
    new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });

const start: [string, unknown] = [
  'message_start',
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [],
      usage: { input_tokens: 25, output_tokens: 1 },
    },
  },
];
const stop: [string, unknown] = ['message_stop', { type: 'message_stop' }];
const textAnswer = (...pieces: string[]): string =>
  sse([
    start,
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ...pieces.map((text): [string, unknown] => [
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
    ]),
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 15 } },
    ],
    stop,
  ]);
const toolStart = (index: number, id: string): [string, unknown] => [
  'content_block_start',
  { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: 'get_spot_price', input: {} } },
];
const toolPiece = (index: number, partial_json: string): [string, unknown] => [
  'content_block_delta',
  { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } },
];

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
const adapter = (fetchFn: typeof fetch, over: Partial<AnthropicAdapterOptions> = {}) =>
  createAnthropicAdapter({
    model: 'claude-sonnet-4-5',
    apiKey: 'sk-ant-test',
    baseUrl: 'https://api.anthropic.test',
    retryBaseDelayMs: 1,
    fetch: fetchFn,
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

describe('anthropic adapter: request on the wire', () => {
  it('POSTs to {baseUrl}/v1/messages with x-api-key, anthropic-version, and the mapped body', async () => {
    const { fetch, sent } = scripted(streamed(textAnswer('ok')));
    const model = createAnthropicAdapter({
      model: 'claude-sonnet-4-5',
      baseUrl: 'https://gateway.example//',
      apiKey: 'sk-ant-test',
      headers: { 'anthropic-beta': 'some-beta-2025-01-01' },
      maxTokens: 1024,
      extraBody: { top_k: 5 },
      fetch,
    });
    assert.equal(model.id, 'anthropic:claude-sonnet-4-5');
    await model.generate(ask({ toolChoice: 'auto', temperature: 0 }));
    const [req] = sent;
    assert.equal(req?.url, 'https://gateway.example/v1/messages');
    assert.equal(req?.headers.get('x-api-key'), 'sk-ant-test');
    assert.equal(req?.headers.get('anthropic-version'), DEFAULT_ANTHROPIC_VERSION);
    assert.equal(DEFAULT_ANTHROPIC_VERSION, '2023-06-01');
    assert.equal(req?.headers.get('anthropic-beta'), 'some-beta-2025-01-01');
    assert.equal(req?.headers.get('content-type'), 'application/json');
    assert.equal(req?.headers.get('authorization'), null);
    assert.deepEqual(req?.body, {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'You trade power.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Price for DE-LU?' }] }],
      tools: [{ name: 'get_spot_price', description: 'Day-ahead price', input_schema: TOOLS[0]?.parameters }],
      tool_choice: { type: 'auto' },
      temperature: 0,
      stream: true,
      top_k: 5,
    });
  });

  it(
    'defaults: api.anthropic.com, no key header without a ' + 'key, the configured version, a named provider in the id',
    async () => {
      const { fetch, sent } = scripted(
        json({ type: 'message', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' }),
      );
      const model = createAnthropicAdapter({
        model: 'claude-haiku-4-5',
        provider: 'claude-eu',
        version: '2099-01-01',
        fetch,
      });
      assert.equal(model.id, 'claude-eu:claude-haiku-4-5');
      await model.generate(ask({ stream: false }));
      assert.equal(sent[0]?.url, 'https://api.anthropic.com/v1/messages');
      assert.equal(sent[0]?.headers.get('x-api-key'), null);
      assert.equal(sent[0]?.headers.get('anthropic-version'), '2099-01-01');
      assert.equal(sent[0]?.body['stream'], undefined);
      assert.equal(sent[0]?.body['max_tokens'], 4096);
    },
  );

  it('thinking: budget sent, max_tokens raised above it, temperature left out', async () => {
    const { fetch, sent } = scripted(streamed(textAnswer('ok')));
    await adapter(fetch, { thinking: { budgetTokens: 10_000 }, maxTokens: 2000 }).generate(ask({ temperature: 0.5 }));
    assert.deepEqual(sent[0]?.body['thinking'], { type: 'enabled', budget_tokens: 10_000 });
    assert.equal(sent[0]?.body['max_tokens'], 12_000);
    assert.equal(sent[0]?.body['temperature'], undefined);
  });
});

describe('anthropic adapter: answers', () => {
  it('streams text deltas in order and assembles parallel tool calls split across network chunks', async () => {
    const text = sse([
      start,
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking both — ' } },
      ],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'one moment ⚡.' } },
      ],
      toolStart(1, 'toolu_a'),
      toolPiece(1, ''),
      toolPiece(1, '{"area": "DE'),
      toolStart(2, 'toolu_b'),
      toolPiece(2, `{'area': "FR", `),
      toolPiece(1, '-LU"}'),
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 40 } }],
      stop,
    ]);
    const { fetch } = scripted(streamed(text));
    const deltas: string[] = [];
    const result = await adapter(fetch).generate(ask(), { onTextDelta: (t) => deltas.push(t) });
    assert.deepEqual(deltas, ['Checking both — ', 'one moment ⚡.']);
    assert.equal(result.text, 'Checking both — one moment ⚡.');
    assert.deepEqual(result.toolCalls, [
      { id: 'toolu_a', name: 'get_spot_price', arguments: '{"area": "DE-LU"}' },
      { id: 'toolu_b', name: 'get_spot_price', arguments: `{'area': "FR", ` },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.usage, { promptTokens: 25, completionTokens: 40, totalTokens: 65 });
  });

  it('accepts one JSON message from a proxy that ignored stream: true, showing its text once', async () => {
    const { fetch } = scripted(
      json({ type: 'message', content: [{ type: 'text', text: 'whole answer' }], stop_reason: 'end_turn' }),
    );
    const deltas: string[] = [];
    const result = await adapter(fetch).generate(ask(), { onTextDelta: (t) => deltas.push(t) });
    assert.deepEqual(deltas, ['whole answer']);
    assert.equal(result.finishReason, 'stop');
  });

  it('reads an event stream sent to a non-streaming request without showing deltas', async () => {
    const { fetch } = scripted(streamed(textAnswer('The price ', 'is €87.40.')));
    const deltas: string[] = [];
    const result = await adapter(fetch).generate(ask({ stream: false }), { onTextDelta: (t) => deltas.push(t) });
    assert.equal(result.text, 'The price is €87.40.');
    assert.deepEqual(deltas, []);
  });

  it('a 200 body that is not JSON → model_error naming the URL and the base-URL rule', async () => {
    const { fetch } = scripted(
      () => new Response('<!doctype html><title>Gateway</title>', { headers: { 'content-type': 'text/html' } }),
    );
    await rejectsWith(
      adapter(fetch).generate(ask({ stream: false })),
      'model_error',
      new RegExp(
        String.raw`expected a JSON message from https:\/\/api\.anthropic\.te` +
          String.raw`st\/v1\/messages but got text\/html.*API root without \/v1`,
      ),
    );
  });

  it('a 200 body of type error → model_error with the provider message', async () => {
    const { fetch } = scripted(json({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } }));
    await rejectsWith(
      adapter(fetch).generate(ask({ stream: false })),
      'model_error',
      /answered 200 with an error: Internal server error/,
    );
  });

  it('a stream event that is not JSON → model_error', async () => {
    const { fetch } = scripted(streamed(`${sse([start])}event: content_block_delta\ndata: {not json\n\n`));
    await rejectsWith(adapter(fetch).generate(ask()), 'model_error', /malformed stream .* not JSON/);
  });
});

describe('anthropic adapter: limits', () => {
  it('an event larger than maxEventBytes → model_error naming the option', async () => {
    const { fetch } = scripted(streamed(textAnswer('x'.repeat(4096))));
    await rejectsWith(
      adapter(fetch, { maxEventBytes: 1024 }).generate(ask()),
      'model_error',
      /maxEventBytes.*providers\.anthropic\.maxEventBytes/,
    );
  });

  it('more tool calls than maxToolCalls, streamed or not → model_error', async () => {
    const tools = sse([start, toolStart(0, 'a'), toolStart(1, 'b'), toolStart(2, 'c'), stop]);
    const { fetch } = scripted(
      streamed(tools),
      json({
        type: 'message',
        content: [1, 2, 3].map((i) => ({ type: 'tool_use', id: `t${i}`, name: 'f', input: {} })),
      }),
    );
    await rejectsWith(adapter(fetch, { maxToolCalls: 2 }).generate(ask()), 'model_error', /maxToolCalls \(2\)/);
    await rejectsWith(
      adapter(fetch, { maxToolCalls: 2, provider: 'claude-eu' }).generate(ask({ stream: false })),
      'model_error',
      /providers\.claude-eu\.maxToolCalls/,
    );
  });

  it('a body larger than maxResponseBytes → model_error', async () => {
    const { fetch } = scripted(json({ type: 'message', content: [{ type: 'text', text: 'y'.repeat(5000) }] }));
    await rejectsWith(
      adapter(fetch, { maxResponseBytes: 2048 }).generate(ask({ stream: false })),
      'model_error',
      /maxResponseBytes/,
    );
  });
});
