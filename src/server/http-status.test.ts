import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../core/errors.ts';
import { HTTP_STATUS_BY_CODE, httpStatusFor } from './http-status.ts';

describe('HTTP status table', () => {
  it('gives every error code a status, and lists no code that does not exist', () => {
    for (const code of ERROR_CODES) {
      const status = httpStatusFor(code);
      assert.ok(Number.isInteger(status) && status >= 400 && status <= 599, `${code} → ${status}`);
    }
    assert.deepEqual(Object.keys(HTTP_STATUS_BY_CODE).sort(), [...ERROR_CODES].sort());
  });

  it('maps the runs API codes to their documented statuses', () => {
    assert.deepEqual(
      Object.fromEntries(
        (
          [
            'usage',
            'config_invalid',
            'unauthorized',
            'forbidden',
            'not_found',
            'conflict',
            'idempotency_mismatch',
            'overloaded',
            'shutting_down',
            'internal',
          ] as const
        ).map((code) => [code, httpStatusFor(code)]),
      ),
      {
        usage: 400,
        config_invalid: 400,
        unauthorized: 401,
        forbidden: 403,
        not_found: 404,
        conflict: 409,
        idempotency_mismatch: 422,
        overloaded: 429,
        shutting_down: 503,
        internal: 500,
      },
    );
  });

  it('treats model failures as gateway errors, except those the client can act on', () => {
    const expected: Record<string, number> = {
      model_timeout: 504,
      model_auth: 401,
      model_rate_limited: 429,
      model_not_allowed: 400,
    };
    for (const code of ERROR_CODES.filter((c) => c.startsWith('model_'))) {
      assert.equal(httpStatusFor(code), expected[code] ?? 502, code);
    }
  });
});
