import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/index.ts';
import { MemoryLimits } from '../../store/memory/memory-limits.ts';
import { AuthThrottle } from '../auth-throttle.ts';
import { OidcVerifier } from './oidc-verifier.ts';
import { tokenCaller } from './token-auth.ts';

/** A JWT-shaped token of an issuer nobody configured: refused before any key is fetched. */
function foreignToken(signature: string): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', kid: 'k1' })}.${part({ iss: 'https://elsewhere.example', sub: 'x' })}.${signature}`;
}

function request(address: string): IncomingMessage {
  // The throttle reads the peer address only; a plain object stands for the socket.
  const req: Pick<IncomingMessage, 'headers' | 'url'> & { socket: { remoteAddress: string } } = {
    headers: {},
    url: '/v1/runs',
    socket: { remoteAddress: address },
  };
  return Object.assign(Object.create(null), req);
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'accepted';
  } catch (error) {
    assert.ok(error instanceof ToolgateError, String(error));
    return error.code;
  }
}

describe('tokenCaller and the failure throttle', () => {
  it('counts a refused token against its address, never against the header every JWT starts with', async () => {
    const verifier = new OidcVerifier({ issuers: [{ issuer: 'https://login.example' }] });
    const throttle = new AuthThrottle({ limits: new MemoryLimits(), freeFailures: 2, baseDelayMs: 60_000 });
    const context = { verifier, resource: 'https://toolgate.example', throttle };
    const guesser = request('203.0.113.9');
    const codes: string[] = [];
    for (let i = 0; i < 5; i++) codes.push(await codeOf(tokenCaller(guesser, foreignToken(`sig${i}guess`), context)));
    assert.deepEqual(codes, ['unauthorized', 'unauthorized', 'rate_limited', 'rate_limited', 'rate_limited']);

    // Another client whose token failed once (it expired, say) is not held back by the guesser's failures.
    const other = request('198.51.100.7');
    assert.equal(await codeOf(tokenCaller(other, foreignToken('own-signature-1'), context)), 'unauthorized');
    assert.equal(await codeOf(tokenCaller(other, foreignToken('own-signature-2'), context)), 'unauthorized');
  });
});
