import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { connectionError } from '../shared/http-errors.ts';
import { httpError, RETRYABLE_STATUSES, withConnectionHint } from './errors.ts';

const base = {
  url: 'http://127.0.0.1:11434/api/chat',
  baseUrl: 'http://127.0.0.1:11434',
  model: 'qwen2.5:7b',
  attempts: 1,
};

describe('ollama httpError', () => {
  it('a model that is not pulled: model_not_found with the ollama pull command, in both of Ollama wordings', () => {
    for (const body of [
      '{"error":"model \\"qwen2.5:7b\\" not found, try pulling it first"}',
      `{"error":"model 'qwen2.5:7b' not found"}`,
    ]) {
      const error = httpError({ ...base, status: 404, bodyText: body });
      assert.equal(error.code, 'model_not_found');
      assert.equal(
        error.message.split(' (Ollama said')[0],
        'model "qwen2.5:7b" is not available on http://127.0.0.1:11434: pull it with `ollama pull qwen2.5:7b`',
      );
      assert.match(error.message, /Ollama said: model .qwen2\.5:7b. not found/);
    }
  });

  it('any other 404 is a wrong host or path', () => {
    const error = httpError({
      ...base,
      url: 'http://127.0.0.1:11434/v1/api/chat',
      status: 404,
      bodyText: '404 page not found',
    });
    assert.equal(error.code, 'model_not_found');
    assert.match(
      error.message,
      /^http:\/\/127\.0\.0\.1:11434\/v1\/api\/chat was not found \(HTTP 404: 404 page not found\)/,
    );
    assert.match(
      error.message,
      new RegExp(
        String.raw`check the host \(OLLAMA_HOST \/ providers\.ollama\.host\) — it is the ` +
          String.raw`server root, e\.g\. http:\/\/127\.0\.0\.1:11434, without \/api or \/v1`,
      ),
    );
    assert.doesNotMatch(error.message, /ollama pull/);
  });

  it('auth: names the apiKey of the configured provider', () => {
    const error = httpError({
      ...base,
      baseUrl: 'https://ollama.example.com',
      status: 401,
      bodyText: '{"error":"unauthorized"}',
      provider: 'gpu-box',
    });
    assert.equal(error.code, 'model_auth');
    assert.match(error.message, /https:\/\/ollama\.example\.com rejected the credentials \(HTTP 401: unauthorized\)/);
    assert.match(
      error.message,
      /check providers\.gpu-box\.apiKey \(Ollama itself needs no key; a proxy in front of it does\)/,
    );
  });

  it(
    'a model without tool support is tools_unsupported ' +
      '(details.toolsUnsupported kept), so auto mode falls back to prompting',
    () => {
      const error = httpError({
        ...base,
        status: 400,
        bodyText: '{"error":"registry.ollama.ai/library/gemma2:2b does not support tools"}',
      });
      assert.equal(error.code, 'tools_unsupported');
      assert.equal(error.details?.['toolsUnsupported'], true);
      const other = httpError({ ...base, status: 400, bodyText: '{"error":"invalid think value: \\"max\\""}' });
      assert.equal(other.details?.['toolsUnsupported'], false);
    },
  );

  it('think sent to a model without thinking says which option to unset', () => {
    const error = httpError({
      ...base,
      status: 400,
      bodyText: '{"error":"\\"gemma3:4b\\" does not support thinking"}',
    });
    assert.equal(error.code, 'model_bad_request');
    assert.match(error.message, /does not support thinking.*; unset providers\.ollama\.think for this model$/);
    assert.equal(error.details?.['toolsUnsupported'], false);
  });

  it('server errors after retries are model_unavailable with the last message', () => {
    const error = httpError({
      ...base,
      status: 500,
      bodyText: '{"error":"llama runner process has terminated: exit status 2"}',
      attempts: 4,
    });
    assert.equal(error.code, 'model_unavailable');
    assert.match(
      error.message,
      /gave up after 4 attempts, last HTTP 500 \(llama runner process has terminated: exit status 2\)/,
    );
  });

  it('retries rate limits and transient server statuses only', () => {
    assert.deepEqual([...RETRYABLE_STATUSES].sort(), [429, 500, 502, 503, 504]);
  });
});

describe('withConnectionHint', () => {
  const refused = (code: string): ToolgateError =>
    connectionError({
      error: new TypeError('fetch failed', {
        cause: Object.assign(new Error(`connect ${code} 127.0.0.1:11434`), { code }),
      }),
      url: base.url,
      attempts: 4,
    });

  it('adds where Ollama was expected and how to start it when nothing listens there', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']) {
      const error = withConnectionHint(refused(code), { host: base.baseUrl, provider: 'ollama' });
      assert.ok(error instanceof ToolgateError && error.code === 'model_unavailable');
      assert.match(
        error.message,
        /^connection to http:\/\/127\.0\.0\.1:11434\/api\/chat failed: gave up after 4 attempts/,
      );
      assert.match(
        error.message,
        new RegExp(
          String.raw`is Ollama running at http://127\.0\.0\.1:11434\? start it with ` +
            '`ollama serve`' +
            String.raw`, or point OLLAMA_HOST / providers\.ollama\.host at it$`,
        ),
      );
      assert.equal(error.details?.['attempts'], 4);
    }
  });

  it('leaves other errors alone', () => {
    const reset = refused('ECONNRESET');
    assert.equal(withConnectionHint(reset, { host: base.baseUrl, provider: 'ollama' }), reset);
    const http = httpError({ ...base, status: 503, bodyText: '' });
    assert.equal(withConnectionHint(http, { host: base.baseUrl, provider: 'ollama' }), http);
    const plain = new Error('boom');
    assert.equal(withConnectionHint(plain, { host: base.baseUrl, provider: 'ollama' }), plain);
  });
});
