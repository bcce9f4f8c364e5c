import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES, ToolgateError } from '../core/errors.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { isLoopbackHost, startHttpServer } from './http-server.ts';
import { httpStatusFor } from './http-status.ts';
import { ROUTES } from './route-table.ts';
import { TestRunService } from '../../test/support/test-run-service.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';

type ErrorBody = { error: { code: string; message: string } };

describe('HTTP server', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(new MemoryRunStore());
  });
  after(() => server.close());

  it('answers every error code with its table status and an {error: {code, message}} body', async () => {
    for (const code of ERROR_CODES) {
      server.service.failNext = new ToolgateError(code, `scripted ${code}`);
      const response = await server.call('/v1/runs/run_x');
      assert.equal(response.status, httpStatusFor(code), code);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await response.json(), { error: { code, message: `scripted ${code}` } });
    }
  });

  it('hides the message of an unexpected error behind internal/500 and logs it', async () => {
    server.service.failNext = new Error('db password is hunter2');
    const response = await server.call('/v1/runs/run_x');
    assert.equal(response.status, 500);
    const body = (await response.json()) as ErrorBody;
    assert.equal(body.error.code, 'internal');
    assert.doesNotMatch(body.error.message, /hunter2/);
    assert.ok(server.logs.some((entry) => entry.level === 'error' && String(entry['error']).includes('hunter2')));
  });

  it('answers an unknown route with 404 naming method and path', async () => {
    const response = await server.call('/v2/nothing', { method: 'DELETE' });
    assert.equal(response.status, 404);
    const body = (await response.json()) as ErrorBody;
    assert.equal(body.error.code, 'not_found');
    assert.match(body.error.message, /DELETE \/v2\/nothing/);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await server.call('/v1/runs', { method: 'DELETE' });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST, GET');
    assert.equal(((await response.json()) as ErrorBody).error.code, 'usage');
    const cancel = await server.call('/v1/runs/r1/cancel');
    assert.equal(cancel.status, 405);
    assert.equal(cancel.headers.get('allow'), 'POST');
  });

  it('refuses unknown query parameters instead of ignoring them', async () => {
    const response = await server.call('/v1/runs?statuss=running');
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as ErrorBody).error.message, /unknown query parameter "statuss"/);
  });

  it('GET /healthz is always ok; /readyz follows service.ready()', async () => {
    assert.deepEqual(await (await server.call('/healthz')).json(), { status: 'ok' });
    assert.equal((await server.call('/readyz')).status, 200);
    server.service.readiness = { ready: false, reason: 'store unreachable' };
    const notReady = await server.call('/readyz');
    assert.equal(notReady.status, 503);
    assert.deepEqual(await notReady.json(), { status: 'not_ready', reason: 'store unreachable' });
    const servers = [
      {
        name: 'crm',
        state: 'down' as const,
        tools: 0,
        error: 'Cannot find module',
        since: '2026-01-01T00:00:00.000Z',
        failures: 1,
      },
    ];
    server.service.readiness = { ready: true, servers };
    assert.deepEqual(
      await (await server.call('/readyz')).json(),
      { status: 'ready', servers },
      'each tool server is reported',
    );
    server.service.readiness = { ready: true };
  });

  it('serves an OpenAPI 3.1 document describing every route, the error schema and bearer auth', async () => {
    const doc = (await (await server.call('/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: {
        securitySchemes: Record<string, { type: string; scheme: string }>;
        schemas: Record<string, unknown>;
      };
    };
    assert.equal(doc.openapi, '3.1.0');
    for (const route of ROUTES) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      assert.ok(operation, `${route.method} ${route.path} is missing from /openapi.json`);
      assert.ok(Object.keys(operation.responses).length > 0, `${route.method} ${route.path} has no responses`);
    }
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    assert.deepEqual(documented.sort(), ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    assert.deepEqual(doc.components.securitySchemes['bearer'], {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key configured for a tenant.',
    });
    assert.ok(doc.components.schemas['Error'] && doc.components.schemas['Run'] && doc.components.schemas['RunEvent']);
  });
});

describe('startHttpServer', () => {
  it('refuses to listen beyond loopback without API keys', async () => {
    const store = new MemoryRunStore();
    await assert.rejects(
      startHttpServer({ service: new TestRunService(store), store, apiKeys: [], host: '0.0.0.0', port: 0 }),
      {
        code: 'usage',
        message:
          'no API keys configured: refusing to listen on 0.0.0.0; configure tenants.<id>.apiKeys or bind to 127.0.0.1',
      },
    );
  });

  it('knows loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1', 'LOCALHOST']) {
      assert.equal(isLoopbackHost(host), true, host);
    }
    for (const host of ['0.0.0.0', '::', '', '192.168.1.10', 'example.com', '128.0.0.1', 'localhost.example.com']) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });

  it('close() waits for a request in flight, then stops accepting', async () => {
    const store = new MemoryRunStore();
    const service = new TestRunService(store);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowList = service.listRuns.bind(service);
    let started = false;
    service.listRuns = async (caller, query) => {
      started = true;
      await gate;
      return slowList(caller, query);
    };
    const running = await startHttpServer({ service, store, apiKeys: [], port: 0 });
    const inFlight = fetch(`${running.url}/v1/runs`);
    while (!started) await new Promise((r) => setImmediate(r));
    const closed = running.close({ graceMs: 10_000 });
    release();
    const response = await inFlight;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { runs: [] });
    await closed;
    await assert.rejects(fetch(`${running.url}/healthz`));
  });
});
