import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { HttpError } from '../respond.ts';
import { withBearerChallenge } from './protected-resource.ts';

// Only the Host header and whether the socket is TLS are read.
const req: { headers: IncomingMessage['headers']; socket: object } = {
  headers: { host: 'toolgate.example:8080' },
  socket: {},
};
const request = { req: Object.assign(Object.create(null), req), path: '/mcp', resource: undefined };

function challengeOf(error: unknown): { status: number; header: string } {
  const answered = withBearerChallenge(error, request);
  assert.ok(answered instanceof HttpError, String(answered));
  return { status: answered.status, header: answered.headers?.['WWW-Authenticate'] ?? '' };
}

describe('withBearerChallenge', () => {
  it('a missing token: 401 naming the metadata of the resource (here the gateway’s /mcp)', () => {
    const { status, header } = challengeOf(new ToolgateError('unauthorized', 'missing bearer token'));
    assert.equal(status, 401);
    assert.equal(
      header,
      'Bearer resource_metadata="http://toolgate.example:8080/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('a refused token: invalid_token with a description that cannot break the header', () => {
    const refused = new ToolgateError('unauthorized', 'bearer token refused: "expired"\r\nX-Evil: 1', {
      details: { bearerError: 'invalid_token' },
    });
    const { status, header } = challengeOf(refused);
    assert.equal(status, 401);
    assert.match(header, /, error="invalid_token", error_description="bearer token refused: 'expired'''X-Evil: 1"$/);
  });

  it('a good token without a required scope: 403 insufficient_scope naming the scope', () => {
    const lacking = new ToolgateError('forbidden', 'bearer token refused: it lacks the scope(s) admin', {
      details: { bearerError: 'insufficient_scope', scope: 'admin' },
    });
    const { status, header } = challengeOf(lacking);
    assert.equal(status, 403);
    assert.match(header, /^Bearer resource_metadata="[^"]+\/mcp", error="insufficient_scope", scope="admin", /);
  });

  it('any other error is left as it is (a 403 of a role rule gets no challenge)', () => {
    const other = new ToolgateError('forbidden', 'only role trader may decide');
    assert.equal(withBearerChallenge(other, request), other);
  });
});
