import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SessionSigner } from '../session.ts';
import {
  LOGIN_STATE_TTL_SECONDS,
  loginStateCookie,
  newLoginSecrets,
  openLoginState,
  readLoginStateCookie,
  sealLoginState,
  type LoginState,
} from './login-state.ts';

const SECRET = 'a-session-secret-of-at-least-32-characters';

describe('the sign-in state cookie', () => {
  const signer = new SessionSigner({ secret: SECRET });
  const login: LoginState = { ...newLoginSecrets(), issuer: 'https://login.example.com', returnTo: '#/runs' };
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('opens what it sealed, on any instance with the same secret, until it expires', () => {
    const sealed = sealLoginState(signer, login, now);
    assert.deepEqual(openLoginState(new SessionSigner({ secret: SECRET }), sealed, now + 1000), login);
    assert.equal(openLoginState(signer, sealed, now + LOGIN_STATE_TTL_SECONDS * 1000 - 1000)?.state, login.state);
    assert.equal(openLoginState(signer, sealed, now + LOGIN_STATE_TTL_SECONDS * 1000), undefined, 'expired');
  });

  it('refuses a tampered payload, a foreign secret, and a session MAC', () => {
    const sealed = sealLoginState(signer, login, now);
    const [payload = '', signature = ''] = sealed.split('.');
    const json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...json, state: 'attacker-state' })).toString('base64url');
    assert.equal(openLoginState(signer, `${forged}.${signature}`, now), undefined, 'the state is signed');
    const later = Buffer.from(JSON.stringify({ ...json, exp: Number(json['exp']) + 3600 })).toString('base64url');
    assert.equal(openLoginState(signer, `${later}.${signature}`, now), undefined, 'the expiry is signed');
    assert.equal(openLoginState(new SessionSigner({ secret: `${SECRET}-other` }), sealed, now), undefined);
    assert.equal(openLoginState(signer, `${payload}.${signer.csrfToken(payload)}`, now), undefined, 'purposes differ');
    assert.equal(openLoginState(signer, undefined, now), undefined);
    assert.equal(openLoginState(signer, 'garbage', now), undefined);
  });

  it('is HttpOnly, SameSite=Lax, scoped to /v1/auth/, short-lived, and read back from a Cookie header', () => {
    const cookie = loginStateCookie('abc.def', { secure: true });
    assert.match(cookie, /^toolgate_login=abc\.def; HttpOnly; SameSite=Lax; Path=\/v1\/auth\/; Max-Age=600; Secure$/);
    assert.equal(readLoginStateCookie('a=b; toolgate_login=abc.def; c=d'), 'abc.def');
    assert.equal(readLoginStateCookie('toolgate_session=x'), undefined);
  });

  it('makes fresh secrets of PKCE length each time', () => {
    const first = newLoginSecrets();
    const second = newLoginSecrets();
    assert.match(first.verifier, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(first.state, second.state);
    assert.notEqual(first.nonce, first.state);
  });
});
