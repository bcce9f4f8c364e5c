import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SignJWT } from 'jose';
import { argumentsHash, checkLinkToken, DECISION_LINK_AUDIENCE } from './decision-link-token.ts';
import { createDecisionLinks } from './decision-links.ts';

const SECRET = 'a-link-secret-of-at-least-32-characters!';
const T0 = Date.parse('2030-01-01T00:00:00Z');

function tokenOf(url: string): string {
  const token = url.split('/v1/approvals/')[1];
  assert.ok(token !== undefined, url);
  return token;
}

const links = createDecisionLinks({
  secret: SECRET,
  baseUrl: () => 'https://tg.example/',
  ttlMs: 60_000,
  now: () => T0,
});
const request = { runId: 'run_1', toolCallId: 'c1', arguments: { b: 2, a: [1, { z: 1, y: 2 }] }, target: 'desk' };

test('issued links round-trip: decision, run, call, hash of the arguments shown, target, expiry', async () => {
  const issued = await links.issue(request);
  assert.match(issued.approve, /^https:\/\/tg\.example\/v1\/approvals\/[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.equal(issued.open, 'https://tg.example/#/runs/run_1');
  assert.equal(issued.expiresAt, '2030-01-01T00:01:00.000Z');
  assert.equal(issued.linkIds.length, 2);
  const approve = await checkLinkToken(tokenOf(issued.approve), { secret: SECRET, nowMs: T0 + 1000 });
  const reject = await checkLinkToken(tokenOf(issued.reject), { secret: SECRET, nowMs: T0 + 1000 });
  assert.ok(approve.ok && reject.ok);
  assert.deepEqual(approve.claims, {
    runId: 'run_1',
    toolCallId: 'c1',
    decision: 'approve',
    argumentsHash: argumentsHash({ a: [1, { y: 2, z: 1 }], b: 2 }),
    target: 'desk',
    linkId: issued.linkIds[0],
    expiresAt: issued.expiresAt,
    issuedAtMs: T0,
  });
  assert.equal(reject.claims.decision, 'reject');
  assert.equal(reject.claims.linkId, issued.linkIds[1]);
  assert.notEqual(argumentsHash({ a: 1 }), argumentsHash({ a: 2 }));
});

test('a tampered token, another secret, or a malformed one is not a link', async () => {
  const token = tokenOf((await links.issue(request)).approve);
  const [header, payload, signature] = token.split('.');
  assert.ok(header !== undefined && payload !== undefined && signature !== undefined);
  const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  assert.ok(typeof claims === 'object' && claims !== null);
  const forged = Buffer.from(JSON.stringify({ ...claims, decision: 'reject' }), 'utf8').toString('base64url');
  const nowMs = T0;
  assert.deepEqual(await checkLinkToken(`${header}.${forged}.${signature}`, { secret: SECRET, nowMs }), {
    ok: false,
    reason: 'invalid',
  });
  const other = await checkLinkToken(token, { secret: `${SECRET}-other`, nowMs });
  assert.deepEqual(other, { ok: false, reason: 'invalid' });
  assert.deepEqual(await checkLinkToken('not-a-token', { secret: SECRET, nowMs }), { ok: false, reason: 'invalid' });
  assert.equal((await checkLinkToken(token, { secret: SECRET, nowMs })).ok, true);
});

test('expiry follows the injected clock; an expired link still says what it was for', async () => {
  const token = tokenOf((await links.issue(request)).reject);
  assert.equal((await checkLinkToken(token, { secret: SECRET, nowMs: T0 + 59_000 })).ok, true);
  const late = await checkLinkToken(token, { secret: SECRET, nowMs: T0 + 60_000 });
  assert.ok(!late.ok && late.reason === 'expired');
  assert.equal(late.claims.expiresAt, '2030-01-01T00:01:00.000Z');
  assert.equal(late.claims.decision, 'reject');
});

test('another token signed with the same secret (other audience or type) is not a link', async () => {
  const key = new TextEncoder().encode(SECRET);
  const claims = { run: 'run_1', call: 'c1', decision: 'approve', args: 'x', target: 'desk' };
  const exp = Math.floor(T0 / 1000) + 60;
  const nowMs = T0;
  const otherAudience = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'toolgate-decision-link+jwt' })
    .setAudience('toolgate')
    .setJti('j1')
    .setIssuedAt(exp - 60)
    .setExpirationTime(exp)
    .sign(key);
  assert.deepEqual(await checkLinkToken(otherAudience, { secret: SECRET, nowMs }), { ok: false, reason: 'invalid' });
  const plainJwt = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(DECISION_LINK_AUDIENCE)
    .setJti('j1')
    .setIssuedAt(exp - 60)
    .setExpirationTime(exp)
    .sign(key);
  assert.deepEqual(await checkLinkToken(plainJwt, { secret: SECRET, nowMs }), { ok: false, reason: 'invalid' });
});
