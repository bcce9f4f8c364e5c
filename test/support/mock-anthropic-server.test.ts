import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, it } from 'node:test';
import { checkAnthropicRequest } from './anthropic-request-check.ts';
import { startMockAnthropic, type MockAnthropic } from './mock-anthropic-server.ts';

let mock: MockAnthropic;
before(async () => {
  mock = await startMockAnthropic({ responses: [{ text: 'from the constructor' }] });
});
after(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire objects are read field by field
type Wire = any;

const VERSION = { 'anthropic-version': '2023-06-01' };
const TOOLS = [
  {
    name: 'get_spot_price',
    description: 'Day-ahead price',
    input_schema: { type: 'object', properties: { area: { type: 'string' } } },
  },
];
const ASK = {
  model: 'claude-sonnet-4-5',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'What is the DE-LU price?' }],
};

const post = (
  body: unknown,
  headers: Record<string, string> = VERSION,
  url = `${mock.url}/v1/messages`,
): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

interface SseEvent {
  event: string;
  data: Wire;
}

/** Parses a whole SSE body; every event must have an `event:` line and JSON data whose type names it. */
function parseSse(text: string): SseEvent[] {
  assert.ok(text.endsWith('\n\n'), 'an event stream ends with a blank line');
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length) ?? '';
      const data = JSON.parse(lines.find((l) => l.startsWith('data: '))?.slice('data: '.length) ?? 'null') as Wire;
      assert.equal(data.type, event, `data.type matches "event: ${event}"`);
      return { event, data };
    });
}

/** The structure of a JSON value: its keys in order and the types of its leaves. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (typeof value === 'object' && value !== null) return Object.entries(value).map(([k, v]) => [k, shape(v)]);
  return value === null ? 'null' : typeof value;
}

/** The shape of the first event of each kind (and of each delta type). */
function eventShapes(events: SseEvent[]): Map<string, unknown> {
  const shapes = new Map<string, unknown>();
  for (const { event, data } of events) {
    const key = `${event}/${String(data.delta?.type ?? data.content_block?.type ?? '')}`;
    if (!shapes.has(key)) shapes.set(key, shape(data));
  }
  return shapes;
}

const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/contract/anthropic/${name}`, import.meta.url), 'utf8');

async function errorOf(res: Response): Promise<{ status: number; type: string; message: string }> {
  const body = (await res.json()) as Wire;
  assert.equal(body.type, 'error');
  assert.match(body.request_id, /^req_/);
  return { status: res.status, type: body.error.type, message: body.error.message };
}

describe('mock Anthropic server: answers', () => {
  it('serves the constructor queue first, records the request, and has a base URL without /v1', async () => {
    const res = await post(ASK);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.match(res.headers.get('request-id') ?? '', /^req_/);
    const body = (await res.json()) as Wire;
    assert.deepEqual(body.content, [{ type: 'text', text: 'from the constructor' }]);
    assert.ok(!mock.url.endsWith('/v1'));
    assert.equal(mock.requests.length, 1);
    assert.equal(mock.requests[0]?.path, '/v1/messages');
    assert.equal(mock.requests[0]?.headers['x-api-key'], 'sk-ant-test');
    assert.deepEqual(mock.requests[0]?.body.messages, ASK.messages);
  });

  it('answers a non-streamed request with a Message object', async () => {
    mock.enqueue({
      text: 'Let me check.',
      reasoning: 'The user wants a price.',
      reasoningSignature: 'EqQBsig',
      toolCalls: [{ id: 'toolu_1', name: 'get_spot_price', arguments: '{"area": "DE-LU"}' }],
      usage: { inputTokens: 20, outputTokens: 12, cacheReadTokens: 5, cacheWriteTokens: 3 },
    });
    const body = (await (await post({ ...ASK, tools: TOOLS })).json()) as Wire;
    assert.equal(body.type, 'message');
    assert.equal(body.role, 'assistant');
    assert.equal(body.model, 'claude-sonnet-4-5');
    assert.match(body.id, /^msg_01/);
    assert.deepEqual(body.content, [
      { type: 'thinking', thinking: 'The user wants a price.', signature: 'EqQBsig' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_spot_price', input: { area: 'DE-LU' } },
    ]);
    assert.equal(body.stop_reason, 'tool_use');
    assert.equal(body.stop_sequence, null);
    assert.equal(body.usage.input_tokens, 20);
    assert.equal(body.usage.output_tokens, 12);
    assert.equal(body.usage.cache_read_input_tokens, 5);
    assert.equal(body.usage.cache_creation_input_tokens, 3);
  });

  it('refuses to render tool arguments a non-streamed Message cannot carry, saying so', async () => {
    mock.enqueue({ toolCalls: [{ name: 'get_spot_price', arguments: '{"area": "DE' }] });
    const { status, message } = await errorOf(await post({ ...ASK, tools: TOOLS }));
    assert.equal(status, 500);
    assert.match(message, /^mock: /);
  });

  it('refuses to script a call of a tool the request did not offer', async () => {
    mock.enqueue({ toolCalls: [{ name: 'get_spot_price', arguments: '{}' }] });
    const { status, message } = await errorOf(await post(ASK));
    assert.equal(status, 500);
    assert.match(message, /^mock: .*offers no tools/);
  });

  it('streams the documented event sequence', async () => {
    mock.enqueue({
      text: 'Checking both areas.',
      reasoning: 'Two areas, two calls.',
      toolCalls: [
        { id: 'toolu_a', name: 'get_spot_price', arguments: '{"area": "DE-LU"}' },
        { id: 'toolu_b', name: 'get_spot_price', arguments: '{"area": "FR"}' },
      ],
      usage: { inputTokens: 64, outputTokens: 47 },
    });
    const res = await post({ ...ASK, tools: TOOLS, stream: true });
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = parseSse(await res.text());
    assert.equal(events[0]?.event, 'message_start');
    assert.deepEqual(events[0]?.data.message.content, []);
    assert.equal(events[0]?.data.message.stop_reason, null);
    assert.equal(events[0]?.data.message.usage.input_tokens, 64);
    assert.equal(events[1]?.event, 'content_block_start');
    assert.equal(events[2]?.event, 'ping');
    assert.deepEqual(
      events.slice(-2).map((e) => e.event),
      ['message_delta', 'message_stop'],
    );
    const delta = events.at(-2)?.data;
    assert.equal(delta.delta.stop_reason, 'tool_use');
    assert.equal(delta.usage.output_tokens, 47);

    // Blocks open, fill and close in order; indexes count up from 0.
    const blockEvents = events.filter((e) => e.event.startsWith('content_block'));
    const starts = blockEvents.filter((e) => e.event === 'content_block_start').map((e) => e.data);
    assert.deepEqual(
      starts.map((s) => [s.index, s.content_block.type]),
      [
        [0, 'thinking'],
        [1, 'text'],
        [2, 'tool_use'],
        [3, 'tool_use'],
      ],
    );
    let open = -1;
    for (const { event, data } of blockEvents) {
      if (event === 'content_block_start') open = data.index;
      else assert.equal(data.index, open, `${event} belongs to the open block`);
      if (event === 'content_block_stop') open = -1;
    }
    const deltas = (index: number): Wire[] =>
      blockEvents.filter((e) => e.event === 'content_block_delta' && e.data.index === index).map((e) => e.data.delta);
    const thinking = deltas(0);
    assert.equal(
      thinking
        .filter((d) => d.type === 'thinking_delta')
        .map((d) => d.thinking)
        .join(''),
      'Two areas, two calls.',
    );
    assert.equal(thinking.at(-1).type, 'signature_delta');
    assert.match(thinking.at(-1).signature, /^[A-Za-z0-9+/]+=*$/);
    const text = deltas(1);
    assert.ok(text.length > 3);
    assert.equal(text.map((d) => d.text).join(''), 'Checking both areas.');
    assert.deepEqual(starts[2].content_block, { type: 'tool_use', id: 'toolu_a', name: 'get_spot_price', input: {} });
    assert.deepEqual(deltas(2)[0], { type: 'input_json_delta', partial_json: '' });
    assert.equal(
      deltas(2)
        .map((d) => d.partial_json)
        .join(''),
      '{"area": "DE-LU"}',
    );
    assert.equal(
      deltas(3)
        .map((d) => d.partial_json)
        .join(''),
      '{"area": "FR"}',
    );
  });

  it('streams malformed tool arguments verbatim, as a stream cut by max_tokens does', async () => {
    const cut = '{"area": "DE-LU", "date": "2026-11-2';
    mock.enqueue({ toolCalls: [{ name: 'get_spot_price', arguments: cut }], finishReason: 'max_tokens' });
    const events = parseSse(await (await post({ ...ASK, tools: TOOLS, stream: true })).text());
    const pieces = events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.partial_json);
    assert.ok(pieces.length > 3);
    assert.equal(pieces.join(''), cut);
    assert.equal(events.at(-2)?.data.delta.stop_reason, 'max_tokens');
    assert.match(events.find((e) => e.event === 'content_block_start')?.data.content_block.id, /^toolu_/);
  });

  it('streams a text-only answer as one text block', async () => {
    mock.enqueue({ text: 'The spot price in DE-LU is 87.40 €/MWh.' });
    const events = parseSse(await (await post({ ...ASK, stream: true })).text());
    assert.deepEqual(
      events.map((e) => e.event).filter((e, i, all) => e !== all[i - 1]),
      [
        'message_start',
        'content_block_start',
        'ping',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    assert.equal(
      events
        .filter((e) => e.event === 'content_block_delta')
        .map((e) => e.data.delta.text)
        .join(''),
      'The spot price in DE-LU is 87.40 €/MWh.',
    );
    assert.equal(events.at(-2)?.data.delta.stop_reason, 'end_turn');
  });

  it(
    'ends a stream with an error event after some text, and ' +
      'answers a non-streamed request with the matching status',
    async () => {
      mock.enqueue(
        { streamError: { type: 'overloaded_error', message: 'Overloaded' }, afterText: 'The spot' },
        { streamError: { type: 'overloaded_error', message: 'Overloaded' } },
      );
      const events = parseSse(await (await post({ ...ASK, stream: true })).text());
      assert.equal(
        events
          .filter((e) => e.event === 'content_block_delta')
          .map((e) => e.data.delta.text)
          .join(''),
        'The spot',
      );
      assert.deepEqual(events.at(-1), {
        event: 'error',
        data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      });
      assert.ok(!events.some((e) => e.event === 'message_stop'));
      const plain = await post(ASK);
      assert.deepEqual(await errorOf(plain), { status: 529, type: 'overloaded_error', message: 'Overloaded' });
    },
  );

  it('sends scripted errors with the error type for their status', async () => {
    const expected: [number, string][] = [
      [400, 'invalid_request_error'],
      [401, 'authentication_error'],
      [403, 'permission_error'],
      [404, 'not_found_error'],
      [413, 'request_too_large'],
      [429, 'rate_limit_error'],
      [500, 'api_error'],
      [529, 'overloaded_error'],
    ];
    mock.enqueue(...expected.map(([status]) => ({ status })));
    for (const [status, type] of expected) {
      const res = await post(ASK);
      const error = await errorOf(res);
      assert.equal(error.status, status);
      assert.equal(error.type, type);
      if (status === 429) assert.equal(res.headers.get('retry-after'), '1');
      if (status === 404) assert.equal(error.message, 'model: claude-sonnet-4-5');
    }
  });

  it('sends scripted bodies and headers as given', async () => {
    mock.enqueue(
      {
        status: 429,
        headers: { 'retry-after': '7' },
        body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      },
      { status: 502, body: 'Bad Gateway' },
    );
    const limited = await post(ASK);
    assert.equal(limited.headers.get('retry-after'), '7');
    assert.equal(((await limited.json()) as Wire).error.message, 'slow down');
    const gateway = await post(ASK);
    assert.equal(gateway.status, 502);
    assert.equal(await gateway.text(), 'Bad Gateway');
  });

  it('sends raw bytes exactly, in pieces when asked', async () => {
    const raw = 'event: ping\ndata: {"type": "ping"}\n\nevent: message_stop\ndata: {"type":"message_stop","x":"€"}\n\n';
    mock.enqueue({ raw, chunkSize: 3, headers: { 'x-extra': 'yes' } });
    const res = await post({ ...ASK, stream: true });
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(res.headers.get('x-extra'), 'yes');
    assert.equal(await res.text(), raw);
  });

  it('drops the connection, answers after a delay, and falls back to the handler', async () => {
    mock.enqueue({ dropConnection: true }, { delayMs: 20, then: { text: 'later' } });
    await assert.rejects(post(ASK), TypeError);
    assert.equal(((await (await post(ASK)).json()) as Wire).content[0].text, 'later');
    const withHandler = await startMockAnthropic({ handler: (req) => ({ text: `echo ${String(req.body.model)}` }) });
    try {
      const res = await post(ASK, VERSION, `${withHandler.url}/v1/messages`);
      assert.equal(((await res.json()) as Wire).content[0].text, 'echo claude-sonnet-4-5');
    } finally {
      await withHandler.close();
    }
    const empty = await errorOf(await post(ASK));
    assert.equal(empty.status, 500);
    assert.match(empty.message, /^mock: .*no scripted response left/);
  });
});

describe('mock Anthropic server: the same wire as the contract fixtures', () => {
  it('renders a Message and an error body shaped like text.json and error-5xx.json', async () => {
    mock.enqueue(
      {
        text: 'The spot price in DE-LU is 87.40 €/MWh.',
        usage: { inputTokens: 20, outputTokens: 12, cacheReadTokens: 5, cacheWriteTokens: 3 },
      },
      { status: 529 },
    );
    assert.deepEqual(shape(await (await post(ASK)).json()), shape(JSON.parse(fixture('text.json'))));
    assert.deepEqual(shape(await (await post(ASK)).json()), shape(JSON.parse(fixture('error-5xx.json'))));
  });

  it('streams events shaped like the fixtures, kind for kind', async () => {
    mock.enqueue(
      { text: 'The spot price.' },
      { text: 'Checking both areas.', toolCalls: [{ name: 'get_spot_price', arguments: '{"area": "DE-LU"}' }] },
      { reasoning: 'Thinking.', text: 'I will check.' },
      { streamError: { type: 'overloaded_error', message: 'Overloaded' }, afterText: 'The spot' },
    );
    for (const name of [
      'stream-text.sse',
      'stream-parallel-tool-calls.sse',
      'stream-reasoning.sse',
      'stream-error-midstream.sse',
    ]) {
      const ours = eventShapes(parseSse(await (await post({ ...ASK, tools: TOOLS, stream: true })).text()));
      assert.deepEqual(ours, eventShapes(parseSse(fixture(name))), name);
    }
  });
});

describe('mock Anthropic server: refusals, before the queue is touched', () => {
  it('404s other routes and methods with not_found_error', async () => {
    const models = await fetch(`${mock.url}/v1/models`);
    assert.deepEqual(await errorOf(models), { status: 404, type: 'not_found_error', message: 'Not Found' });
    const chat = await post(ASK, VERSION, `${mock.url}/v1/chat/completions`);
    assert.equal(chat.status, 404);
  });

  it('400s a body that is not JSON', async () => {
    const error = await errorOf(await post('{nope'));
    assert.equal(error.status, 400);
    assert.match(error.message, /^The request body is not valid JSON: /);
  });

  it('validates the request the way the API does, and leaves the script alone', async () => {
    mock.enqueue({ text: 'kept' });
    const cases: [unknown, Record<string, string>, RegExp][] = [
      [ASK, {}, /^anthropic-version: header is required$/],
      [{ ...ASK, max_tokens: undefined }, VERSION, /^max_tokens: Field required$/],
      [
        { ...ASK, messages: [{ role: 'system', content: 'Be brief.' }, ...ASK.messages] },
        VERSION,
        /Unexpected role "system"/,
      ],
      [{ ...ASK, tools: [{ type: 'function', function: { name: 'f' } }] }, VERSION, /^tools\.0: Input tag 'function'/],
    ];
    for (const [body, headers, message] of cases) {
      const error = await errorOf(await post(body, headers));
      assert.equal(error.status, 400);
      assert.equal(error.type, 'invalid_request_error');
      assert.match(error.message, message);
    }
    assert.equal(mock.remaining(), 1);
    assert.equal(((await (await post(ASK)).json()) as Wire).content[0].text, 'kept');
  });

  it('401s a wrong or missing x-api-key when a key is configured', async () => {
    const keyed = await startMockAnthropic({ apiKey: 'sk-ant-right', responses: [{ text: 'ok' }] });
    try {
      const url = `${keyed.url}/v1/messages`;
      assert.deepEqual(await errorOf(await post(ASK, VERSION, url)), {
        status: 401,
        type: 'authentication_error',
        message: 'invalid x-api-key',
      });
      const missing = await fetch(url, { method: 'POST', headers: VERSION, body: JSON.stringify(ASK) });
      assert.equal((await errorOf(missing)).message, 'x-api-key header is required');
      assert.equal(keyed.remaining(), 1);
      const ok = await post(ASK, { ...VERSION, 'x-api-key': 'sk-ant-right' }, url);
      assert.equal(ok.status, 200);
    } finally {
      await keyed.close();
    }
  });
});

/** Polls (bounded) until the mock saw the client leave. */
async function disconnected(index = 0): Promise<boolean> {
  for (let i = 0; i < 200 && mock.requests[index]?.disconnected !== true; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return mock.requests[index]?.disconnected === true;
}

describe('mock Anthropic server: clients that leave', () => {
  it('endlessStream: text deltas that never finish, until the client leaves', async () => {
    mock.enqueue({ endlessStream: true });
    const res = await post({ ...ASK, stream: true });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (let i = 0; i < 10_000 && text.length < 64 * 1024; i += 1) {
      const chunk = await reader.read();
      assert.equal(chunk.done, false, 'an endless stream ended');
      text += decoder.decode(chunk.value, { stream: true });
    }
    await reader.cancel();
    const events = parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2));
    assert.ok(events.length > 100);
    assert.ok(!events.some((e) => e.event === 'message_stop'));
    assert.ok(
      events
        .filter((e) => e.event === 'content_block_delta')
        .map((e) => e.data.delta.text)
        .join('')
        .startsWith('la la la '),
    );
    assert.equal(await disconnected(), true);
  });

  it('records a client that gives up on a slow stream', async () => {
    mock.enqueue({ text: 'one two three four five six', chunkDelayMs: 30 });
    const res = await post({ ...ASK, stream: true });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    assert.equal(await disconnected(), true);
  });

  it('close() ends pending delays and open connections', async () => {
    const slow = await startMockAnthropic({ responses: [{ delayMs: 60_000, then: { text: 'never' } }] });
    const pending = post(ASK, VERSION, `${slow.url}/v1/messages`);
    for (let i = 0; i < 200 && slow.requests.length === 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const started = Date.now();
    await slow.close();
    assert.ok(Date.now() - started < 1000);
    await assert.rejects(pending, TypeError);
    for (let i = 0; i < 100 && slow.requests[0]?.disconnected !== true; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(slow.requests[0]?.disconnected, true);
  });
});

describe('checkAnthropicRequest', () => {
  const ok = (body: unknown): string | undefined => checkAnthropicRequest(body, VERSION);
  const toolTurn: Wire[] = [
    { role: 'user', content: 'Price?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_spot_price', input: { area: 'DE-LU' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '87.40' }] },
  ];

  it('accepts a well-formed request with tools, a tool loop and thinking', () => {
    assert.equal(ok({ ...ASK, system: 'Be brief.', tools: TOOLS, tool_choice: { type: 'auto' } }), undefined);
    assert.equal(
      ok({ ...ASK, system: [{ type: 'text', text: 'Be brief.' }], messages: toolTurn, tools: TOOLS }),
      undefined,
    );
    const signed = toolTurn.map((m, i) =>
      i === 1
        ? { ...m, content: [{ type: 'thinking', thinking: 'hm', signature: 'EqQB' }, ...(m.content as unknown[])] }
        : m,
    );
    assert.equal(
      ok({
        ...ASK,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        messages: signed,
        tools: TOOLS,
      }),
      undefined,
    );
  });

  it('requires the top-level fields', () => {
    assert.equal(checkAnthropicRequest(ASK, {}), 'anthropic-version: header is required');
    assert.equal(ok({ ...ASK, model: undefined }), 'model: Field required');
    assert.equal(ok({ ...ASK, max_tokens: 0 }), 'max_tokens: Input should be greater than or equal to 1');
    assert.equal(ok({ ...ASK, max_tokens: 1.5 }), 'max_tokens: Input should be a valid integer');
    assert.equal(ok({ ...ASK, messages: [] }), 'messages: at least one message is required');
    assert.equal(ok({ ...ASK, messages: 'hi' }), 'messages: Input should be a valid list');
  });

  it('checks roles and content blocks', () => {
    assert.match(
      ok({ ...ASK, messages: [{ role: 'system', content: 'x' }] }) ?? '',
      /^messages: Unexpected role "system"\. The Messages API accepts a top-level `system` parameter/,
    );
    assert.equal(
      ok({ ...ASK, messages: [{ role: 'tool', content: 'x' }] }),
      "messages.0.role: Input should be 'user' or 'assistant'",
    );
    assert.match(
      ok({ ...ASK, messages: [{ role: 'user', content: [{ type: 'image_url', url: 'x' }] }] }) ?? '',
      /^messages\.0\.content\.0: Input tag 'image_url' found using 'type'/,
    );
    assert.equal(
      ok({ ...ASK, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }),
      'messages: text content blocks must be non-empty',
    );
    assert.match(
      ok({
        ...ASK,
        messages: [
          { role: 'user', content: '' },
          { role: 'user', content: 'x' },
        ],
      }) ?? '',
      /^messages\.0: all messages must have non-empty content/,
    );
  });

  it('pairs every tool_use with a tool_result at the start of the next message', () => {
    const noResult = toolTurn.slice(0, 2).concat([{ role: 'user', content: 'go on' }]);
    assert.equal(
      ok({ ...ASK, messages: noResult }),
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. ' +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
    const textFirst = toolTurn.slice(0, 2).concat([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Here:' },
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '87.40' },
        ],
      },
    ]);
    assert.match(
      ok({ ...ASK, messages: textFirst }) ?? '',
      /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1\./,
    );
    const stray = [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'x' }] }];
    assert.equal(
      ok({ ...ASK, messages: stray }),
      'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. ' +
        'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });

  it('checks tools and tool_choice', () => {
    assert.equal(
      ok({ ...ASK, tools: [{ name: 'get.price', input_schema: { type: 'object' } }] }),
      "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    );
    assert.equal(
      ok({ ...ASK, tools: [{ name: 'f', input_schema: { type: 'string' } }] }),
      "tools.0.custom.input_schema.type: Input should be 'object'",
    );
    assert.equal(ok({ ...ASK, tools: [{ name: 'f' }] }), 'tools.0.custom.input_schema: Field required');
    assert.equal(ok({ ...ASK, tools: [TOOLS[0], TOOLS[0]] }), 'tools: Tool names must be unique.');
    assert.equal(ok({ ...ASK, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }), undefined);
    assert.equal(
      ok({ ...ASK, tool_choice: 'auto' }),
      'tool_choice: Input should be a valid dictionary or object to extract fields from',
    );
    assert.match(ok({ ...ASK, tool_choice: { type: 'required' } }) ?? '', /^tool_choice: Input tag 'required'/);
    assert.equal(ok({ ...ASK, tool_choice: { type: 'tool' } }), 'tool_choice.tool.name: Field required');
  });

  it('checks the thinking budget and the signed replay of a tool loop', () => {
    assert.equal(
      ok({ ...ASK, thinking: { type: 'enabled', budget_tokens: 512 } }),
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    );
    assert.equal(
      ok({ ...ASK, thinking: { type: 'enabled', budget_tokens: 1024 } }),
      '`max_tokens` must be greater than `thinking.budget_tokens`.',
    );
    assert.equal(
      ok({
        ...ASK,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        tool_choice: { type: 'any' },
      }),
      'Thinking may not be enabled when tool_choice forces tool use.',
    );
    assert.match(
      ok({
        ...ASK,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        messages: toolTurn,
        tools: TOOLS,
      }) ?? '',
      new RegExp(
        '^messages\\.1\\.content\\.0\\.type: Expected `thinking` or `redacted_thinking`, but found `text`\\. ' +
          'When `thinking` is enabled, a final `assistant` message must start with a thinking block',
      ),
    );
    assert.equal(ok({ ...ASK, max_tokens: 4096, thinking: { type: 'disabled' }, messages: toolTurn }), undefined);
  });
});
