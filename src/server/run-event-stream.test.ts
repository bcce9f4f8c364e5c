// A stream whose first read of the run's history fails answers with an HTTP
// error naming nothing of the store, never with an empty 200 stream.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunStore } from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { startHttpServer } from './http-server.ts';
import { TestRunService } from './test-run-service.ts';

describe('RunEventStream', () => {
  it('answers 500 internal (with X-Request-Id) when the first page of history cannot be read', async () => {
    const store = new MemoryRunStore();
    const broken = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'readEvents') return () => Promise.reject(new Error('disk I/O error at /var/lib/secret.db'));
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as RunStore;
    const http = await startHttpServer({ service: new TestRunService(store), store: broken, apiKeys: [], port: 0, log: () => undefined });
    try {
      const run = await store.createRun({ input: 'x', model: 'm' });
      const response = await fetch(`${http.url}/v1/runs/${run.id}/events`, { headers: { accept: 'text/event-stream' } });
      assert.equal(response.status, 500);
      assert.match(response.headers.get('content-type') ?? '', /application\/json/);
      const body = (await response.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'internal');
      assert.doesNotMatch(body.error.message, /secret/);
      assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
    } finally {
      await http.close({ graceMs: 100 });
    }
  });
});
