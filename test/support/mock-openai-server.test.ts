import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { splitPieces, startMockOpenAI, type MockOpenAI } from './mock-openai-server.ts';

let mock: MockOpenAI;
before(async () => {
  mock = await startMockOpenAI({ responses: [{ text: 'from the constructor' }] });
});
after(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

const post = (body: unknown, path = '/chat/completions'): Promise<Response> =>
  fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire objects are read field by field
type Wire = any;

async function sseChunks(res: Response): Promise<{ chunks: Wire[]; done: boolean }> {
  const text = await res.text();
  const datas = text
    .split('\n\n')
    .filter((e) => e !== '')
    .map((e) => e.replace(/^data: /, ''));
  const done = datas.at(-1) === '[DONE]';
  return { chunks: datas.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as Wire), done };
}

describe('mock OpenAI server', () => {
  it('serves the constructor queue first and records the request', async () => {
    const res = await post({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] });
    const body = (await res.json()) as Wire;
    assert.equal(body.choices[0].message.content, 'from the constructor');
    assert.equal(mock.requests.length, 1);
    assert.equal(mock.requests[0]?.method, 'POST');
    assert.equal(mock.requests[0]?.path, '/v1/chat/completions');
    assert.equal(mock.requests[0]?.headers.authorization, 'Bearer k');
    assert.deepEqual(mock.requests[0]?.body.messages, [{ role: 'user', content: 'hi' }]);
    assert.ok(mock.url.endsWith('/v1'));
  });

  it('answers a non-streaming request with a chat.completion object', async () => {
    mock.enqueue({
      toolCalls: [{ id: 'call_1', name: 'f', arguments: '{"a":1}' }],
      usage: { promptTokens: 10, completionTokens: 5 },
    });
    const body = (await (await post({ model: 'gpt-x', messages: [] })).json()) as Wire;
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.model, 'gpt-x');
    assert.match(body.id, /^chatcmpl-/);
    assert.equal(typeof body.created, 'number');
    assert.deepEqual(body.choices[0].message, {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
    });
    assert.equal(body.choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(body.usage, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it('streams chat.completion.chunk deltas the way OpenAI does', async () => {
    mock.enqueue({ text: 'Hello there, trader.', toolCalls: [{ name: 'get_price', arguments: '{"area":"DE-LU"}' }] });
    const res = await post({ model: 'm', messages: [], stream: true, stream_options: { include_usage: true } });
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const { chunks, done } = await sseChunks(res);
    assert.equal(done, true);
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0].id));
    assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '', refusal: null });
    const texts = chunks.map((c) => c.choices[0]?.delta?.content).filter((t) => typeof t === 'string' && t !== '');
    assert.ok(texts.length > 3);
    assert.equal(texts.join(''), 'Hello there, trader.');
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    assert.equal(toolDeltas[0].index, 0);
    assert.match(toolDeltas[0].id, /^call_/);
    assert.deepEqual(toolDeltas[0].function, { name: 'get_price', arguments: '' });
    assert.ok(toolDeltas.slice(1).every((d: Wire) => d.id === undefined && d.function.name === undefined));
    assert.ok(toolDeltas.length > 3);
    assert.equal(toolDeltas.map((d: Wire) => d.function.arguments).join(''), '{"area":"DE-LU"}');
    const last = chunks.at(-1);
    assert.deepEqual(last.choices, []);
    assert.equal(typeof last.usage.total_tokens, 'number');
    assert.equal(chunks.at(-2).choices[0].finish_reason, 'tool_calls');
  });

  it('sends no usage chunk unless stream_options.include_usage', async () => {
    mock.enqueue({ text: 'hi' });
    const { chunks } = await sseChunks(await post({ model: 'm', messages: [], stream: true }));
    assert.ok(chunks.every((c) => c.usage === undefined && c.choices.length === 1));
  });

  it('sends scripted errors with their headers, and an OpenAI-style body by default', async () => {
    mock.enqueue({ status: 429, headers: { 'retry-after': '3' } }, { status: 502, body: 'Bad Gateway' });
    const limited = await post({ model: 'm', messages: [] });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '3');
    assert.equal(((await limited.json()) as Wire).error.message, 'mock error 429');
    const gateway = await post({ model: 'm', messages: [] });
    assert.equal(gateway.status, 502);
    assert.equal(await gateway.text(), 'Bad Gateway');
  });

  it('sends raw bytes exactly, in pieces when asked', async () => {
    const raw = 'data: {"x":"€"}\n\ndata: [DONE]\n\n';
    mock.enqueue({ raw, chunkSize: 3 }, { raw: '{"ok":true}', status: 201 });
    const res = await post({ model: 'm', messages: [] });
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.equal(await res.text(), raw);
    const json = await post({ model: 'm', messages: [] });
    assert.equal(json.status, 201);
    assert.equal(json.headers.get('content-type'), 'application/json');
  });

  it('drops the connection when told to', async () => {
    mock.enqueue({ dropConnection: true });
    await assert.rejects(post({ model: 'm', messages: [] }), TypeError);
    assert.equal(mock.requests.length, 1);
  });

  it('answers after a delay', async () => {
    mock.enqueue({ delayMs: 20, then: { text: 'later' } });
    const body = (await (await post({ model: 'm', messages: [] })).json()) as Wire;
    assert.equal(body.choices[0].message.content, 'later');
  });

  it('falls back to the handler, then fails loudly when nothing is scripted', async () => {
    const withHandler = await startMockOpenAI({ handler: (req) => ({ text: `echo ${String(req.body.model)}` }) });
    try {
      const res = await fetch(`${withHandler.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'abc', messages: [] }),
      });
      assert.equal(((await res.json()) as Wire).choices[0].message.content, 'echo abc');
    } finally {
      await withHandler.close();
    }
    const empty = await post({ model: 'm', messages: [] });
    assert.equal(empty.status, 500);
    assert.match(((await empty.json()) as Wire).error.message, /no scripted response left/);
  });

  it('404s other routes and 400s a body that is not JSON, like real servers', async () => {
    const models = await fetch(`${mock.url}/models`);
    assert.equal(models.status, 404);
    assert.match(((await models.json()) as Wire).error.message, /Unknown request URL: GET \/v1\/models/);
    const bad = await post('{nope');
    assert.equal(bad.status, 400);
    assert.equal(mock.requests.length, 2);
    assert.equal(mock.remaining(), 0);
  });
});

/** Polls (bounded) until the mock saw the client leave. */
async function disconnected(index = 0): Promise<boolean> {
  for (let i = 0; i < 200 && mock.requests[index]?.disconnected !== true; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return mock.requests[index]?.disconnected === true;
}

describe('mock OpenAI server: runaway endpoints', () => {
  it('endlessStream: real content deltas, never finishing, until the client leaves', async () => {
    mock.enqueue({ endlessStream: true, text: 'la la ' });
    const res = await post({ model: 'm', messages: [], stream: true });
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const decoder = new TextDecoder();
    for (let i = 0; i < 10_000 && text.length < 256 * 1024; i += 1) {
      const chunk = await reader.read();
      assert.equal(chunk.done, false, 'an endless stream ended');
      text += decoder.decode(chunk.value, { stream: true });
    }
    await reader.cancel();
    const events = text.split('\n\n').slice(0, -1);
    assert.ok(events.length > 1000, `${events.length} events`);
    const chunks = events.map((e) => JSON.parse(e.replace(/^data: /, '')) as Wire);
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.choices[0].finish_reason === null));
    assert.ok(
      chunks
        .slice(1)
        .map((c) => c.choices[0].delta.content)
        .join('')
        .startsWith('la la la la '),
    );
    assert.equal(await disconnected(), true);
  });

  it('hugeBody: a chat.completion whose content is that many bytes, chunked or with its length announced', async () => {
    const size = 1024 * 1024 + 3;
    mock.enqueue({ hugeBody: size }, { hugeBody: size, announceLength: true });
    const chunked = await post({ model: 'm', messages: [] });
    assert.equal(chunked.headers.get('content-length'), null);
    const body = (await chunked.json()) as Wire;
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.choices[0].message.content, 'a'.repeat(size));
    const announced = await post({ model: 'm', messages: [] });
    const text = await announced.text();
    assert.equal(Number(announced.headers.get('content-length')), Buffer.byteLength(text));
    assert.equal(mock.requests[1]?.disconnected, false);
  });

  it('hugeBody with an error status: an OpenAI-style error whose message is that many bytes', async () => {
    mock.enqueue({ hugeBody: 100_000, status: 500 });
    const res = await post({ model: 'm', messages: [] });
    assert.equal(res.status, 500);
    const body = (await res.json()) as Wire;
    assert.equal(body.error.type, 'server_error');
    assert.equal(body.error.message.length, 100_000);
  });

  it('hugeBody stops writing when the client leaves', async () => {
    mock.enqueue({ hugeBody: 64 * 1024 * 1024 });
    const res = await post({ model: 'm', messages: [] });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    assert.equal(await disconnected(), true);
  });

  it('hugeEvent: one data line of that many bytes, then a normal finish', async () => {
    const size = 300_000;
    mock.enqueue({ hugeEvent: size });
    const text = await (await post({ model: 'm', messages: [], stream: true })).text();
    const events = text.split('\n\n').filter((e) => e !== '');
    assert.equal(events.length, 4);
    assert.equal(events.at(-1), 'data: [DONE]');
    const huge = JSON.parse((events[1] ?? '').replace(/^data: /, '')) as Wire;
    assert.equal(huge.choices[0].delta.content.length, size);
    assert.ok(!(events[1] ?? '').includes('\n'));
    assert.equal((JSON.parse((events[2] ?? '').replace(/^data: /, '')) as Wire).choices[0].finish_reason, 'stop');
  });

  it('trickleMs: the same answer, one byte per write', async () => {
    mock.enqueue({ text: 'hi', trickleMs: 1 });
    const res = await post({ model: 'm', messages: [] });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const parts: Uint8Array[] = [];
    for (let i = 0; i < 10_000; i += 1) {
      const chunk = await reader.read();
      if (chunk.done) break;
      parts.push(chunk.value);
    }
    const text = Buffer.concat(parts).toString('utf8');
    assert.equal((JSON.parse(text) as Wire).choices[0].message.content, 'hi');
    assert.ok(parts.length > text.length / 4, `${parts.length} reads for ${text.length} bytes`);
  });
});

describe('splitPieces', () => {
  it('splits into small uneven pieces without breaking surrogate pairs', () => {
    const text = 'a🔌b€c⚡defghij';
    const pieces = splitPieces(text);
    assert.equal(pieces.join(''), text);
    assert.ok(pieces.length > 3);
    assert.ok(pieces.every((p) => p.isWellFormed()));
    assert.deepEqual(splitPieces(''), []);
  });
});
