import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import { decodeRunCursor, encodeRunCursor } from './run-cursor.ts';

describe('run cursor', () => {
  it('round-trips created_at and id through a URL-safe string', () => {
    const cursor = { createdAt: '2026-01-02T03:04:05.678Z', id: 'run_ü/+=' };
    const encoded = encodeRunCursor(cursor);
    assert.match(encoded, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeRunCursor(encoded), cursor);
  });

  const forged = Buffer.from(JSON.stringify(['yesterday', 'run_1'])).toString('base64url');
  for (const bad of [
    '',
    'not a cursor!',
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from('[1,2]').toString('base64url'),
    forged,
  ]) {
    it(`rejects ${JSON.stringify(bad)} with usage`, () => {
      assert.throws(
        () => decodeRunCursor(bad),
        (error: unknown) => error instanceof ToolgateError && error.code === 'usage',
      );
    });
  }
});
