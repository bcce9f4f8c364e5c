// Retries, errors inside a 200 stream, broken streams and cancellation, with an injected fetch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, type ErrorCode } from '../../core/errors.ts';
import type { ModelRequest } from '../../core/ports/model-adapter.ts';
import { createAnthropicAdapter, type AnthropicAdapterOptions } from './anthropic-adapter.ts';

/** A fetch that answers from a script and counts the requests. */
function scripted(...answers: (() => Response)[]): { fetch: typeof fetch; count: () => number } {
  let count = 0;
  const fetchFn: typeof fetch = async () => {
    count += 1;
    const next = answers.shift();
    assert.ok(next, 'more requests than scripted answers');
    return next();
  };
  return { fetch: fetchFn, count: () => count };
}

const sse = (events: [string, unknown][]): string =>
  events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
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
const textStart: [string, unknown] = [
  'content_block_start',
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
];
const piece = (text: string): [string, unknown] => [
  'content_block_delta',
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
];
const end: [string, unknown][] = [
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }],
  ['message_stop', { type: 'message_stop' }],
];
const overloaded: [string, unknown] = [
  'error',
  { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
];

/** A stream of `text`, then (optionally) a failure or a body that never ends. */
function body(text: string, after: 'close' | 'hang' | Error = 'close'): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(text));
      } else if (after === 'close') controller.close();
      else if (after !== 'hang') controller.error(after);
      else return new Promise<void>(() => undefined);
      return undefined;
    },
  });
}
const streamed =
  (text: string, after: 'close' | 'hang' | Error = 'close'): (() => Response) =>
  () =>
    new Response(body(text, after), { headers: { 'content-type': 'text/event-stream' } });
const answer = (text: string): (() => Response) => streamed(sse([start, textStart, piece(text), ...end]));
const failure =
  (status: number, type: string, message: string, headers: Record<string, string> = {}): (() => Response) =>
  () =>
    new Response(JSON.stringify({ type: 'error', error: { type, message } }), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });

const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'Price for DE-LU?' }],
  tools: [],
  stream: true,
  ...over,
});
const adapter = (fetchFn: typeof fetch, over: Partial<AnthropicAdapterOptions> = {}) =>
  createAnthropicAdapter({
    model: 'claude-sonnet-4-5',
    apiKey: 'sk-ant-test',
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

describe('anthropic adapter: HTTP retries', () => {
  it('429 with retry-after, then success: retried once', async () => {
    const { fetch, count } = scripted(
      failure(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', {
        'retry-after': '0',
      }),
      answer('after the wait'),
    );
    assert.equal((await adapter(fetch).generate(ask())).text, 'after the wait');
    assert.equal(count(), 2);
  });

  it('529 overloaded, then success', async () => {
    const { fetch, count } = scripted(
      failure(529, 'overloaded_error', 'Overloaded', { 'retry-after-ms': '1' }),
      answer('back'),
    );
    assert.equal((await adapter(fetch).generate(ask({ stream: false }))).text, 'back');
    assert.equal(count(), 2);
  });

  it('exhausted 529s → model_unavailable with the attempts and the last status', async () => {
    const { fetch, count } = scripted(
      ...Array.from({ length: 3 }, () => failure(529, 'overloaded_error', 'Overloaded')),
    );
    await rejectsWith(
      adapter(fetch, { maxRetries: 2 }).generate(ask()),
      'model_unavailable',
      /gave up after 3 attempts, last HTTP 529 \(Overloaded\)/,
    );
    assert.equal(count(), 3);
  });

  it('401 is not retried → model_auth with the key hint', async () => {
    const { fetch, count } = scripted(failure(401, 'authentication_error', 'invalid x-api-key'));
    await rejectsWith(adapter(fetch).generate(ask()), 'model_auth', /invalid x-api-key.*ANTHROPIC_API_KEY/);
    assert.equal(count(), 1);
  });

  it('x-should-retry: false stops a retry the status would get; true retries a status that would not', async () => {
    const refused = scripted(failure(529, 'overloaded_error', 'Overloaded', { 'x-should-retry': 'false' }));
    await rejectsWith(adapter(refused.fetch).generate(ask()), 'model_unavailable', /1 attempt/);
    assert.equal(refused.count(), 1);
    const invited = scripted(
      failure(400, 'invalid_request_error', 'try again', { 'x-should-retry': 'true' }),
      answer('second'),
    );
    assert.equal((await adapter(invited.fetch).generate(ask())).text, 'second');
    assert.equal(invited.count(), 2);
  });
});

describe('anthropic adapter: errors inside a stream', () => {
  it('an overloaded_error event before any text is retried like a 529', async () => {
    const { fetch, count } = scripted(streamed(sse([start, overloaded])), answer('second try'));
    const deltas: string[] = [];
    const result = await adapter(fetch).generate(ask(), { onTextDelta: (t) => deltas.push(t) });
    assert.equal(result.text, 'second try');
    assert.deepEqual(deltas, ['second try']);
    assert.equal(count(), 2);
  });

  it('overloaded stream errors until the retries run out → model_unavailable', async () => {
    const { fetch, count } = scripted(streamed(sse([start, overloaded])), streamed(sse([start, overloaded])));
    await rejectsWith(
      adapter(fetch, { maxRetries: 1 }).generate(ask()),
      'model_unavailable',
      /2 attempts, last HTTP 529 \(Overloaded\)/,
    );
    assert.equal(count(), 2);
  });

  it('an overloaded_error event after text reached the caller is not retried', async () => {
    const { fetch, count } = scripted(streamed(sse([start, textStart, piece('The price'), overloaded])));
    const deltas: string[] = [];
    await rejectsWith(
      adapter(fetch).generate(ask(), { onTextDelta: (t) => deltas.push(t) }),
      'model_unavailable',
      /not retried.*Overloaded/,
    );
    assert.deepEqual(deltas, ['The price']);
    assert.equal(count(), 1);
  });

  it('a stream without message_stop is retried when nobody saw its text, and final when someone did', async () => {
    const cut = sse([start, textStart, piece('The price')]);
    const quiet = scripted(streamed(cut), answer('complete'));
    assert.equal((await adapter(quiet.fetch).generate(ask())).text, 'complete');
    assert.equal(quiet.count(), 2);
    const watched = scripted(streamed(cut));
    await rejectsWith(
      adapter(watched.fetch).generate(ask(), { onTextDelta: () => undefined }),
      'model_unavailable',
      /no message_stop.*not retried/,
    );
    assert.equal(watched.count(), 1);
  });

  it('a connection lost mid-stream before any text is retried', async () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const { fetch, count } = scripted(
      streamed(sse([start]), new TypeError('terminated', { cause: reset })),
      answer('reconnected'),
    );
    assert.equal((await adapter(fetch).generate(ask())).text, 'reconnected');
    assert.equal(count(), 2);
  });
});

describe('anthropic adapter: cancellation', () => {
  it('abort mid-stream → cancelled, and nothing is retried', async () => {
    const { fetch, count } = scripted(streamed(sse([start, textStart, piece('a long answer')]), 'hang'));
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = adapter(fetch).generate(ask(), {
      signal: controller.signal,
      onTextDelta: (t) => {
        deltas.push(t);
        controller.abort();
      },
    });
    await rejectsWith(pending, 'cancelled');
    assert.deepEqual(deltas, ['a long answer']);
    assert.equal(count(), 1);
  });

  it('an already aborted signal sends nothing', async () => {
    const { fetch, count } = scripted();
    await rejectsWith(adapter(fetch).generate(ask(), { signal: AbortSignal.abort() }), 'cancelled');
    assert.equal(count(), 0);
  });
});
