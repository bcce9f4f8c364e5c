// A runaway or hostile endpoint must fail one model call with model_error or
// model_timeout in bounded time and memory, release the connection, and leave
// the process serving. Limits are set small here so each case is quick.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { ToolgateError, type ErrorCode } from '../../core/errors.ts';
import type { ModelAdapter, ModelRequest } from '../../core/ports/model-adapter.ts';
import { startMockOpenAI, type MockOpenAI } from '../../../test/support/mock-openai-server.ts';
import { createOpenAIAdapter, type OpenAIAdapterOptions } from './openai-adapter.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'Price for DE-LU?' }],
  tools: [],
  stream: true,
  ...over,
});

let mock: MockOpenAI;
/** A generous timeout: a size limit must trip long before it. */
const adapter = (over: Partial<OpenAIAdapterOptions> = {}): ModelAdapter =>
  createOpenAIAdapter({
    model: 'gpt-4o-mini',
    baseUrl: mock.url,
    apiKey: 'sk-test',
    retryBaseDelayMs: 1,
    timeoutMs: 5_000,
    ...over,
  });

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

/** Rejects with `code` (and `pattern`) within `withinMs`. */
async function failsWith(
  promise: Promise<unknown>,
  code: ErrorCode,
  pattern: RegExp,
  withinMs: number,
): Promise<ToolgateError> {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    const elapsed = performance.now() - started;
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    assert.ok(elapsed < withinMs, `took ${Math.round(elapsed)} ms`);
    return error;
  }
  assert.fail(`expected a ${code} error`);
}

/** Polls (bounded) until the mock saw the client leave: the adapter released the connection. */
async function released(index = 0): Promise<void> {
  for (let i = 0; i < 200 && mock.requests[index]?.disconnected !== true; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(mock.requests[index]?.disconnected, true, 'the connection was not released');
}

const sse = (chunks: unknown[]): string =>
  `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
const toolCallChunk = (index: number): unknown => ({
  object: 'chat.completion.chunk',
  choices: [
    {
      index: 0,
      delta: {
        tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      finish_reason: null,
    },
  ],
});
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('openai adapter: size limits', () => {
  it('an endless stream → model_error naming maxStreamBytes, not retried, connection released', async () => {
    mock.enqueue({ endlessStream: true });
    await failsWith(
      adapter({ maxStreamBytes: 64 * KiB }).generate(ask()),
      'model_error',
      /maxStreamBytes.*providers\.openai\.maxStreamBytes/,
      3_000,
    );
    assert.equal(mock.requests.length, 1);
    await released();
  });

  it('a non-streamed body over maxResponseBytes → model_error, not retried, connection released', async () => {
    mock.enqueue({ hugeBody: 32 * MiB });
    await failsWith(
      adapter({ maxResponseBytes: 64 * KiB }).generate(ask({ stream: false })),
      'model_error',
      /maxResponseBytes.*providers\.openai\.maxResponseBytes/,
      3_000,
    );
    assert.equal(mock.requests.length, 1);
    await released();
  });

  it('a Content-Length over maxResponseBytes is refused before the body is read', async () => {
    mock.enqueue({ hugeBody: 32 * MiB, announceLength: true });
    await failsWith(
      adapter({ maxResponseBytes: 64 * KiB }).generate(ask({ stream: false })),
      'model_error',
      /Content-Length.*maxResponseBytes/,
      3_000,
    );
    await released();
  });

  it('one event over maxEventBytes → model_error naming maxEventBytes', async () => {
    mock.enqueue({ hugeEvent: 32 * MiB });
    await failsWith(
      adapter({ maxEventBytes: 16 * KiB }).generate(ask()),
      'model_error',
      /maxEventBytes.*providers\.openai\.maxEventBytes/,
      3_000,
    );
    assert.equal(mock.requests.length, 1);
    await released();
  });

  it('an error body is read only up to a bound, and quoted truncated', async () => {
    mock.enqueue({ hugeBody: 32 * MiB, status: 500 });
    const error = await failsWith(
      adapter({ maxRetries: 0 }).generate(ask()),
      'model_unavailable',
      /last HTTP 500 \(.*a{400}…\)/,
      3_000,
    );
    assert.ok(error.message.length < 1_000, `message of ${error.message.length} characters`);
    await released();
  });

  it('more tool calls than maxToolCalls → model_error, streamed or not', async () => {
    const calls = [0, 1, 2, 3, 4];
    mock.enqueue({ raw: sse(calls.map(toolCallChunk)), contentType: 'text/event-stream' });
    await failsWith(
      adapter({ maxToolCalls: 4 }).generate(ask()),
      'model_error',
      /maxToolCalls.*providers\.openai\.maxToolCalls/,
      3_000,
    );
    const message = {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((i) => ({ id: `call_${i}`, type: 'function', function: { name: 'f', arguments: '{}' } })),
    };
    mock.enqueue({
      raw: JSON.stringify({ object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'tool_calls' }] }),
    });
    await failsWith(
      adapter({ maxToolCalls: 4 }).generate(ask({ stream: false })),
      'model_error',
      /maxToolCalls/,
      3_000,
    );
    mock.enqueue({ raw: sse(calls.slice(0, 4).map(toolCallChunk)), contentType: 'text/event-stream' });
    assert.equal((await adapter({ maxToolCalls: 4 }).generate(ask())).toolCalls.length, 4);
  });

  it('a huge tool-call index is a label, not the size of anything', async () => {
    mock.enqueue({ raw: sse([toolCallChunk(1e9), toolCallChunk(2 ** 53)]), contentType: 'text/event-stream' });
    const result = await adapter().generate(ask());
    assert.deepEqual(
      result.toolCalls.map((c) => c.id),
      ['call_1000000000', `call_${2 ** 53}`],
    );
  });

  it('JSON nested far too deep → model_error, not a stack overflow', async () => {
    mock.enqueue({ raw: `{"choices":${nested(20_000)}}` });
    await failsWith(adapter().generate(ask({ stream: false })), 'model_error', /not a chat completion/, 3_000);
    mock.enqueue({ raw: `data: ${nested(20_000)}\n\n`, contentType: 'text/event-stream' });
    await failsWith(adapter().generate(ask()), 'model_error', /malformed stream/, 3_000);
    mock.enqueue({ raw: `data: {"error":{"detail":${nested(20_000)}}}\n\n`, contentType: 'text/event-stream' });
    await failsWith(adapter().generate(ask()), 'model_error', /mid-stream/, 3_000);
    const deepArguments =
      `{"choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"c","` +
      `type":"function","function":{"name":"f","arguments":{"a":${nested(20_000)}}}}]}}]}`;
    mock.enqueue({ raw: deepArguments });
    await failsWith(adapter().generate(ask({ stream: false })), 'model_error', /arguments/, 3_000);
  });
});

describe('openai adapter: time limits', () => {
  it('a stream that trickles a byte at a time is cut at timeoutMs', async () => {
    mock.enqueue({ text: 'a long answer '.repeat(50), trickleMs: 5 });
    await failsWith(adapter({ timeoutMs: 300 }).generate(ask()), 'model_timeout', /within 300 ms/, 2_000);
    await released();
  });

  it('a JSON body that trickles is cut at timeoutMs', async () => {
    mock.enqueue({ text: 'a long answer '.repeat(50), trickleMs: 5 });
    await failsWith(
      adapter({ timeoutMs: 300 }).generate(ask({ stream: false })),
      'model_timeout',
      /within 300 ms/,
      2_000,
    );
    await released();
  });

  it('an endless stream within every size limit is cut at timeoutMs', async () => {
    mock.enqueue({ endlessStream: true, chunkDelayMs: 1 });
    await failsWith(adapter({ timeoutMs: 300 }).generate(ask()), 'model_timeout', /within 300 ms/, 2_000);
    await released();
  });

  it('timeoutMs holds under a fetch that ignores the signal', async () => {
    let cancelled = 0;
    const silentBody = (): ReadableStream<Uint8Array> =>
      new ReadableStream({
        cancel: () => void (cancelled += 1),
      });
    const stalledBody: typeof fetch = async () =>
      new Response(silentBody(), { headers: { 'content-type': 'text/event-stream' } });
    const neverAnswers: typeof fetch = () => new Promise<Response>(() => undefined);
    for (const fetchFn of [stalledBody, neverAnswers]) {
      const model = createOpenAIAdapter({
        model: 'm',
        baseUrl: 'http://model.invalid/v1',
        timeoutMs: 100,
        maxRetries: 0,
        fetch: fetchFn,
      });
      const guard = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('still waiting after 2 s')), 2_000).unref(),
      );
      await failsWith(Promise.race([model.generate(ask()), guard]), 'model_timeout', /within 100 ms/, 2_000);
    }
    assert.equal(cancelled, 1, 'the stalled body was cancelled');
  });
});

describe('openai adapter: the process stays healthy', () => {
  it('eight runaway answers at once each fail alone, then a normal answer works', async () => {
    const limits = { maxStreamBytes: 256 * KiB, maxResponseBytes: 256 * KiB, maxEventBytes: 64 * KiB };
    mock.enqueue(
      { endlessStream: true },
      { endlessStream: true },
      { endlessStream: true },
      { hugeBody: 32 * MiB },
      { hugeBody: 32 * MiB },
      { hugeBody: 32 * MiB, announceLength: true },
      { hugeEvent: 32 * MiB },
      { hugeEvent: 32 * MiB },
    );
    const model = adapter(limits);
    const streams = [true, true, true, false, false, false, true, true];
    const results = await Promise.allSettled(streams.map((stream) => model.generate(ask({ stream }))));
    for (const result of results) {
      assert.equal(result.status, 'rejected');
      const reason: unknown = result.reason;
      assert.ok(reason instanceof ToolgateError && reason.code === 'model_error', String(reason));
    }
    for (let i = 0; i < 8; i += 1) await released(i);
    mock.enqueue({ text: 'still here' });
    assert.equal((await model.generate(ask())).text, 'still here');
  });
});
