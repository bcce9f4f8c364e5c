import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { createAuthenticator } from './auth.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';

const KEYS = [
  { key: 'key-acme', tenantId: 'acme' },
  { key: 'key-acme-bob', tenantId: 'acme', userId: 'bob' },
  { key: 'key-globex-backend', tenantId: 'globex', allowUserIdHeader: true },
];

describe('createAuthenticator', () => {
  const authenticate = createAuthenticator(KEYS);

  it('maps a bearer key to its tenant and user', () => {
    assert.deepEqual(authenticate({ authorization: 'Bearer key-acme' }), { tenantId: 'acme' });
    assert.deepEqual(authenticate({ authorization: 'bearer key-acme-bob' }), { tenantId: 'acme', userId: 'bob' });
  });

  it('refuses a missing, unknown or truncated key with unauthorized', () => {
    for (const authorization of [
      undefined,
      'Bearer nope',
      'Bearer key-acm',
      'Bearer key-acme-',
      'Basic a2V5LWFjbWU=',
      'Bearer ',
    ]) {
      assert.throws(
        () => authenticate(authorization === undefined ? {} : { authorization }),
        { code: 'unauthorized' },
        String(authorization),
      );
    }
  });

  it('takes X-User-Id only from keys that allow it', () => {
    assert.deepEqual(authenticate({ authorization: 'Bearer key-globex-backend', 'x-user-id': 'carol' }), {
      tenantId: 'globex',
      userId: 'carol',
    });
    assert.throws(() => authenticate({ authorization: 'Bearer key-acme', 'x-user-id': 'mallory' }), {
      code: 'usage',
      message: /X-User-Id is not allowed for this API key/,
    });
    // An unauthenticated request is refused as such, whatever else it sends.
    assert.throws(() => authenticate({ 'x-user-id': 'mallory' }), { code: 'unauthorized' });
  });

  it('with no keys configured, everyone is the anonymous caller and X-User-Id names the user', () => {
    const open = createAuthenticator([]);
    assert.deepEqual(open({ authorization: 'Bearer anything' }), {});
    assert.deepEqual(open({ 'x-user-id': 'dave' }), { userId: 'dave' });
    assert.throws(() => open({ 'x-user-id': 'bad\u0001id' }), { code: 'usage' });
  });
});

describe('auth over HTTP', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(new MemoryRunStore(), { apiKeys: KEYS });
  });
  after(() => server.close());

  it('answers 401 with WWW-Authenticate: Bearer and an error body', async () => {
    const response = await server.call('/v1/runs');
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'unauthorized');
    assert.match(body.error.message, /Authorization: Bearer/);
    assert.equal((await server.call('/v1/runs', { key: 'wrong' })).status, 401);
  });

  it('passes the key’s tenant and user to the service as the Caller', async () => {
    server.service.calls.length = 0;
    assert.equal((await server.call('/v1/runs', { key: 'key-acme-bob' })).status, 200);
    assert.equal(
      (await server.call('/v1/tools', { key: 'key-globex-backend', headers: { 'X-User-Id': 'carol' } })).status,
      200,
    );
    assert.deepEqual(
      server.service.calls.map((c) => [c.method, c.caller]),
      [
        ['listRuns', { tenantId: 'acme', userId: 'bob' }],
        ['listTools', { tenantId: 'globex', userId: 'carol' }],
      ],
    );
  });

  it('refuses X-User-Id from a key without allowUserIdHeader with 400', async () => {
    const response = await server.call('/v1/runs', { key: 'key-acme', headers: { 'X-User-Id': 'mallory' } });
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), {
      error: {
        code: 'usage',
        message: 'X-User-Id is not allowed for this API key (set allowUserIdHeader on the key to let it name users)',
      },
    });
  });

  it('keeps tenants apart: another tenant’s run is not found', async () => {
    const created = await server.call('/v1/runs', { key: 'key-acme', body: { input: 'hello' } });
    assert.equal(created.status, 201);
    const run = (await created.json()) as { id: string; tenantId: string };
    assert.equal(run.tenantId, 'acme');
    assert.equal((await server.call(`/v1/runs/${run.id}`, { key: 'key-acme-bob' })).status, 200);
    assert.equal((await server.call(`/v1/runs/${run.id}`, { key: 'key-globex-backend' })).status, 404);
    assert.equal(
      (await server.call(`/v1/runs/${run.id}/events?format=json`, { key: 'key-globex-backend' })).status,
      404,
    );
    assert.equal((await server.call(`/v1/runs/${run.id}/events`, { key: 'key-globex-backend' })).status, 404);
  });

  it('needs no key for health checks and the OpenAPI document', async () => {
    for (const path of ['/healthz', '/readyz', '/openapi.json']) {
      assert.equal((await server.call(path)).status, 200, path);
    }
  });
});
