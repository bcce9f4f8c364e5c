import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { authorizationUrl, pkceChallenge } from './login-request.ts';
import { newLoginSecrets } from './login-state.ts';

describe('the authorization request', () => {
  it('carries every parameter, and an S256 challenge of the verifier', () => {
    const secrets = newLoginSecrets();
    const url = new URL(
      authorizationUrl({
        authorizationEndpoint: 'https://login.example.com/auth?prompt=login',
        clientId: 'toolgate-console',
        redirectUri: 'https://toolgate.example.com/v1/auth/callback',
        scopes: ['profile', 'email'],
        resource: 'https://toolgate.example.com',
        ...secrets,
      }),
    );
    const params = Object.fromEntries(url.searchParams);
    assert.deepEqual(params, {
      prompt: 'login',
      response_type: 'code',
      client_id: 'toolgate-console',
      redirect_uri: 'https://toolgate.example.com/v1/auth/callback',
      scope: 'openid profile email',
      state: secrets.state,
      nonce: secrets.nonce,
      code_challenge: createHash('sha256').update(secrets.verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: 'https://toolgate.example.com',
    });
    assert.equal(`${url.origin}${url.pathname}`, 'https://login.example.com/auth');
  });

  it('computes the RFC 7636 example challenge', () => {
    // RFC 7636, appendix B.
    assert.equal(
      pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'),
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });
});
