import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startMockOllama, type MockOllama } from './mock-ollama-server.ts';
import { checkOllamaRequest, ollamaFullName, OLLAMA_ARGUMENTS_ERROR } from './ollama-request-check.ts';

let mock: MockOllama;
before(async () => {
  mock = await startMockOllama({
    responses: [{ text: 'from the constructor' }],
    models: ['qwen2.5:7b', 'llama3.2', 'phi3'],
    noTools: ['phi3'],
  });
});
after(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire objects are read field by field
type Wire = any;

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_spot_price',
      description: 'Day-ahead price',
      parameters: { type: 'object', properties: { area: { type: 'string' } } },
    },
  },
];
const ASK = { model: 'qwen2.5:7b', messages: [{ role: 'user', content: 'What is the DE-LU price?' }] };

const post = (body: unknown, url = `${mock.url}/api/chat`): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Parses an NDJSON body: one JSON object per line, a newline after each. */
async function ndjson(res: Response): Promise<Wire[]> {
  const text = await res.text();
  assert.ok(text.endsWith('\n'), 'NDJSON ends with a newline');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Wire);
}

/** The structure of a JSON value: its keys in order and the types of its leaves. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (typeof value === 'object' && value !== null) return Object.entries(value).map(([k, v]) => [k, shape(v)]);
  return value === null ? 'null' : typeof value;
}

/** The distinct line shapes of an NDJSON body, in order of first appearance. */
function lineShapes(text: string): unknown[] {
  const shapes: string[] = [];
  for (const line of text.trimEnd().split('\n')) {
    const s = JSON.stringify(shape(JSON.parse(line)));
    if (!shapes.includes(s)) shapes.push(s);
  }
  return shapes;
}

const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/contract/ollama/${name}`, import.meta.url), 'utf8');

describe('mock Ollama server: answers', () => {
  it('streams by default, records the request, and has the host root as its URL', async () => {
    const res = await post(ASK);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
    const lines = await ndjson(res);
    assert.equal(lines.map((l) => l.message.content).join(''), 'from the constructor');
    assert.ok(
      lines.slice(0, -1).every((l) => l.done === false && l.model === 'qwen2.5:7b' && l.message.role === 'assistant'),
    );
    assert.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(mock.requests.length, 1);
    assert.equal(mock.requests[0]?.path, '/api/chat');
    assert.deepEqual(mock.requests[0]?.body.messages, ASK.messages);
  });

  it('answers stream: false with one JSON object', async () => {
    mock.enqueue({
      text: 'Let me check the price.',
      reasoning: 'Need the tool.',
      toolCalls: [{ name: 'get_spot_price', arguments: '{"area":"DE-LU"}' }],
      usage: { promptTokens: 20, completionTokens: 12 },
    });
    const res = await post({ ...ASK, stream: false, tools: TOOLS });
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const body = (await res.json()) as Wire;
    assert.equal(body.done, true);
    assert.equal(body.done_reason, 'stop');
    assert.equal(body.message.content, 'Let me check the price.');
    assert.equal(body.message.thinking, 'Need the tool.');
    assert.equal(body.message.tool_calls.length, 1);
    assert.match(body.message.tool_calls[0].id, /^call_[a-z0-9]{8}$/);
    assert.deepEqual(body.message.tool_calls[0].function, {
      index: 0,
      name: 'get_spot_price',
      arguments: { area: 'DE-LU' },
    });
    assert.equal(body.prompt_eval_count, 20);
    assert.equal(body.eval_count, 12);
    for (const field of ['total_duration', 'load_duration', 'prompt_eval_duration', 'eval_duration'])
      assert.equal(typeof body[field], 'number');
    assert.ok(!Number.isNaN(Date.parse(body.created_at)));
  });

  it('streams thinking, then content, then every tool call whole, then the done line', async () => {
    mock.enqueue({
      reasoning: 'Two areas, two calls.',
      text: 'Checking both areas.',
      toolCalls: [
        { name: 'get_spot_price', arguments: '{"area":"DE-LU"}' },
        { name: 'get_spot_price', arguments: '{"area":"FR"}' },
      ],
      usage: { promptTokens: 64, completionTokens: 47 },
    });
    const lines = await ndjson(await post({ ...ASK, tools: TOOLS }));
    const thinking = lines.filter((l) => l.message.thinking !== undefined);
    assert.ok(thinking.length > 3);
    assert.equal(thinking.map((l) => l.message.thinking).join(''), 'Two areas, two calls.');
    assert.ok(thinking.every((l) => l.message.content === ''));
    const firstContent = lines.findIndex((l) => l.message.content !== '');
    assert.ok(firstContent > lines.indexOf(thinking.at(-1)));
    assert.equal(lines.map((l) => l.message.content).join(''), 'Checking both areas.');
    const withCalls = lines.filter((l) => l.message.tool_calls !== undefined);
    assert.equal(withCalls.length, 1);
    assert.deepEqual(
      withCalls[0].message.tool_calls.map((c: Wire) => c.function),
      [
        { index: 0, name: 'get_spot_price', arguments: { area: 'DE-LU' } },
        { index: 1, name: 'get_spot_price', arguments: { area: 'FR' } },
      ],
    );
    const last = lines.at(-1);
    assert.equal(last.done, true);
    assert.equal(last.done_reason, 'stop');
    assert.deepEqual(last.message, { role: 'assistant', content: '' });
    assert.equal(last.prompt_eval_count, 64);
    assert.equal(last.eval_count, 47);
  });

  it('sends a call whose arguments do not parse as content text, as Ollama does', async () => {
    const raw = "{'area': 'DE-LU',}";
    mock.enqueue(
      { toolCalls: [{ name: 'get_spot_price', arguments: raw }], doneReason: 'length' },
      { text: 'Sure: ', toolCalls: [{ name: 'get_spot_price', arguments: raw }] },
    );
    const held = await ndjson(await post({ ...ASK, tools: TOOLS }));
    assert.deepEqual(
      held.map((l) => l.message.content),
      [`{"name": "get_spot_price", "arguments": ${raw}}`, ''],
    );
    assert.ok(held.every((l) => l.message.tool_calls === undefined));
    assert.equal(held.at(-1).done_reason, 'length');
    const streamed = await ndjson(await post({ ...ASK, tools: TOOLS }));
    assert.ok(streamed.length > 4);
    assert.equal(
      streamed.map((l) => l.message.content).join(''),
      `Sure: {"name": "get_spot_price", "arguments": ${raw}}`,
    );
  });

  it('refuses to script a call of a tool the request did not offer', async () => {
    mock.enqueue({ toolCalls: [{ name: 'get_spot_price', arguments: '{}' }] });
    const res = await post(ASK);
    assert.equal(res.status, 500);
    assert.match(((await res.json()) as Wire).error, /^mock: .*offers no tools/);
  });

  it('ends a stream with an error line after some text, and answers a non-streamed request with a 500', async () => {
    const error = 'an error was encountered while running the model: unexpected EOF';
    mock.enqueue({ streamError: error, afterText: 'The spot' }, { streamError: error });
    const lines = await ndjson(await post(ASK));
    assert.deepEqual(lines.at(-1), { error });
    assert.equal(
      lines
        .slice(0, -1)
        .map((l) => l.message.content)
        .join(''),
      'The spot',
    );
    const plain = await post({ ...ASK, stream: false });
    assert.equal(plain.status, 500);
    assert.deepEqual(await plain.json(), { error });
  });

  it('sends scripted errors as {"error": ...}, plain text when the body is a string', async () => {
    mock.enqueue({ status: 404 }, { status: 500, headers: { 'x-extra': 'yes' } }, { status: 502, body: 'Bad Gateway' });
    const missing = await post(ASK);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { error: "model 'qwen2.5:7b' not found" });
    const crashed = await post(ASK);
    assert.equal(crashed.headers.get('x-extra'), 'yes');
    assert.deepEqual(await crashed.json(), { error: 'llama-server process has terminated: exit status 2' });
    const gateway = await post(ASK);
    assert.equal(await gateway.text(), 'Bad Gateway');
  });

  it('sends raw bytes exactly, in pieces when asked', async () => {
    const raw =
      '{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"r' +
      'ole":"assistant","content":"€"},"done":false}\n{"error":"x"}\n';
    mock.enqueue({ raw, chunkSize: 3 });
    const res = await post(ASK);
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
    assert.equal(await res.text(), raw);
  });

  it('drops the connection, answers after a delay, and falls back to the handler', async () => {
    mock.enqueue({ dropConnection: true }, { delayMs: 20, then: { text: 'later' } });
    await assert.rejects(post(ASK), TypeError);
    assert.equal(((await (await post({ ...ASK, stream: false })).json()) as Wire).message.content, 'later');
    const withHandler = await startMockOllama({ handler: (req) => ({ text: `echo ${String(req.body.model)}` }) });
    try {
      const res = await post(
        { model: 'anything:1b', messages: ASK.messages, stream: false },
        `${withHandler.url}/api/chat`,
      );
      assert.equal(((await res.json()) as Wire).message.content, 'echo anything:1b');
    } finally {
      await withHandler.close();
    }
    const empty = await post(ASK);
    assert.equal(empty.status, 500);
    assert.match(((await empty.json()) as Wire).error, /^mock: .*no scripted response left/);
  });

  it('only loads the model when there are no messages', async () => {
    const load = (await (await post({ model: 'qwen2.5:7b', messages: [] })).json()) as Wire;
    assert.equal(load.done, true);
    assert.equal(load.done_reason, 'load');
    const unload = (await (await post({ model: 'qwen2.5:7b', keep_alive: 0 })).json()) as Wire;
    assert.equal(unload.done_reason, 'unload');
  });
});

describe('mock Ollama server: the same wire as the contract fixtures', () => {
  it('renders bodies shaped like text.json and tool-call.json', async () => {
    mock.enqueue(
      { text: 'The spot price.' },
      { text: 'Let me check the price.', toolCalls: [{ name: 'get_spot_price', arguments: '{"area":"DE-LU"}' }] },
    );
    assert.deepEqual(
      shape(await (await post({ ...ASK, stream: false })).json()),
      shape(JSON.parse(fixture('text.json'))),
    );
    assert.deepEqual(
      shape(await (await post({ ...ASK, stream: false, tools: TOOLS })).json()),
      shape(JSON.parse(fixture('tool-call.json'))),
    );
  });

  it('streams lines shaped like the fixtures, kind for kind', async () => {
    mock.enqueue(
      { text: 'The spot price.' },
      { text: 'Checking both areas.', toolCalls: [{ name: 'get_spot_price', arguments: '{"area":"DE-LU"}' }] },
      { reasoning: 'Thinking.', text: 'I will check.' },
      { streamError: 'an error was encountered while running the model: unexpected EOF', afterText: 'The spot' },
    );
    for (const name of [
      'stream-text.ndjson',
      'stream-parallel-tool-calls.ndjson',
      'stream-reasoning.ndjson',
      'stream-error-midstream.ndjson',
    ]) {
      assert.deepEqual(
        lineShapes(await (await post({ ...ASK, tools: TOOLS })).text()),
        lineShapes(fixture(name)),
        name,
      );
    }
  });
});

describe('mock Ollama server: other endpoints', () => {
  it('lists the configured models, reports a version, and says it is running', async () => {
    const tags = (await (await fetch(`${mock.url}/api/tags`)).json()) as Wire;
    assert.deepEqual(
      tags.models.map((m: Wire) => m.name),
      ['qwen2.5:7b', 'llama3.2:latest', 'phi3:latest'],
    );
    assert.match(tags.models[0].digest, /^[0-9a-f]{64}$/);
    assert.equal(tags.models[0].details.format, 'gguf');
    const version = (await (await fetch(`${mock.url}/api/version`)).json()) as Wire;
    assert.match(version.version, /^\d+\.\d+\.\d+$/);
    assert.equal(await (await fetch(mock.url)).text(), 'Ollama is running');
  });

  it("answers unknown routes and methods with gin's plain-text 404", async () => {
    for (const res of [
      await fetch(`${mock.url}/api/chat`),
      await post(ASK, `${mock.url}/v1/chat/completions`),
      await post(ASK, `${mock.url}/api/generat`),
    ]) {
      assert.equal(res.status, 404);
      assert.equal(await res.text(), '404 page not found');
    }
  });
});

describe('mock Ollama server: refusals, before the queue is touched', () => {
  it('refuses what Ollama refuses and leaves the script alone', async () => {
    mock.enqueue({ text: 'kept' });
    const cases: [unknown, number, string | RegExp][] = [
      ['{nope', 400, "invalid character 'n' looking for beginning of value"],
      ['', 400, 'missing request body'],
      [{ messages: ASK.messages }, 400, 'model is required'],
      [{ ...ASK, model: 'qwen-nope' }, 404, "model 'qwen-nope' not found"],
      [{ ...ASK, model: 'phi3', tools: TOOLS }, 400, 'registry.ollama.ai/library/phi3:latest does not support tools'],
      [
        { ...ASK, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
        400,
        'json: cannot unmarshal array into Go struct field ChatRequest.messages.content of type string',
      ],
      [
        {
          ...ASK,
          messages: [
            ...ASK.messages,
            {
              role: 'assistant',
              content: '',
              tool_calls: [{ function: { name: 'get_spot_price', arguments: '{"area":"DE-LU"}' } }],
            },
          ],
        },
        400,
        OLLAMA_ARGUMENTS_ERROR,
      ],
      [{ ...ASK, messages: [{ role: 'function', content: 'x' }] }, 400, /^mock: messages\[0\]\.role is "function"/],
      [
        { ...ASK, options: 'fast' },
        400,
        'json: cannot unmarshal string into Go struct field ChatRequest.options of type map[string]interface {}',
      ],
      [{ ...ASK, format: 'yaml' }, 500, 'invalid format: "\\"yaml\\""; expected "json" or a valid JSON Schema object'],
    ];
    for (const [body, status, error] of cases) {
      const res = await post(body);
      assert.equal(res.status, status, JSON.stringify(body));
      const message = ((await res.json()) as Wire).error as string;
      if (typeof error === 'string') assert.equal(message, error);
      else assert.match(message, error);
    }
    assert.equal(mock.remaining(), 1);
    const kept = (await (
      await post({
        ...ASK,
        model: 'llama3.2:latest',
        stream: false,
        format: { type: 'object' },
        options: { temperature: 0, num_ctx: 8192 },
      })
    ).json()) as Wire;
    assert.equal(kept.message.content, 'kept');
  });
});

/** Polls (bounded) until the mock saw the client leave. */
async function disconnected(index = 0): Promise<boolean> {
  for (let i = 0; i < 200 && mock.requests[index]?.disconnected !== true; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return mock.requests[index]?.disconnected === true;
}

describe('mock Ollama server: clients that leave', () => {
  it('endlessStream: content chunks that never finish, until the client leaves', async () => {
    mock.enqueue({ endlessStream: true });
    const res = await post(ASK);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (let i = 0; i < 10_000 && text.length < 64 * 1024; i += 1) {
      const chunk = await reader.read();
      assert.equal(chunk.done, false, 'an endless stream ended');
      text += decoder.decode(chunk.value, { stream: true });
    }
    await reader.cancel();
    const lines = text
      .slice(0, text.lastIndexOf('\n'))
      .split('\n')
      .map((line) => JSON.parse(line) as Wire);
    assert.ok(lines.length > 100);
    assert.ok(lines.every((l) => l.done === false));
    assert.ok(
      lines
        .map((l) => l.message.content)
        .join('')
        .startsWith('la la la '),
    );
    assert.equal(await disconnected(), true);
  });

  it('records a client that gives up on a slow stream', async () => {
    mock.enqueue({ text: 'one two three four five six', chunkDelayMs: 30 });
    const reader = ((await post(ASK)).body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    assert.equal(await disconnected(), true);
  });

  it('close() ends pending delays and open connections', async () => {
    const slow = await startMockOllama({ responses: [{ delayMs: 60_000, then: { text: 'never' } }] });
    const pending = post(ASK, `${slow.url}/api/chat`);
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

describe('checkOllamaRequest', () => {
  it('accepts the documented request shapes', () => {
    const history = [
      ...ASK.messages,
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { index: 0, name: 'get_spot_price', arguments: { area: 'DE-LU' } } }],
      },
      { role: 'tool', content: '87.40', tool_name: 'get_spot_price' },
    ];
    assert.equal(
      checkOllamaRequest({
        ...ASK,
        messages: history,
        tools: TOOLS,
        format: 'json',
        options: { temperature: 0.2, num_predict: 256 },
        stream: false,
        think: true,
        keep_alive: '5m',
      }),
      undefined,
    );
    assert.equal(checkOllamaRequest({ ...ASK, format: { type: 'object', properties: {} }, options: null }), undefined);
  });

  it('refuses string arguments, whatever they contain', () => {
    for (const args of ['{"area":"DE-LU"}', '', '[1]']) {
      const body = {
        ...ASK,
        messages: [{ role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: args } }] }],
      };
      assert.deepEqual(checkOllamaRequest(body), { status: 400, error: OLLAMA_ARGUMENTS_ERROR });
    }
  });

  it("words type errors as Go's decoder does", () => {
    assert.equal(
      checkOllamaRequest({ ...ASK, model: 7 })?.error,
      'json: cannot unmarshal number into Go struct field ChatRequest.model of type string',
    );
    assert.equal(
      checkOllamaRequest({ ...ASK, stream: 'yes' })?.error,
      'json: cannot unmarshal string into Go struct field ChatRequest.stream of type bool',
    );
    assert.equal(
      checkOllamaRequest({ ...ASK, messages: {} })?.error,
      'json: cannot unmarshal object into Go struct field ChatRequest.messages of type []api.Message',
    );
    assert.equal(
      checkOllamaRequest([ASK])?.error,
      'json: cannot unmarshal array into Go value of type api.ChatRequest',
    );
  });

  it('matches model names the way Ollama does', () => {
    assert.equal(ollamaFullName('qwen2.5'), 'registry.ollama.ai/library/qwen2.5:latest');
    assert.equal(ollamaFullName('hf.co/org/model:Q4'), 'hf.co/org/model:Q4');
    assert.equal(checkOllamaRequest({ ...ASK, model: 'QWEN2.5:7B' }, { models: ['qwen2.5:7b'] }), undefined);
    assert.equal(checkOllamaRequest({ ...ASK, model: 'llama3.2:latest' }, { models: ['llama3.2'] }), undefined);
    assert.equal(checkOllamaRequest({ ...ASK, model: 'llama3.2:1b' }, { models: ['llama3.2'] })?.status, 404);
  });
});
