import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { collectSse } from '../../test/support/sse-client.ts';
import type { Run } from '../core/runs.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { keyFingerprint } from './auth.ts';
import { readSessionCookie, SessionSigner } from './session.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const KEYS = [
  { key: 'key-acme-0123456789', tenantId: 'acme', userId: 'ann' },
  { key: 'key-globex-0123456789', tenantId: 'globex' },
];
type ErrorBody = { error: { code: string; message: string } };
type SignedIn = { tenantId: string; userId?: string; csrfToken: string; expiresAt: string };

async function signIn(
  server: TestServer,
  apiKey: string,
  headers: Record<string, string> = {},
): Promise<{ cookie: string; body: SignedIn; setCookie: string }> {
  const response = await server.call('/v1/session', { body: { apiKey }, headers });
  assert.equal(response.status, 200, await response.clone().text());
  const setCookie = response.headers.get('set-cookie') ?? '';
  const token = readSessionCookie(setCookie.split(';')[0]);
  assert.ok(token !== undefined, `no session cookie in ${setCookie}`);
  return { cookie: `toolgate_session=${token}`, body: (await response.json()) as SignedIn, setCookie };
}

describe('SessionSigner', () => {
  it(
    'verifies its own tokens, refuses tampered and expired ' + 'ones, and derives the CSRF token from the session id',
    () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const signer = new SessionSigner({ secret: SECRET, ttlSeconds: 60, now: () => now });
      const issued = signer.issue(keyFingerprint('key-acme-0123456789'));
      assert.deepEqual(signer.verify(issued.token), {
        id: issued.id,
        fingerprint: issued.fingerprint,
        expiresAt: now + 60_000,
      });
      assert.equal(
        new SessionSigner({ secret: SECRET, now: () => now }).verify(issued.token)?.id,
        issued.id,
        'another process with the same secret accepts it',
      );
      assert.equal(new SessionSigner({ secret: `${SECRET}-other` }).verify(issued.token), undefined);
      const parts = issued.token.split('.');
      const other = [parts[0], keyFingerprint('key-globex-0123456789'), parts[2], parts[3]].join('.');
      assert.equal(signer.verify(other), undefined, 'the key fingerprint is signed');
      const longer = [parts[0], parts[1], String(Number(parts[2]) + 3600), parts[3]].join('.');
      assert.equal(signer.verify(longer), undefined, 'the expiry is signed');
      assert.equal(signer.verify(`${issued.token}x`), undefined);
      assert.equal(signer.csrfMatches(issued.id, issued.csrfToken), true);
      assert.equal(signer.csrfMatches(issued.id, signer.csrfToken('another-session-id')), false);
      assert.equal(signer.csrfMatches(issued.id, undefined), false);
      now += 60_000;
      assert.equal(signer.verify(issued.token), undefined, 'expired');
      assert.throws(() => new SessionSigner({ secret: 'short' }), /at least 32 characters/);
    },
  );
});

describe('sessions over HTTP', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(new MemoryRunStore(), {
      apiKeys: KEYS,
      sessionSecret: SECRET,
      sessionTtlSeconds: 3600,
    });
  });
  after(() => server.close());

  it(
    'POST /v1/session sets an HttpOnly, SameSite=Strict ' + 'cookie and answers tenant, user, csrfToken and expiry',
    async () => {
      const before = Date.now();
      const { body, setCookie } = await signIn(server, 'key-acme-0123456789');
      assert.match(setCookie, /^toolgate_session=[A-Za-z0-9_.-]+; HttpOnly; SameSite=Strict; Path=\/; Max-Age=3600$/);
      assert.equal(body.tenantId, 'acme');
      assert.equal(body.userId, 'ann');
      assert.match(body.csrfToken, /^[A-Za-z0-9_-]{43}$/);
      const expires = Date.parse(body.expiresAt);
      assert.ok(expires >= before + 3_599_000 && expires <= Date.now() + 3_600_000, body.expiresAt);
      const secure = await signIn(server, 'key-acme-0123456789', { 'X-Forwarded-Proto': 'https' });
      assert.match(secure.setCookie, /; Secure$/);
    },
  );

  it('refuses a wrong key with 401 and a missing or empty one with 400', async () => {
    const wrong = await server.call('/v1/session', { body: { apiKey: 'key-acme-012345678' } });
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as ErrorBody).error.code, 'unauthorized');
    assert.equal(wrong.headers.get('set-cookie'), null);
    for (const body of [{}, { apiKey: '' }, { apiKey: 42 }, undefined]) {
      const response = await server.call('/v1/session', body === undefined ? { method: 'POST' } : { body });
      assert.equal(response.status, 400, JSON.stringify(body));
      const error = ((await response.json()) as ErrorBody).error;
      assert.equal(error.code, 'usage');
      assert.match(error.message, /apiKey/);
    }
  });

  it('the cookie authenticates GET /v1/runs and the SSE stream of a run, as the key’s tenant and user', async () => {
    const { cookie } = await signIn(server, 'key-acme-0123456789');
    const created = (await (
      await server.call('/v1/runs', { key: 'key-acme-0123456789', body: { input: 'hello' } })
    ).json()) as Run;
    await server.service.finish(created.id);
    server.service.calls.length = 0;
    const list = await server.call('/v1/runs', { headers: { Cookie: `theme=dark; ${cookie}` } });
    assert.equal(list.status, 200);
    assert.ok(((await list.json()) as { runs: Run[] }).runs.some((r) => r.id === created.id));
    assert.deepEqual(server.service.calls[0]?.caller, { tenantId: 'acme', userId: 'ann' });
    const messages = await collectSse(`${server.url}/v1/runs/${created.id}/events`, { headers: { Cookie: cookie } });
    assert.equal(messages.at(-1)?.event, 'run_completed');
    const { cookie: globex } = await signIn(server, 'key-globex-0123456789');
    assert.equal(
      (await server.call(`/v1/runs/${created.id}`, { headers: { Cookie: globex } })).status,
      404,
      'another tenant’s run',
    );
  });

  it('refuses a tampered, an expired, a foreign-secret cookie and one whose key was removed', async () => {
    const { cookie } = await signIn(server, 'key-globex-0123456789');
    const tampered = cookie.slice(0, -2) + (cookie.endsWith('AA') ? 'BB' : 'AA');
    const expired = new SessionSigner({ secret: SECRET, ttlSeconds: 60, now: () => Date.now() - 120_000 }).issue(
      keyFingerprint('key-globex-0123456789'),
    ).token;
    const foreign = new SessionSigner({ secret: 'x'.repeat(40) }).issue(keyFingerprint('key-globex-0123456789')).token;
    for (const value of [
      tampered,
      `toolgate_session=${expired}`,
      `toolgate_session=${foreign}`,
      'toolgate_session=garbage',
    ]) {
      const response = await server.call('/v1/runs', { headers: { Cookie: value } });
      assert.equal(response.status, 401, value);
      assert.match(((await response.json()) as ErrorBody).error.message, /sign in again with POST \/v1\/session/);
    }
    // The same secret, without the globex key: its sessions end.
    const narrowed = await startTestServer(new MemoryRunStore(), {
      apiKeys: [KEYS[0] as (typeof KEYS)[number]],
      sessionSecret: SECRET,
    });
    try {
      assert.equal((await narrowed.call('/v1/runs', { headers: { Cookie: cookie } })).status, 401);
      const acme = await signIn(server, 'key-acme-0123456789');
      assert.equal(
        (await narrowed.call('/v1/runs', { headers: { Cookie: acme.cookie } })).status,
        200,
        'a key still configured keeps its sessions',
      );
    } finally {
      await narrowed.close();
    }
  });

  it('a cookie POST needs X-CSRF-Token (403 without, or with a wrong one); a bearer POST does not', async () => {
    const { cookie, body } = await signIn(server, 'key-acme-0123456789');
    const other = await signIn(server, 'key-acme-0123456789');
    const without = await server.call('/v1/runs', { body: { input: 'x' }, headers: { Cookie: cookie } });
    assert.equal(without.status, 403);
    const error = ((await without.json()) as ErrorBody).error;
    assert.equal(error.code, 'forbidden');
    assert.match(error.message, /X-CSRF-Token/);
    const wrong = await server.call('/v1/runs', {
      body: { input: 'x' },
      headers: { Cookie: cookie, 'X-CSRF-Token': other.body.csrfToken },
    });
    assert.equal(wrong.status, 403, 'the token of another session');
    const accepted = await server.call('/v1/runs', {
      body: { input: 'x' },
      headers: { Cookie: cookie, 'X-CSRF-Token': body.csrfToken },
    });
    assert.equal(accepted.status, 201);
    const run = (await accepted.json()) as Run;
    assert.equal(run.tenantId, 'acme');
    assert.equal(
      (await server.call(`/v1/runs/${run.id}/cancel`, { method: 'POST', headers: { Cookie: cookie } })).status,
      403,
    );
    assert.equal(
      (await server.call(`/v1/runs/${run.id}/cancel`, { method: 'POST', key: 'key-acme-0123456789' })).status,
      202,
    );
  });

  it('a bearer header wins over the cookie', async () => {
    const { cookie } = await signIn(server, 'key-acme-0123456789');
    assert.equal(
      (await server.call('/v1/runs', { headers: { Cookie: cookie, Authorization: 'Bearer wrong-key-0000' } })).status,
      401,
    );
    server.service.calls.length = 0;
    assert.equal(
      (await server.call('/v1/runs', { key: 'key-globex-0123456789', headers: { Cookie: cookie } })).status,
      200,
    );
    assert.deepEqual(server.service.calls[0]?.caller, { tenantId: 'globex' });
  });

  it('GET /v1/session says who is signed in, never 401; DELETE clears the cookie', async () => {
    const anonymous = await server.call('/v1/session');
    assert.deepEqual([anonymous.status, await anonymous.json()], [200, { authenticated: false, keysRequired: true }]);
    assert.deepEqual(await (await server.call('/v1/session', { key: 'nope-nope-nope' })).json(), {
      authenticated: false,
      keysRequired: true,
    });
    assert.deepEqual(await (await server.call('/v1/session', { key: 'key-globex-0123456789' })).json(), {
      authenticated: true,
      keysRequired: true,
      tenantId: 'globex',
    });
    const { cookie, body } = await signIn(server, 'key-acme-0123456789');
    assert.deepEqual(await (await server.call('/v1/session', { headers: { Cookie: cookie } })).json(), {
      authenticated: true,
      keysRequired: true,
      tenantId: 'acme',
      userId: 'ann',
      csrfToken: body.csrfToken,
      expiresAt: body.expiresAt,
    });
    const out = await server.call('/v1/session', { method: 'DELETE', headers: { Cookie: cookie } });
    assert.equal(out.status, 204);
    assert.equal(out.headers.get('set-cookie'), 'toolgate_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
  });
});

describe('sessions without API keys', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(new MemoryRunStore());
  });
  after(() => server.close());

  it('sign-in answers anonymous without a cookie; GET /v1/session is authenticated', async () => {
    const response = await server.call('/v1/session', { method: 'POST' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('set-cookie'), null);
    const body = (await response.json()) as { anonymous: boolean; csrfToken: string };
    assert.equal(body.anonymous, true);
    assert.equal(typeof body.csrfToken, 'string');
    assert.deepEqual(await (await server.call('/v1/session')).json(), {
      authenticated: true,
      keysRequired: false,
      csrfToken: body.csrfToken,
    });
  });
});
