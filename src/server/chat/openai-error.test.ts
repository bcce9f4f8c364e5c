import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CODES } from '../../core/errors.ts';
import { httpStatusFor } from '../http-status.ts';
import { openAiErrorBody, openAiErrorType } from './openai-error.ts';

describe('OpenAI-shaped errors', () => {
  it('give every status the type OpenAI’s SDKs expect', () => {
    assert.deepEqual(
      [400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503, 504].map((status) => openAiErrorType(status)),
      [
        'invalid_request_error',
        'authentication_error',
        'permission_error',
        'not_found_error',
        'invalid_request_error',
        'invalid_request_error',
        'invalid_request_error',
        'rate_limit_error',
        'server_error',
        'api_error',
        'server_error',
        'api_error',
      ],
    );
  });

  it('carry toolgate’s code and message for every code, in OpenAI’s shape', () => {
    for (const code of ERROR_CODES) {
      const body = openAiErrorBody({ code, message: `scripted ${code}` }, httpStatusFor(code));
      assert.deepEqual(Object.keys(body.error), ['message', 'type', 'param', 'code']);
      assert.equal(body.error.code, code);
      assert.equal(body.error.message, `scripted ${code}`);
      assert.equal(body.error.param, null);
    }
  });
});
