import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isConnectionError, isToolsUnsupportedMessage, providerMessage } from '../shared/http-errors.ts';
import { parseRetryAfter, retryDelay } from '../shared/retry.ts';
import { httpError } from './errors.ts';

const FIXTURES = new URL('../../../test/fixtures/openai-wire/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');

const base = {
  url: 'http://localhost:11434/v1/chat/completions',
  baseUrl: 'http://localhost:11434/v1',
  model: 'qwen2.5:7b',
  attempts: 1,
};

describe('providerMessage', () => {
  it('reads every error body shape seen in the field', () => {
    assert.equal(
      providerMessage(fixture('ollama-400-tools-unsupported.json')),
      'registry.ollama.ai/library/gemma2:2b does not support tools',
    );
    assert.equal(
      providerMessage(fixture('vllm-400-auto-tool-choice.json')),
      '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    );
    assert.equal(providerMessage('{"error":"model is loading"}'), 'model is loading');
    assert.equal(
      providerMessage('{"detail":[{"loc":["body","model"],"msg":"field required"}]}'),
      '[{"loc":["body","model"],"msg":"field required"}]',
    );
    assert.equal(
      providerMessage('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>'),
      '502 Bad Gateway',
    );
    assert.equal(providerMessage('upstream timed out\n'), 'upstream timed out');
    assert.equal(providerMessage(''), '(empty body)');
  });

  it('truncates a huge body', () => {
    const message = providerMessage('x'.repeat(5000));
    assert.ok(message.length < 600, `length ${message.length}`);
    assert.ok(message.endsWith('…'));
  });
});

describe('isToolsUnsupportedMessage', () => {
  it('recognises servers that cannot do native tool calls', () => {
    for (const message of [
      'registry.ollama.ai/library/gemma2:2b does not support tools',
      'tools param requires --jinja flag',
      '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      'This model does not support function calling',
      'Tool use is not supported for this model',
      'tool_choice is not supported',
    ]) {
      assert.equal(isToolsUnsupportedMessage(message), true, message);
    }
  });

  it('does not flag other bad requests that merely mention tools', () => {
    for (const message of [
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      "Invalid 'tools[0].function.name': string does not match pattern.",
      'maximum context length is 8192 tokens',
    ]) {
      assert.equal(isToolsUnsupportedMessage(message), false, message);
    }
  });
});

describe('httpError', () => {
  it('maps statuses to codes and says how to fix them', () => {
    const auth = httpError({ ...base, status: 401, bodyText: fixture('openai-401-invalid-key.json') });
    assert.equal(auth.code, 'model_auth');
    assert.match(
      auth.message,
      /check --api-key \/ OPENAI_API_KEY \/ providers\.openai\.apiKey for http:\/\/localhost:11434\/v1/,
    );
    assert.match(auth.message, /Incorrect API key provided/);
    assert.equal(httpError({ ...base, status: 403, bodyText: '' }).code, 'model_auth');

    const missing = httpError({ ...base, status: 404, bodyText: fixture('ollama-404-model-not-found.json') });
    assert.equal(missing.code, 'model_not_found');
    assert.ok(missing.message.includes(base.url));
    assert.match(missing.message, /model "llama9" not found, try pulling it first/);
    assert.match(missing.message, /--base-url ends at the API root, e\.g\. http:\/\/localhost:11434\/v1/);

    const bad = httpError({ ...base, status: 400, bodyText: fixture('llamacpp-400-tools-jinja.json') });
    assert.equal(bad.code, 'tools_unsupported');
    assert.equal(bad.details?.['toolsUnsupported'], true);
    assert.match(bad.message, /tools param requires --jinja flag/);

    const limited = httpError({
      ...base,
      status: 429,
      bodyText: fixture('openai-429-insufficient-quota.json'),
      attempts: 1,
    });
    assert.equal(limited.code, 'model_rate_limited');
    assert.match(limited.message, /quota exhausted/);

    const down = httpError({ ...base, status: 503, bodyText: fixture('openai-503-overloaded.json'), attempts: 4 });
    assert.equal(down.code, 'model_unavailable');
    assert.match(
      down.message,
      /gave up after 4 attempts, last HTTP 503 \(The server is overloaded or not ready yet\.\)/,
    );
  });
});

describe('isConnectionError', () => {
  it('recognises fetch network failures, not programming errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    assert.equal(isConnectionError(new TypeError('fetch failed', { cause: refused })), true);
    assert.equal(isConnectionError(new TypeError('terminated')), true);
    assert.equal(isConnectionError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })), true);
    assert.equal(isConnectionError(new TypeError("Cannot read properties of undefined (reading 'x')")), false);
    assert.equal(isConnectionError('ECONNREFUSED'), false);
  });
});

describe('retry timing', () => {
  it('parses Retry-After as seconds, as an HTTP date, and retry-after-ms', () => {
    const now = Date.parse('2025-03-14T14:00:00Z');
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '2' }), now), 2000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Fri, 14 Mar 2025 14:00:05 GMT' }), now), 5000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Fri, 14 Mar 2025 13:00:00 GMT' }), now), 0);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '1' }), now), 250);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now), undefined);
    assert.equal(parseRetryAfter(new Headers(), now), undefined);
  });

  it('caps the server-requested wait and grows the jittered backoff exponentially', () => {
    assert.equal(retryDelay({ retry: 1, baseMs: 500, maxMs: 60_000, retryAfterMs: 3_600_000 }), 60_000);
    assert.equal(retryDelay({ retry: 1, baseMs: 500, maxMs: 60_000, retryAfterMs: 0 }), 0);
    for (let retry = 1; retry <= 4; retry += 1) {
      const d = retryDelay({ retry, baseMs: 100, maxMs: 60_000 });
      const full = 100 * 2 ** (retry - 1);
      assert.ok(d >= full / 2 && d <= full, `retry ${retry}: ${d}`);
    }
    assert.equal(retryDelay({ retry: 30, baseMs: 100, maxMs: 1000 }) <= 1000, true);
  });
});
