import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyFingerprint } from './auth.ts';
import { SessionSigner, type SessionIdentity } from './session.ts';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const ALICE: SessionIdentity = {
  tenantId: 'acme',
  userId: 'alice',
  roles: ['trader', 'approver'],
  issuer: 'https://login.example.com',
  subject: 'alice@acme',
};

describe('sessions that carry an identity (signed in through an issuer)', () => {
  it('verify on any instance with the secret, and end with the token when it expires first', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const signer = new SessionSigner({ secret: SECRET, ttlSeconds: 3600, now: () => now });
    const issued = signer.issueIdentity(ALICE, now + 600_000);
    assert.equal(issued.maxAgeSeconds, 600, 'capped by the token');
    assert.deepEqual(signer.verifyIdentity(issued.token), { id: issued.id, identity: ALICE, expiresAt: now + 600_000 });
    assert.deepEqual(
      new SessionSigner({ secret: SECRET, now: () => now }).verifyIdentity(issued.token)?.identity,
      ALICE,
    );
    assert.equal(signer.csrfMatches(issued.id, issued.csrfToken), true, 'the same CSRF rule');
    now += 600_000;
    assert.equal(signer.verifyIdentity(issued.token), undefined, 'expired with the token');
  });

  it('last at most the configured lifetime, and are not issued for an expired token', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const signer = new SessionSigner({ secret: SECRET, ttlSeconds: 60, now: () => now });
    const issued = signer.issueIdentity(ALICE, now + 86_400_000);
    assert.equal(issued.expiresAt, now + 60_000);
    assert.equal(issued.maxAgeSeconds, 60);
    assert.throws(() => signer.issueIdentity(ALICE, now - 1), /expired/);
  });

  it('refuse a tampered identity or expiry, a foreign secret, and never pass for a key session', () => {
    const now = Date.now();
    const signer = new SessionSigner({ secret: SECRET });
    const issued = signer.issueIdentity(ALICE, now + 600_000);
    const [id = '', marker = '', encoded = '', expiry = '', mac = ''] = issued.token.split('.');
    const admin = Buffer.from(JSON.stringify({ ...ALICE, roles: ['admin'] })).toString('base64url');
    assert.equal(signer.verifyIdentity([id, marker, admin, expiry, mac].join('.')), undefined, 'roles are signed');
    const globex = Buffer.from(JSON.stringify({ ...ALICE, tenantId: 'globex' })).toString('base64url');
    assert.equal(signer.verifyIdentity([id, marker, globex, expiry, mac].join('.')), undefined, 'tenant is signed');
    const later = String(Number(expiry) + 3600);
    assert.equal(signer.verifyIdentity([id, marker, encoded, later, mac].join('.')), undefined, 'expiry is signed');
    assert.equal(new SessionSigner({ secret: `${SECRET}-other` }).verifyIdentity(issued.token), undefined);
    assert.equal(signer.verify(issued.token), undefined, 'not a key session');
    const keySession = signer.issue(keyFingerprint('key-acme-0123456789'));
    assert.equal(signer.verifyIdentity(keySession.token), undefined, 'a key session is not an identity session');
    const [kid = '', , kexp = '', kmac = ''] = keySession.token.split('.');
    assert.equal(signer.verifyIdentity([kid, 'i', encoded, kexp, kmac].join('.')), undefined, 'MACs are separate');
  });
});
