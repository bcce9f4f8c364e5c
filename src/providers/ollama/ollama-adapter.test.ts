import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, type ErrorCode } from '../../core/errors.ts';
import type { ModelRequest } from '../../core/ports/model-adapter.ts';
import {
  createOllamaAdapter,
  DEFAULT_OLLAMA_HOST,
  normalizeOllamaHost,
  type OllamaAdapterOptions,
} from './ollama-adapter.ts';

const TOOLS = [
  {
    name: 'get_spot_price',
    description: 'Day-ahead price',
    parameters: { type: 'object', properties: { area: { type: 'string' } } },
  },
];
const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'Price for DE-LU?' }],
  tools: TOOLS,
  stream: true,
  ...over,
});

const piece = (content: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    model: 'qwen2.5:7b',
    created_at: '2025-07-07T20:22:19.1Z',
    message: { role: 'assistant', content, ...extra },
    done: false,
  });
const DONE =
  '{"model":"qwen2.5:7b","created_at":"2025-07-07T20:22:19.2Z","message":{"role":"assistant' +
  '","content":""},"done_reason":"stop","done":true,"prompt_eval_count":26,"eval_count":282}';

/** An NDJSON body in `size`-byte network chunks, so chunks cut lines and characters. */
function ndjson(text: string, init: { status?: number; size?: number } = {}): Response {
  const bytes = new TextEncoder().encode(text);
  const size = init.size ?? 7;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += size) controller.enqueue(bytes.slice(i, i + size));
      controller.close();
    },
  });
  return new Response(body, { status: init.status ?? 200, headers: { 'content-type': 'application/x-ndjson' } });
}
const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

interface Sent {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}
/** A fetch that answers from a script, one reply per request, recording what it was sent. */
function script(...replies: (() => Response)[]): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    sent.push({
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as Record<string, unknown>,
    });
    const reply = replies[sent.length - 1];
    if (reply === undefined) throw new Error(`unexpected request ${sent.length}`);
    return reply();
  };
  return { fetch: fetchFn, sent };
}
const adapter = (fetchFn: typeof fetch, over: Partial<OllamaAdapterOptions> = {}) =>
  createOllamaAdapter({ model: 'qwen2.5:7b', fetch: fetchFn, retryBaseDelayMs: 1, ...over });

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

describe('normalizeOllamaHost', () => {
  it('reads OLLAMA_HOST the way Ollama does, connectable', () => {
    const table: [string, string][] = [
      ['', DEFAULT_OLLAMA_HOST],
      ['127.0.0.1', 'http://127.0.0.1:11434'],
      ['0.0.0.0', 'http://127.0.0.1:11434'],
      ['0.0.0.0:8080', 'http://127.0.0.1:8080'],
      [':1234', 'http://127.0.0.1:1234'],
      ['example.com', 'http://example.com:11434'],
      ['example.com:8080', 'http://example.com:8080'],
      ['example.com:', 'http://example.com:11434'],
      ['[::1]', 'http://[::1]:11434'],
      ['::1', 'http://[::1]:11434'],
      ['[::]', 'http://[::1]:11434'],
      ['[::1]:1337', 'http://[::1]:1337'],
      [' "1.2.3.4" ', 'http://1.2.3.4:11434'],
      ["'1.2.3.4'", 'http://1.2.3.4:11434'],
      ['http://1.2.3.4', 'http://1.2.3.4'],
      ['http://1.2.3.4:4321', 'http://1.2.3.4:4321'],
      ['https://x', 'https://x'],
      ['HTTPS://Ollama.Example.com:443/', 'https://ollama.example.com'],
      ['https://example.com/ollama/', 'https://example.com/ollama'],
      ['ollama.com', 'https://ollama.com'],
    ];
    for (const [value, expected] of table) assert.equal(normalizeOllamaHost(value), expected, JSON.stringify(value));
  });

  it('throws a usage error for garbage, never echoing credentials', () => {
    for (const value of ['ftp://x', 'http://', 'localhost:abc', ':66000', 'foo bar', 'http://x?y=1', 'http://x#top']) {
      assert.throws(
        () => normalizeOllamaHost(value),
        (e: unknown) => e instanceof ToolgateError && e.code === 'usage' && e.message.includes(JSON.stringify(value)),
        value,
      );
    }
    for (const value of ['http://me:s3cret@x', 'me:s3cret@x:1']) {
      assert.throws(
        () => normalizeOllamaHost(value),
        (e: unknown) =>
          e instanceof ToolgateError &&
          e.code === 'usage' &&
          /credentials/.test(e.message) &&
          !e.message.includes('s3cret'),
      );
    }
    assert.throws(
      () => createOllamaAdapter({ model: 'm', host: 'gopher://x' }),
      (e: unknown) => e instanceof ToolgateError && e.code === 'usage',
    );
  });
});

describe('ollama adapter: request', () => {
  it('POSTs {host}/api/chat with auth, headers and the mapped body; id keeps the colon in the model name', async () => {
    const { fetch, sent } = script(() => ndjson(`${piece('ok')}\n${DONE}\n`));
    const model = adapter(fetch, {
      host: 'gpu-box:8080',
      provider: 'gpu',
      apiKey: 'sk-proxy',
      headers: { 'X-Team': 'trading' },
      think: 'low',
      keepAlive: '10m',
      options: { num_ctx: 8192 },
      extraBody: { truncate: false },
    });
    assert.equal(model.id, 'gpu:qwen2.5:7b');
    await model.generate(ask({ temperature: 0, maxTokens: 64, toolChoice: 'auto' }));
    const [req] = sent;
    assert.equal(req?.url, 'http://gpu-box:8080/api/chat');
    assert.equal(req?.headers.get('authorization'), 'Bearer sk-proxy');
    assert.equal(req?.headers.get('content-type'), 'application/json');
    assert.equal(req?.headers.get('accept'), 'application/x-ndjson');
    assert.equal(req?.headers.get('x-team'), 'trading');
    assert.deepEqual(req?.body, {
      model: 'qwen2.5:7b',
      messages: [{ role: 'user', content: 'Price for DE-LU?' }],
      stream: true,
      tools: [{ type: 'function', function: TOOLS[0] }],
      options: { temperature: 0, num_predict: 64, num_ctx: 8192 },
      think: 'low',
      keep_alive: '10m',
      truncate: false,
    });
  });

  it('defaults: local host, provider ollama, no auth, stream: false sent explicitly', async () => {
    const { fetch, sent } = script(() => json({ message: { role: 'assistant', content: 'ok' }, done: true }));
    const model = adapter(fetch);
    assert.equal(model.id, 'ollama:qwen2.5:7b');
    await model.generate(ask({ stream: false, tools: [] }));
    assert.equal(sent[0]?.url, 'http://127.0.0.1:11434/api/chat');
    assert.equal(sent[0]?.headers.get('authorization'), null);
    assert.equal(sent[0]?.headers.get('accept'), 'application/json');
    assert.equal(sent[0]?.body['stream'], false);
  });
});

describe('ollama adapter: answers', () => {
  it('streams pieces in order from small chunks, CRLF and blank lines included', async () => {
    const body = [piece('The'), '', piece(' price is'), '  ', piece(' €87.4 ⚡'), DONE].join('\r\n') + '\r\n';
    const { fetch } = script(() => ndjson(body, { size: 5 }));
    const deltas: string[] = [];
    const result = await adapter(fetch).generate(ask(), { onTextDelta: (t) => deltas.push(t) });
    assert.deepEqual(deltas, ['The', ' price is', ' €87.4 ⚡']);
    assert.equal(result.text, 'The price is €87.4 ⚡');
    assert.equal(result.finishReason, 'stop');
    assert.deepEqual(result.usage, { promptTokens: 26, completionTokens: 282, totalTokens: 308 });
  });

  it('streamed thinking and tool calls', async () => {
    const call = { id: 'call_k3b1x8zq', function: { index: 0, name: 'get_spot_price', arguments: { area: 'DE-LU' } } };
    const { fetch } = script(() =>
      ndjson([piece('', { thinking: 'Need the price.' }), piece('', { tool_calls: [call] }), DONE].join('\n') + '\n'),
    );
    const result = await adapter(fetch).generate(ask());
    assert.equal(result.reasoning, 'Need the price.');
    assert.deepEqual(result.toolCalls, [
      { id: 'call_k3b1x8zq', name: 'get_spot_price', arguments: '{"area":"DE-LU"}' },
    ]);
    assert.equal(result.finishReason, 'tool_calls');
  });

  it('a JSON body answered to a stream request still works, shown as one delta', async () => {
    const { fetch } = script(() =>
      json({ message: { role: 'assistant', content: 'whole answer' }, done: true, done_reason: 'stop' }),
    );
    const deltas: string[] = [];
    const result = await adapter(fetch).generate(ask(), { onTextDelta: (t) => deltas.push(t) });
    assert.deepEqual(deltas, ['whole answer']);
    assert.equal(result.text, 'whole answer');
  });

  it('an NDJSON body answered to a non-streaming request is read, showing no deltas', async () => {
    const { fetch } = script(() => ndjson(`${piece('a')}\n${piece('b')}\n${DONE}\n`));
    const deltas: string[] = [];
    const result = await adapter(fetch).generate(ask({ stream: false }), { onTextDelta: (t) => deltas.push(t) });
    assert.equal(result.text, 'ab');
    assert.deepEqual(deltas, []);
  });

  it('a stream without a content type (a proxy dropped it) is read as lines', async () => {
    const bytes = new TextEncoder().encode(`${piece('a')}\n${piece('b')}\n${DONE}\n`);
    const { fetch } = script(() => new Response(new Blob([bytes]).stream()));
    assert.equal((await adapter(fetch).generate(ask())).text, 'ab');
  });

  it('a 200 JSON body holding an error is model_error', async () => {
    const { fetch } = script(() =>
      json({ error: 'model requires more system memory (9.2 GiB) than is available (4.1 GiB)' }),
    );
    await rejectsWith(
      adapter(fetch).generate(ask({ stream: false })),
      'model_error',
      /answered 200 with an error: model requires more system memory/,
    );
  });

  it('a line that is not JSON is model_error quoting at most 200 characters of it', async () => {
    const { fetch, sent } = script(() => ndjson(`${piece('a')}\n<html>${'x'.repeat(500)}\n`));
    const error = await rejectsWith(
      adapter(fetch).generate(ask()),
      'model_error',
      /malformed stream from http:\/\/127\.0\.0\.1:11434\/api\/chat: a line is not JSON: "<html>x+"$/,
    );
    assert.ok(error.message.length < 400);
    assert.equal(sent.length, 1);
  });

  it('an error line is model_error and not retried, before or after text', async () => {
    const failure = '{"error":"an error was encountered while running the model: unexpected EOF"}\n';
    for (const body of [failure, `${piece('The')}\n${failure}`]) {
      const { fetch, sent } = script(
        () => ndjson(body),
        () => ndjson(`${piece('x')}\n${DONE}\n`),
      );
      await rejectsWith(
        adapter(fetch).generate(ask(), { onTextDelta: () => undefined }),
        'model_error',
        /^the model failed mid-stream: an error was encountered/,
      );
      assert.equal(sent.length, 1);
    }
  });

  it('a stream without a done line is retried while nothing was shown', async () => {
    const { fetch, sent } = script(
      () => ndjson(`${piece('', { thinking: 'hmm' })}\n`),
      () => ndjson(`${piece('again')}\n${DONE}\n`),
    );
    const result = await adapter(fetch).generate(ask(), { onTextDelta: () => undefined });
    assert.equal(result.text, 'again');
    assert.equal(sent.length, 2);
  });

  it('a stream without a done line after text is model_unavailable, not retried', async () => {
    const { fetch, sent } = script(
      () => ndjson(`${piece('The')}\n`),
      () => ndjson(`${DONE}\n`),
    );
    await rejectsWith(
      adapter(fetch).generate(ask(), { onTextDelta: () => undefined }),
      'model_unavailable',
      /no line with "done": true.*not retried/,
    );
    assert.equal(sent.length, 1);
  });
});

describe('ollama adapter: HTTP errors and retries', () => {
  it('500 (a runner restarting) then 200: retried once', async () => {
    const { fetch, sent } = script(
      () => json({ error: 'llama runner process has terminated: signal: killed' }, 500),
      () => ndjson(`${piece('ok')}\n${DONE}\n`),
    );
    assert.equal((await adapter(fetch).generate(ask())).text, 'ok');
    assert.equal(sent.length, 2);
  });

  it('500 every time: model_unavailable after maxRetries + 1 attempts', async () => {
    const fail = () => json({ error: 'llama runner process has terminated: exit status 2' }, 500);
    const { fetch, sent } = script(fail, fail, fail);
    await rejectsWith(
      adapter(fetch, { maxRetries: 2 }).generate(ask()),
      'model_unavailable',
      /gave up after 3 attempts, last HTTP 500 \(llama runner process/,
    );
    assert.equal(sent.length, 3);
  });

  it('404 for a model not pulled: not retried, with the ollama pull hint', async () => {
    const { fetch, sent } = script(() => json({ error: 'model "qwen2.5:7b" not found, try pulling it first' }, 404));
    await rejectsWith(
      adapter(fetch).generate(ask()),
      'model_not_found',
      /model "qwen2\.5:7b" is not available on http:\/\/127\.0\.0\.1:11434: pull it with `ollama pull qwen2\.5:7b`/,
    );
    assert.equal(sent.length, 1);
  });

  it('400 "does not support tools": tools_unsupported with details.toolsUnsupported', async () => {
    const { fetch, sent } = script(() =>
      json({ error: 'registry.ollama.ai/library/gemma2:2b does not support tools' }, 400),
    );
    const error = await rejectsWith(adapter(fetch, { model: 'gemma2:2b' }).generate(ask()), 'tools_unsupported');
    assert.equal(error.details?.['toolsUnsupported'], true);
    assert.equal(sent.length, 1);
  });

  it('connection refused: retried, then the shared connection error with the ollama serve hint', async () => {
    let calls = 0;
    const refused: typeof fetch = async () => {
      calls += 1;
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' }),
      });
    };
    await rejectsWith(
      adapter(refused, { maxRetries: 1 }).generate(ask()),
      'model_unavailable',
      /ECONNREFUSED.*is Ollama running at http:\/\/127\.0\.0\.1:11434\? start it with `ollama serve`/,
    );
    assert.equal(calls, 2);
  });
});
