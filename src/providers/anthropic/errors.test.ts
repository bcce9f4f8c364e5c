import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpError, isQuotaGone, shouldRetry } from './errors.ts';

const base = {
  url: 'https://api.anthropic.com/v1/messages',
  baseUrl: 'https://api.anthropic.com',
  model: 'claude-sonnet-4-5',
  attempts: 1,
};
const body = (type: string, message: string): string =>
  JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' });

describe('shouldRetry', () => {
  it('retries 408, 409, 429, 5xx and 529, nothing else', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504, 529])
      assert.equal(shouldRetry({ status, bodyText: '' }), true, String(status));
    for (const status of [400, 401, 403, 404, 413, 422])
      assert.equal(shouldRetry({ status, bodyText: '' }), false, String(status));
  });

  it('obeys x-should-retry either way', () => {
    assert.equal(shouldRetry({ status: 529, bodyText: '', shouldRetryHeader: 'false' }), false);
    assert.equal(shouldRetry({ status: 400, bodyText: '', shouldRetryHeader: 'true' }), true);
    assert.equal(shouldRetry({ status: 529, bodyText: '', shouldRetryHeader: null }), true);
  });

  it('does not retry a 429 for a spent limit', () => {
    const spent = JSON.stringify({
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message: 'spend limit reached',
        details: { error_code: 'enforced_spend_limit_reached' },
      },
    });
    assert.equal(isQuotaGone(spent), true);
    assert.equal(shouldRetry({ status: 429, bodyText: spent }), false);
    assert.equal(
      isQuotaGone(body('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit')),
      false,
    );
    assert.equal(isQuotaGone('<html>'), false);
  });
});

describe('httpError', () => {
  it('401 names the key settings, for the default and a named provider', () => {
    const auth = httpError({ ...base, status: 401, bodyText: body('authentication_error', 'invalid x-api-key') });
    assert.equal(auth.code, 'model_auth');
    assert.match(auth.message, /invalid x-api-key/);
    assert.match(
      auth.message,
      /check ANTHROPIC_API_KEY \/ providers\.anthropic\.apiKey for https:\/\/api\.anthropic\.com/,
    );
    const named = httpError({
      ...base,
      status: 403,
      bodyText: body('permission_error', 'no access'),
      provider: 'claude-eu',
    });
    assert.match(named.message, /check providers\.claude-eu\.apiKey/);
    assert.doesNotMatch(named.message, /ANTHROPIC_API_KEY/);
  });

  it('404 names the URL, the model and the base-URL rule', () => {
    const missing = httpError({
      ...base,
      model: 'claude-sonet-4',
      status: 404,
      bodyText: body('not_found_error', 'model: claude-sonet-4'),
    });
    assert.equal(missing.code, 'model_not_found');
    assert.match(
      missing.message,
      new RegExp(
        String.raw`model "claude-sonet-4" was not found: POST https:\/\/api\.anthrop` +
          String.raw`ic\.com\/v1\/messages answered HTTP 404 \(model: claude-sonet-4\)`,
      ),
    );
    assert.match(
      missing.message,
      new RegExp(
        String.raw`e\.g\. claude-sonnet-4-5\) and that the base URL is the A` +
          String.raw`PI root without \/v1, e\.g\. https:\/\/api\.anthropic\.com`,
      ),
    );
  });

  it('529 after retries is model_unavailable; 429 model_rate_limited; 413 model_bad_request', () => {
    const down = httpError({ ...base, status: 529, bodyText: body('overloaded_error', 'Overloaded'), attempts: 4 });
    assert.equal(down.code, 'model_unavailable');
    assert.match(down.message, /gave up after 4 attempts, last HTTP 529 \(Overloaded\)/);
    assert.equal(
      httpError({ ...base, status: 429, bodyText: body('rate_limit_error', 'slow down') }).code,
      'model_rate_limited',
    );
    assert.equal(
      httpError({ ...base, status: 413, bodyText: body('request_too_large', 'Request exceeds the maximum size') }).code,
      'model_bad_request',
    );
  });
});
