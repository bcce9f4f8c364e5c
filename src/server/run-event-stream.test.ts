// A stream whose first read of the run's history fails answers with an HTTP
// error naming nothing of the store, never with an empty 200 stream.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunStore } from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { startHttpServer } from './http-server.ts';
import { TestRunService } from '../../test/support/test-run-service.ts';

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
    const http = await startHttpServer({
      service: new TestRunService(store),
      store: broken,
      apiKeys: [],
      port: 0,
      log: () => undefined,
    });
    try {
      const run = await store.createRun({ input: 'x', model: 'm' });
      const response = await fetch(`${http.url}/v1/runs/${run.id}/events`, {
        headers: { accept: 'text/event-stream' },
      });
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

  it(
    'asks whether the run is over only when it found nothing past ' +
      'the resume point; either way the stream ends with the run',
    async () => {
      const store = new MemoryRunStore();
      const service = new TestRunService(store);
      const http = await startHttpServer({ service, store, apiKeys: [], port: 0, log: () => undefined });
      try {
        const run = await store.createRun({ input: 'x', model: 'm' });
        await store.append(run.id, [{ type: 'user_message', data: { text: 'x' } }]);
        const asked = (): number => service.calls.filter((c) => c.method === 'getRun').length;
        /**
         * Follows the run from `lastEventId` until the server ends the stream; calls `onFirst` once the headers are in.
         */
        const follow = async (
          lastEventId: number,
          onFirst: () => Promise<void>,
        ): Promise<{ text: string; asked: number }> => {
          const before = asked();
          const response = await fetch(`${http.url}/v1/runs/${run.id}/events`, {
            headers: { accept: 'text/event-stream', 'last-event-id': String(lastEventId) },
          });
          assert.equal(response.status, 200);
          await onFirst();
          const text = await response.text();
          // The route itself reads the run once, to check that the caller may see it.
          return { text, asked: asked() - before - 1 };
        };
        // A live run with events past the resume point: they are sent, and the run's end comes live.
        const live = await follow(0, async () => {
          await store.append(
            run.id,
            [
              {
                type: 'run_completed',
                data: { output: 'done', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, steps: 0 },
              },
            ],
            { status: 'completed', output: 'done' },
          );
        });
        assert.match(live.text, /event: user_message[\s\S]*event: run_completed/);
        assert.equal(
          live.asked,
          0,
          "events past the resume point were found: the run's end, if it had come, was among them",
        );
        // Resuming past the end: nothing to send, so the stream asks, finds the run over, and ends.
        const past = await follow(2, async () => undefined);
        assert.doesNotMatch(past.text, /event: /);
        assert.equal(past.asked, 1);
      } finally {
        await http.close({ graceMs: 100 });
      }
    },
  );
});
