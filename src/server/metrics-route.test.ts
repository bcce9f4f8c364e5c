import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { startHttpServer } from './http-server.ts';
import { TestRunService } from '../../test/support/test-run-service.ts';

const metrics = () =>
  Promise.resolve({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: 'toolgate_up 1\n' });

describe('GET /metrics', () => {
  it('is open on a server without API keys', async () => {
    const store = new MemoryRunStore();
    const http = await startHttpServer({
      service: new TestRunService(store),
      store,
      apiKeys: [],
      port: 0,
      metrics,
      log: () => undefined,
    });
    try {
      const response = await fetch(`${http.url}/metrics`);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), 'toolgate_up 1\n');
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    } finally {
      await http.close({ graceMs: 100 });
    }
  });

  it('needs a key on a server with keys, and is 404 when the server exports none', async () => {
    const store = new MemoryRunStore();
    const keyed = await startHttpServer({
      service: new TestRunService(store),
      store,
      apiKeys: [{ key: 'k-0123456789abcdef', tenantId: 'acme' }],
      port: 0,
      metrics,
      log: () => undefined,
    });
    const bare = await startHttpServer({
      service: new TestRunService(store),
      store,
      apiKeys: [],
      port: 0,
      log: () => undefined,
    });
    try {
      assert.equal((await fetch(`${keyed.url}/metrics`)).status, 401);
      assert.equal(
        (await fetch(`${keyed.url}/metrics`, { headers: { authorization: 'Bearer k-0123456789abcdef' } })).status,
        200,
      );
      const none = await fetch(`${bare.url}/metrics`);
      assert.equal(none.status, 404);
      assert.match(((await none.json()) as { error: { message: string } }).error.message, /exports no metrics/);
    } finally {
      await keyed.close({ graceMs: 100 });
      await bare.close({ graceMs: 100 });
    }
  });
});
