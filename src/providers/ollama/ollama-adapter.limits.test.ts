// A runaway or hostile endpoint must fail one model call with model_error (or
// the caller's cancellation) without retrying it, and release the body.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, type ErrorCode } from '../../core/errors.ts';
import type { ModelRequest } from '../../core/ports/model-adapter.ts';
import { createOllamaAdapter, type OllamaAdapterOptions } from './ollama-adapter.ts';

const ask = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'Price for DE-LU?' }],
  tools: [],
  stream: true,
  ...over,
});
const piece = (content: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model: 'm', message: { role: 'assistant', content, ...extra }, done: false });
const NDJSON = { 'content-type': 'application/x-ndjson' };

/** A body that repeats `text` until 8 MiB (far past every limit here), or stays silent after it with `hang`. */
function source(text: string, mode: 'repeat' | 'hang'): { body: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  const bytes = new TextEncoder().encode(text);
  let cancelled = false;
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull: (controller) => {
      if (mode === 'hang' && sent > 0) return new Promise<void>(() => undefined);
      if (sent > 8 * 1024 * 1024) controller.close();
      else controller.enqueue(bytes);
      sent += bytes.length;
      return undefined;
    },
    cancel: () => void (cancelled = true),
  });
  return { body, cancelled: () => cancelled };
}

/** A fetch answering every request with `reply()`, counting requests. */
function answering(reply: () => Response): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  return {
    fetch: async () => {
      calls += 1;
      return reply();
    },
    calls: () => calls,
  };
}
const adapter = (fetchFn: typeof fetch, over: Partial<OllamaAdapterOptions> = {}) =>
  createOllamaAdapter({ model: 'qwen2.5:7b', fetch: fetchFn, retryBaseDelayMs: 1, ...over });

async function rejectsWith(promise: Promise<unknown>, code: ErrorCode, pattern: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return;
  }
  assert.fail(`expected a ${code} error`);
}

describe('ollama adapter: cancellation', () => {
  it('an abort mid-stream is cancelled, and the body is released', async () => {
    const stream = source(`${piece('The')}\n`, 'hang');
    const { fetch } = answering(() => new Response(stream.body, { headers: NDJSON }));
    const controller = new AbortController();
    const deltas: string[] = [];
    const call = adapter(fetch).generate(ask(), {
      signal: controller.signal,
      onTextDelta: (t) => {
        deltas.push(t);
        controller.abort(new Error('user pressed stop'));
      },
    });
    await rejectsWith(call, 'cancelled', /model request to http:\/\/127\.0\.0\.1:11434\/api\/chat was cancelled/);
    assert.deepEqual(deltas, ['The']);
    assert.equal(stream.cancelled(), true);
  });

  it('a signal aborted before the call sends nothing', async () => {
    const { fetch, calls } = answering(() => new Response('', { headers: NDJSON }));
    await rejectsWith(adapter(fetch).generate(ask(), { signal: AbortSignal.abort() }), 'cancelled', /cancelled/);
    assert.equal(calls(), 0);
  });
});

describe('ollama adapter: size limits', () => {
  it('maxStreamBytes: an endless stream fails once, naming providers.<name>.maxStreamBytes', async () => {
    const stream = source(`${piece('x')}\n`, 'repeat');
    const { fetch, calls } = answering(() => new Response(stream.body, { headers: NDJSON }));
    await rejectsWith(
      adapter(fetch, { provider: 'gpu', maxStreamBytes: 64 * 1024 }).generate(ask()),
      'model_error',
      /maxStreamBytes.*providers\.gpu\.maxStreamBytes/,
    );
    assert.equal(calls(), 1);
    assert.equal(stream.cancelled(), true);
  });

  it('maxEventBytes: one line that never ends fails, naming providers.ollama.maxEventBytes', async () => {
    const stream = source('{"message":{"content":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'repeat');
    const { fetch, calls } = answering(() => new Response(stream.body, { headers: NDJSON }));
    await rejectsWith(
      adapter(fetch, { maxEventBytes: 16 * 1024 }).generate(ask()),
      'model_error',
      /one line of the stream exceeds maxEventBytes.*providers\.ollama\.maxEventBytes/,
    );
    assert.equal(calls(), 1);
    assert.equal(stream.cancelled(), true);
  });

  it('maxResponseBytes: a declared or an actual body over the limit fails', async () => {
    const big = JSON.stringify({ message: { role: 'assistant', content: 'x'.repeat(20_000) }, done: true });
    const declared = answering(
      () =>
        new Response(big, { headers: { 'content-type': 'application/json', 'content-length': String(big.length) } }),
    );
    await rejectsWith(
      adapter(declared.fetch, { maxResponseBytes: 10_000 }).generate(ask({ stream: false })),
      'model_error',
      /Content-Length: \d+.*maxResponseBytes/,
    );
    const stream = source(big, 'repeat');
    const undeclared = answering(() => new Response(stream.body, { headers: { 'content-type': 'application/json' } }));
    await rejectsWith(
      adapter(undeclared.fetch, { maxResponseBytes: 10_000 }).generate(ask({ stream: false })),
      'model_error',
      /maxResponseBytes/,
    );
    assert.equal(undeclared.calls(), 1);
    assert.equal(stream.cancelled(), true);
  });

  it('a body within the limits passes', async () => {
    const { fetch } = answering(() => new Response(`${piece('ok')}\n{"done":true}\n`, { headers: NDJSON }));
    const result = await adapter(fetch, { maxStreamBytes: 200, maxEventBytes: 100 }).generate(ask());
    assert.equal(result.text, 'ok');
  });
});

describe('ollama adapter: maxToolCalls', () => {
  const call = (i: number) => ({ id: `call_${i}`, function: { index: i, name: 'f', arguments: {} } });

  it('streamed calls past the limit fail the answer', async () => {
    const lines = [0, 1, 2].map((i) => piece('', { tool_calls: [call(i)] })).join('\n');
    const { fetch, calls } = answering(() => new Response(`${lines}\n{"done":true}\n`, { headers: NDJSON }));
    await rejectsWith(
      adapter(fetch, { maxToolCalls: 2 }).generate(ask()),
      'model_error',
      /maxToolCalls.*providers\.ollama\.maxToolCalls/,
    );
    assert.equal(calls(), 1);
    const ok = answering(() => new Response(`${lines}\n{"done":true}\n`, { headers: NDJSON }));
    assert.equal((await adapter(ok.fetch, { maxToolCalls: 3 }).generate(ask())).toolCalls.length, 3);
  });

  it('a non-streamed answer with too many calls fails too', async () => {
    const body = JSON.stringify({
      message: { role: 'assistant', content: '', tool_calls: [0, 1, 2].map(call) },
      done: true,
    });
    const { fetch } = answering(() => new Response(body, { headers: { 'content-type': 'application/json' } }));
    await rejectsWith(
      adapter(fetch, { maxToolCalls: 2 }).generate(ask({ stream: false })),
      'model_error',
      /maxToolCalls/,
    );
  });
});
