import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { signWebhook } from '../app/approvals/sign-webhook.ts';
import { verifyWebhook } from './verify-webhook.ts';

const SECRET = 'a-webhook-secret-of-24-chars-or-more';
const BODY = '{"type":"approval.waiting","run":{"id":"run_1"}}';
const NOW = 1_700_000_000;

/** Standard Webhooks, computed here without toolgate's code: HMAC-SHA256 over "id.timestamp.body", base64. */
function expected(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

describe('webhook signatures (Standard Webhooks)', () => {
  it('signs id.timestamp.body with HMAC-SHA256, base64, as v1 (a plain secret is its UTF-8 bytes)', () => {
    const headers = signWebhook({ secret: SECRET, id: 'msg_1', body: BODY, timestamp: NOW });
    assert.deepEqual(headers, {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(NOW),
      'webhook-signature': expected(Buffer.from(SECRET, 'utf8'), 'msg_1', NOW, BODY),
    });
  });

  it('matches the Standard Webhooks reference vector for a whsec_ secret (base64 after the prefix)', () => {
    // The example of the specification's reference libraries.
    const headers = signWebhook({
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      body: '{"test": 2432232314}',
      timestamp: 1614265330,
    });
    assert.equal(headers['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  const now = (): number => NOW * 1000;
  const signed = (secret: string, body = BODY, timestamp = NOW): Record<string, string> =>
    signWebhook({ secret, id: 'msg_1', body, timestamp });

  it('verifyWebhook accepts a valid notification (Node headers or fetch Headers, string or bytes)', async () => {
    assert.deepEqual(await verifyWebhook({ secret: SECRET, headers: signed(SECRET), body: BODY, now }), {
      valid: true,
      id: 'msg_1',
      timestamp: NOW,
    });
    const viaFetch = await verifyWebhook({
      secret: SECRET,
      headers: new Headers(signed(SECRET)),
      body: new TextEncoder().encode(BODY),
      now,
    });
    assert.equal(viaFetch.valid, true);
  });

  it('refuses a tampered body, an old or future timestamp, a wrong secret and missing headers', async () => {
    const headers = signed(SECRET);
    const check = (options: Partial<Parameters<typeof verifyWebhook>[0]>) =>
      verifyWebhook({ secret: SECRET, headers, body: BODY, now, ...options });
    assert.deepEqual(await check({ body: BODY.replace('run_1', 'run_2') }), { valid: false, reason: 'bad_signature' });
    assert.deepEqual(await check({ secret: `${SECRET}x` }), { valid: false, reason: 'bad_signature' });
    assert.deepEqual(await check({ now: () => (NOW + 301) * 1000 }), { valid: false, reason: 'expired' });
    assert.deepEqual(await check({ now: () => (NOW - 301) * 1000 }), { valid: false, reason: 'expired' });
    assert.equal((await check({ now: () => (NOW + 299) * 1000 })).valid, true);
    assert.deepEqual(await check({ headers: { 'webhook-id': 'msg_1' } }), { valid: false, reason: 'missing_headers' });
    // A signature for another timestamp does not pass with this one.
    const moved = { ...headers, 'webhook-timestamp': String(NOW + 1) };
    assert.deepEqual(await check({ headers: moved }), { valid: false, reason: 'bad_signature' });
  });

  it('a whsec_ secret is base64 after the prefix; several signatures: one valid is enough', async () => {
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const secret = `whsec_${key.toString('base64')}`;
    const headers = signed(secret);
    assert.equal(headers['webhook-signature'], expected(key, 'msg_1', NOW, BODY));
    assert.equal((await verifyWebhook({ secret, headers, body: BODY, now })).valid, true);
    const rotated = { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature'] ?? ''}` };
    assert.equal((await verifyWebhook({ secret, headers: rotated, body: BODY, now })).valid, true);
    // Without the prefix the same text is a plain secret: its UTF-8 bytes, another key.
    const plain = key.toString('base64');
    assert.equal((await verifyWebhook({ secret: plain, headers, body: BODY, now })).valid, false);
  });
});
