import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { ToolgateError } from '../core/errors.ts';
import { DEFAULT_MAX_BODY_DEPTH, readJsonBody } from './body.ts';
import { toErrorResponse } from './respond.ts';

/** A request as the server sees it: a readable body and its headers. */
function request(
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): IncomingMessage {
  return Object.assign(Readable.from([Buffer.from(body)]), { headers }) as unknown as IncomingMessage;
}

async function refusal(
  body: string,
  options: Parameters<typeof readJsonBody>[1] = {},
): Promise<{ status: number; message: string }> {
  try {
    await readJsonBody(request(body), options);
  } catch (error) {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError, got ${String(error)}`);
    const response = toErrorResponse(error);
    return { status: response.status, message: response.body.error.message };
  }
  assert.fail('the body was accepted');
}

const nested = (depth: number, inner = '1'): string => `${'{"a":['.repeat(depth)}${inner}${']}'.repeat(depth)}`;

describe('readJsonBody', () => {
  it('reads a JSON body, and an empty one as undefined', async () => {
    assert.deepEqual(await readJsonBody(request('{"input": "hi", "n": [1, 2.5e3]}')), { input: 'hi', n: [1, 2500] });
    assert.equal(await readJsonBody(request('')), undefined);
  });

  it('answers 400 with the position for JSON that does not parse, and 415 for a body that is not JSON', async () => {
    assert.deepEqual(await refusal('{"a": }'), {
      status: 400,
      message: "request body is not valid JSON at line 1, column 7 (position 6): Unexpected token '}'",
    });
    await assert.rejects(
      readJsonBody(request('{}', { 'content-type': 'text/plain' })),
      (error: unknown) => toErrorResponse(error).status === 415,
    );
  });

  it('refuses a body nested deeper than the limit with a 400 naming the limit, never a 500', async () => {
    assert.equal(DEFAULT_MAX_BODY_DEPTH, 64);
    for (const depth of [33, 1_000, 2_000, 150_000]) {
      const { status, message } = await refusal(nested(depth), { maxBytes: 10 * 1024 * 1024 });
      assert.equal(status, 400);
      // The 65th opener: the first of the 33rd '{"a":[' unit.
      assert.equal(message, 'request body nests deeper than 64 levels at line 1, column 193 (position 192)');
    }
    assert.match(
      (await refusal(`{"s": "[[[{{{", "deep": ${nested(40)}}`)).message,
      /^request body nests deeper than 64 levels/,
    );
    assert.deepEqual(await readJsonBody(request(nested(32))), JSON.parse(nested(32)));
  });

  it('takes the depth limit from its options', async () => {
    assert.equal(
      (await refusal('{"a": {"b": {}}}', { maxDepth: 2 })).message,
      'request body nests deeper than 2 levels at line 1, column 13 (position 12)',
    );
    assert.deepEqual(await readJsonBody(request('{"a": "{{{[[["}'), { maxDepth: 1 }), { a: '{{{[[[' });
    assert.deepEqual(await readJsonBody(request('{"a": {"b": {}}}'), { maxDepth: 3 }), { a: { b: {} } });
  });

  it('refuses numbers out of range with a 400 naming the field', async () => {
    for (const [body, path] of [
      ['{"qty": 1e400}', '/qty'],
      ['{"input": "x", "options": {"limits": [1, -1e999]}}', '/options/limits/1'],
      [`{"n": ${'9'.repeat(400)}}`, '/n'],
      ['1e400', '(the whole body)'],
    ] as const) {
      const { status, message } = await refusal(body);
      assert.equal(status, 400, body);
      assert.ok(message.startsWith(`request body field ${path}: `), message);
      assert.match(message, /not a finite number/);
    }
  });
});
