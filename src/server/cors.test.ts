import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { corsOriginSet, CORS_ALLOW_HEADERS } from './cors.ts';
import { isSameOrigin } from './origin-guard.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';

const APP = 'https://app.example.com';
const KEY = 'key-acme-0123456789';
type ErrorBody = { error: { code: string; message: string } };

/** A request with headers fetch would not send as given (Host). */
function raw(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('CORS', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(new MemoryRunStore(), {
      apiKeys: [{ key: KEY, tenantId: 'acme' }],
      corsOrigins: [APP, 'http://localhost:5173'],
    });
  });
  after(() => server.close());

  it('lets a listed origin read answers (errors too), never with credentials', async () => {
    for (const [path, status] of [
      ['/v1/runs', 200],
      ['/v1/runs/run_missing', 404],
    ] as const) {
      const response = await server.call(path, { key: KEY, headers: { Origin: APP } });
      assert.equal(response.status, status);
      assert.equal(response.headers.get('access-control-allow-origin'), APP);
      assert.equal(response.headers.get('vary'), 'Origin');
      assert.equal(
        response.headers.get('access-control-expose-headers'),
        'X-Request-Id, Location, Retry-After, X-Toolgate-Run-Id',
      );
      assert.equal(response.headers.get('access-control-allow-credentials'), null);
    }
    const created = await server.call('/v1/runs', { key: KEY, body: { input: 'x' }, headers: { Origin: APP } });
    assert.equal(created.status, 201, 'a listed origin may POST with a bearer key');
    assert.equal(created.headers.get('access-control-allow-origin'), APP);
  });

  it('sends no CORS headers to an unlisted origin, and refuses its POST with 403', async () => {
    const read = await server.call('/v1/runs', { key: KEY, headers: { Origin: 'https://evil.example' } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('access-control-allow-origin'), null);
    const post = await server.call('/v1/runs', {
      key: KEY,
      body: { input: 'from evil' },
      headers: { Origin: 'https://evil.example' },
    });
    assert.equal(post.status, 403);
    const error = ((await post.json()) as ErrorBody).error;
    assert.equal(error.code, 'forbidden');
    assert.match(
      error.message,
      new RegExp(
        String.raw`origin "https:\/\/evil\.example" is refused: it is neithe` +
          String.raw`r this server's origin nor listed in server\.cors\.origins`,
      ),
    );
    assert.equal(
      server.service.calls.some((c) => c.method === 'startRun' && JSON.stringify(c.args).includes('from evil')),
      false,
      'no run was started',
    );
    const nullOrigin = await server.call('/v1/session', { body: { apiKey: KEY }, headers: { Origin: 'null' } });
    assert.equal(nullOrigin.status, 403, 'a sandboxed page (Origin: null)');
  });

  it('accepts a POST from the server’s own origin (Origin matching Host)', async () => {
    const own = server.url.replace('127.0.0.1', 'localhost');
    const host = new URL(own).host;
    const response = await raw(server.url, {
      method: 'POST',
      path: '/v1/runs',
      headers: { Host: host, Origin: own, Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: '{"input":"same origin"}',
    });
    assert.equal(response.status, 201, response.body);
  });

  it('answers a preflight from a listed origin with 204, from an unlisted one with 403', async () => {
    const ok = await server.call('/v1/runs', {
      method: 'OPTIONS',
      headers: {
        Origin: APP,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers.get('access-control-allow-origin'), APP);
    assert.equal(ok.headers.get('access-control-allow-methods'), 'GET, POST, DELETE, OPTIONS');
    assert.equal(ok.headers.get('access-control-allow-headers'), CORS_ALLOW_HEADERS);
    assert.equal(
      CORS_ALLOW_HEADERS,
      'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, Traceparent, X-User-Id, X-CSRF-Token, ' +
        'X-Toolgate-Thread-Id',
    );
    assert.equal(ok.headers.get('access-control-max-age'), '600');
    assert.equal(ok.headers.get('access-control-allow-credentials'), null);
    assert.equal(
      (await server.call('/v1/runs/run_1/events', { method: 'OPTIONS', headers: { Origin: 'http://localhost:5173' } }))
        .status,
      204,
    );
    const refused = await server.call('/v1/runs', {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    assert.match(
      ((await refused.json()) as ErrorBody).error.message,
      /"https:\/\/evil\.example" is not in server\.cors\.origins/,
    );
  });

  it('lets the OpenAI SDK headers through a preflight as the browser asks for them, and nothing else', async () => {
    const preflight = await server.call('/v1/chat/completions', {
      method: 'OPTIONS',
      headers: {
        Origin: APP,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers':
          'authorization, content-type, x-stainless-os, X-Stainless-Retry-Count, openai-organization, x-evil',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(
      preflight.headers.get('access-control-allow-headers'),
      `${CORS_ALLOW_HEADERS}, x-stainless-os, x-stainless-retry-count, openai-organization`,
    );
  });

  it('checks configured origins and compares Origin with Host', () => {
    assert.throws(() => corsOriginSet(['*']), /is not an origin/);
    assert.throws(() => corsOriginSet(['https://app.example.com/']), /is not an origin/);
    assert.equal(isSameOrigin('http://127.0.0.1:8787', '127.0.0.1:8787'), true);
    assert.equal(isSameOrigin('https://api.example.com', 'api.example.com'), true);
    assert.equal(isSameOrigin('https://api.example.com', 'api.example.com:443'), true);
    assert.equal(isSameOrigin('http://evil.example:8787', '127.0.0.1:8787'), false);
    assert.equal(isSameOrigin('http://127.0.0.1:8787', undefined), false);
  });
});

describe('the no-keys mode refuses other sites', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(new MemoryRunStore());
  });
  after(() => server.close());

  it('refuses a Host that is not a loopback name (DNS rebinding) with 403 naming the fix', async () => {
    const port = new URL(server.url).port;
    for (const method of ['GET', 'POST']) {
      const response = await raw(server.url, {
        method,
        path: '/v1/runs',
        headers: { Host: `evil.example:${port}`, 'Content-Type': 'application/json' },
        ...(method === 'POST' ? { body: '{"input":"x"}' } : {}),
      });
      assert.equal(response.status, 403, method);
      const error = (JSON.parse(response.body) as ErrorBody).error;
      assert.equal(error.code, 'forbidden');
      assert.match(error.message, /use http:\/\/127\.0\.0\.1 or http:\/\/localhost, or configure API keys/);
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      assert.equal((await raw(server.url, { path: '/v1/runs', headers: { Host: host } })).status, 200, host);
    }
  });

  it('refuses a cross-site POST, accepts one from its own origin', async () => {
    const foreign = await server.call('/v1/runs', {
      body: { input: 'x' },
      headers: { Origin: 'https://evil.example' },
    });
    assert.equal(foreign.status, 403);
    const own = await server.call('/v1/runs', { body: { input: 'x' }, headers: { Origin: server.url } });
    assert.equal(own.status, 201);
  });
});
