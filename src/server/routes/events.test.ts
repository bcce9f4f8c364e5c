import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { collectSse, parseSse, readSse, type SseMessage } from '../../../test/support/sse-client.ts';
import { draft, type RunEvent } from '../../core/events.ts';
import type { RunStore } from '../../core/ports/run-store.ts';
import type { Run } from '../../core/runs.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { TestRunService } from '../../../test/support/test-run-service.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** What a stored log must look like on the wire: id, event name, the whole event as data. */
function asWire(events: readonly RunEvent[]): unknown[] {
  return events.map((event) => ({ id: String(event.id), event: event.type, data: event }));
}

function parsed(messages: readonly SseMessage[]): unknown[] {
  return messages.map((m) => ({ id: m.id, event: m.event, data: JSON.parse(m.data) as unknown }));
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function createRun(server: TestServer, input = 'go'): Promise<Run> {
  return (await (await server.call('/v1/runs', { body: { input } })).json()) as Run;
}

describe('GET /v1/runs/{id}/events', () => {
  let store: MemoryRunStore;
  let server: TestServer;
  before(async () => {
    store = new MemoryRunStore();
    server = await startTestServer(store);
  });
  after(() => server.close());

  it('sends a finished run’s whole log with SSE headers, then ends', async () => {
    const run = await createRun(server);
    await server.service.emitDeltas(run.id, { count: 5 });
    await server.service.finish(run.id);
    const response = await fetch(`${server.url}/v1/runs/${run.id}/events`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    assert.equal(response.headers.get('x-accel-buffering'), 'no');
    await response.body?.cancel();
    const messages = await collectSse(`${server.url}/v1/runs/${run.id}/events`);
    assert.deepEqual(parsed(messages), asWire(await store.readEvents(run.id)));
    assert.equal(messages.at(-1)?.event, 'run_completed');
  });

  it('resumes after Last-Event-ID or ?after=N, the header winning', async () => {
    const run = await createRun(server);
    await server.service.emitDeltas(run.id, { count: 4 });
    await server.service.finish(run.id, 'failed');
    const log = await store.readEvents(run.id);
    const url = `${server.url}/v1/runs/${run.id}/events`;
    assert.deepEqual(parsed(await collectSse(url, { headers: { 'Last-Event-ID': '3' } })), asWire(log.slice(3)));
    assert.deepEqual(parsed(await collectSse(`${url}?after=6`)), asWire(log.slice(6)));
    assert.deepEqual(
      parsed(await collectSse(`${url}?after=1`, { headers: { 'Last-Event-ID': '5' } })),
      asWire(log.slice(5)),
    );
    // At or past the terminal event there is nothing left: the stream ends at once.
    assert.deepEqual(await collectSse(url, { headers: { 'Last-Event-ID': String(log.length) } }), []);
    assert.deepEqual(await collectSse(`${url}?after=999`), []);
  });

  it('returns the log as JSON with ?format=json', async () => {
    const run = await createRun(server);
    await server.service.emitDeltas(run.id, { count: 3 });
    const log = await store.readEvents(run.id);
    assert.deepEqual(await (await server.call(`/v1/runs/${run.id}/events?format=json`)).json(), { events: log });
    assert.deepEqual(await (await server.call(`/v1/runs/${run.id}/events?format=json&after=4`)).json(), {
      events: log.slice(4),
    });
  });

  it('answers bad resume points and unknown runs with plain HTTP errors', async () => {
    const run = await createRun(server);
    for (const [path, headers, status] of [
      [`/v1/runs/${run.id}/events`, { 'Last-Event-ID': 'abc' }, 400],
      [`/v1/runs/${run.id}/events?after=-1`, {}, 400],
      [`/v1/runs/${run.id}/events?format=xml`, {}, 400],
      ['/v1/runs/run_nope/events', {}, 404],
    ] as const) {
      const response = await server.call(path, { headers });
      assert.equal(response.status, status, path);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    }
  });

  it(
    'follows a live run: history, then new events as ' + 'they are appended, then ends after the terminal event',
    async () => {
      const run = await createRun(server);
      const received: SseMessage[] = [];
      for await (const message of readSse(`${server.url}/v1/runs/${run.id}/events`)) {
        received.push(message);
        if (message.id === '3') await server.service.emitDeltas(run.id, { count: 3 });
        if (message.id === '6') await server.service.finish(run.id);
      }
      assert.deepEqual(parsed(received), asWire(await store.readEvents(run.id)));
      assert.equal(received.at(-1)?.event, 'run_completed');
    },
  );

  it('loses and repeats nothing when 2,000 events are appended while the client connects', async () => {
    const run = await createRun(server);
    const streamed = collectSse(`${server.url}/v1/runs/${run.id}/events`);
    for (let i = 0; i < 2000; i += 1) {
      await server.service.emit(run.id, [draft('assistant_delta', { step: 1, text: `d${i}` })]);
      if (i % 25 === 0) await tick();
    }
    await server.service.finish(run.id);
    const messages = await streamed;
    assert.deepEqual(parsed(messages), asWire(await store.readEvents(run.id)));
    assert.equal(messages.length, 2005);
  });

  it('?stream=true on POST /v1/runs streams the new run from its first event', async () => {
    const response = await fetch(`${server.url}/v1/runs?stream=true`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ input: 'stream me' }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.ok(response.body);
    const received: SseMessage[] = [];
    let runId = '';
    for await (const message of parseSse(response.body)) {
      received.push(message);
      runId = (JSON.parse(message.data) as RunEvent).runId;
      if (message.id === '3') await server.service.finish(runId);
    }
    assert.equal(response.headers.get('location'), `/v1/runs/${runId}`);
    assert.deepEqual(parsed(received), asWire(await store.readEvents(runId)));

    const invalid = await server.call('/v1/runs?stream=true', { body: { input: '' } });
    assert.equal(invalid.status, 400);
    assert.equal(((await invalid.json()) as { error: { code: string } }).error.code, 'usage');
  });
});

describe('SSE seam, heartbeats, slow subscribers, shutdown', () => {
  // Each history read is surrounded by appends: some events reach the stream through a
  // read and the live feed both, some only live. 700 per read is more than a stream
  // holds while reading, so it drops them and reads the store again.
  for (const perRead of [120, 700]) {
    it(`sends no gap and no duplicate when events land around every history read (${perRead} each side)`, async () => {
      const store = new MemoryRunStore();
      const service = new TestRunService(store);
      let budget = 0;
      let reads = 0;
      const burst = async (runId: string, count: number): Promise<void> => {
        for (let i = 0; i < count && budget > 0; i += 1, budget -= 1) {
          await service.emit(runId, [draft('assistant_delta', { step: 1, text: `b${budget}` })]);
        }
      };
      const eventStore: Pick<RunStore, 'readEvents' | 'subscribe'> = {
        readEvents: async (runId, options) => {
          reads += 1;
          await burst(runId, perRead);
          const page = await store.readEvents(runId, options);
          await burst(runId, perRead);
          return page;
        },
        subscribe: (runId, listener) => store.subscribe(runId, listener),
      };
      const server = await startTestServer(store, { eventStore, service });
      try {
        const run = await createRun(server);
        await service.emitDeltas(run.id, { count: 700 });
        budget = 2000;
        let finished = false;
        const received: SseMessage[] = [];
        for await (const message of readSse(`${server.url}/v1/runs/${run.id}/events`)) {
          received.push(message);
          if (Number(message.id) !== (await store.getRun(run.id))?.lastEventId) continue;
          // Caught up: spend what the reads left of the budget as live events, then end the run.
          if (budget > 0) await burst(run.id, budget);
          else if (!finished) {
            finished = true;
            await service.finish(run.id);
          }
        }
        const log = await store.readEvents(run.id);
        assert.equal(log.length, 3 + 700 + 2000 + 2);
        assert.ok(reads > 2, `only ${reads} history reads`);
        assert.deepEqual(parsed(received), asWire(log));
      } finally {
        await server.close();
      }
    });
  }

  it(
    'delivers events appended right after the history read without waiting for another',
    { timeout: 10_000 },
    async () => {
      const store = new MemoryRunStore();
      const service = new TestRunService(store);
      let first = true;
      const eventStore: Pick<RunStore, 'readEvents' | 'subscribe'> = {
        readEvents: async (runId, options) => {
          const events = await store.readEvents(runId, options);
          if (first) {
            first = false;
            await service.emitDeltas(runId, { count: 2 });
          }
          return events;
        },
        subscribe: (runId, listener) => store.subscribe(runId, listener),
      };
      const server = await startTestServer(store, { eventStore, service });
      try {
        const run = await createRun(server);
        const received: SseMessage[] = [];
        // Nothing else is appended until event 5 has arrived: it must come from the held live feed.
        for await (const message of readSse(`${server.url}/v1/runs/${run.id}/events`)) {
          received.push(message);
          if (message.id === '5') await service.finish(run.id);
        }
        assert.deepEqual(parsed(received), asWire(await store.readEvents(run.id)));
      } finally {
        await server.close();
      }
    },
  );

  it('repairs a gap when the live feed runs ahead of a lagging history read', async () => {
    const store = new MemoryRunStore();
    let lagging = true;
    // The first read misses the newest events, as a lagging replica would.
    const eventStore: Pick<RunStore, 'readEvents' | 'subscribe'> = {
      readEvents: async (runId, options) => {
        const events = await store.readEvents(runId, options);
        if (!lagging) return events;
        lagging = false;
        return events.slice(0, -4);
      },
      subscribe: (runId, listener) => store.subscribe(runId, listener),
    };
    const server = await startTestServer(store, { eventStore });
    try {
      const run = await createRun(server);
      await server.service.emitDeltas(run.id, { count: 6 });
      const received: SseMessage[] = [];
      for await (const message of readSse(`${server.url}/v1/runs/${run.id}/events`)) {
        received.push(message);
        if (message.id === '5') await server.service.finish(run.id);
      }
      assert.deepEqual(parsed(received), asWire(await store.readEvents(run.id)));
    } finally {
      await server.close();
    }
  });

  it('sends a heartbeat comment on an idle stream', async () => {
    const store = new MemoryRunStore();
    const server = await startTestServer(store, { heartbeatMs: 20 });
    try {
      const run = await createRun(server);
      const comments: string[] = [];
      const messages = await collectSse(`${server.url}/v1/runs/${run.id}/events`, {
        onComment: (text) => {
          comments.push(text);
          if (comments.length === 2) void server.service.finish(run.id);
        },
      });
      assert.deepEqual(comments.slice(0, 2), ['ping', 'ping']);
      assert.deepEqual(parsed(messages), asWire(await store.readEvents(run.id)));
    } finally {
      await server.close();
    }
  });

  it('tells a subscriber that does not read `overflow`, closes, and loses nothing on resume', async () => {
    const store = new MemoryRunStore();
    const server = await startTestServer(store, { sseBufferLimitBytes: 64 * 1024 });
    try {
      const run = await createRun(server);
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      // HTTP/1.0: the body is the raw stream, ended by closing the connection.
      socket.write(`GET /v1/runs/${run.id}/events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n`);
      const overflowed = (): boolean => server.logs.some((entry) => entry.msg.includes('too slow'));
      const big = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 3000 && !overflowed(); i += 1) {
        await server.service.emit(run.id, [draft('assistant_delta', { step: 1, text: big })]);
        await tick();
      }
      assert.ok(overflowed(), 'the server never noticed the slow subscriber');

      // Only now does the client read what was buffered for it.
      const chunks: Buffer[] = [];
      for await (const chunk of socket as AsyncIterable<Buffer>) chunks.push(chunk);
      const raw = Buffer.concat(chunks);
      const bodyStart = raw.indexOf('\r\n\r\n') + 4;
      assert.match(raw.subarray(0, bodyStart).toString(), /^HTTP\/1\.1 200 /);
      const first: SseMessage[] = [];
      for await (const message of parseSse([raw.subarray(bodyStart)])) first.push(message);

      const overflow = first.pop();
      assert.equal(overflow?.event, 'overflow');
      assert.equal(overflow?.id, undefined);
      const info = JSON.parse(overflow?.data ?? '{}') as { lastEventId: number; message: string };
      assert.equal(String(info.lastEventId), first.at(-1)?.id);
      assert.match(info.message, new RegExp(`reconnect with Last-Event-ID: ${info.lastEventId}`));

      await server.service.finish(run.id);
      const rest = await collectSse(`${server.url}/v1/runs/${run.id}/events`, {
        headers: { 'Last-Event-ID': String(info.lastEventId) },
      });
      assert.deepEqual(parsed([...first, ...rest]), asWire(await store.readEvents(run.id)));
    } finally {
      await server.close();
    }
  });

  it('unsubscribes when the client goes away', async () => {
    const store = new MemoryRunStore();
    let active = 0;
    const eventStore: Pick<RunStore, 'readEvents' | 'subscribe'> = {
      readEvents: (runId, options) => store.readEvents(runId, options),
      subscribe: (runId, listener) => {
        active += 1;
        const unsubscribe = store.subscribe(runId, listener);
        return () => {
          active -= 1;
          unsubscribe();
        };
      },
    };
    const server = await startTestServer(store, { eventStore });
    try {
      const run = await createRun(server);
      const controller = new AbortController();
      const stream = readSse(`${server.url}/v1/runs/${run.id}/events`, { signal: controller.signal });
      assert.equal((await stream.next()).value?.id, '1');
      assert.equal(active, 1);
      controller.abort();
      await stream.return(undefined).catch(() => {});
      await waitFor(() => active === 0);
      assert.equal(active, 0);
    } finally {
      await server.close();
    }
  });

  it('graceful close ends open streams; a client resumes on the next server without a gap', async () => {
    const store = new MemoryRunStore();
    const first = await startTestServer(store);
    const run = await createRun(first);
    const received: SseMessage[] = [];
    let closed: Promise<void> | undefined;
    for await (const message of readSse(`${first.url}/v1/runs/${run.id}/events`)) {
      received.push(message);
      if (message.id === '3') closed = first.running.close({ graceMs: 5000 });
    }
    await closed;
    assert.deepEqual(
      received.map((m) => m.id),
      ['1', '2', '3'],
    );

    const second = await startTestServer(store, { service: first.service });
    try {
      await second.service.emitDeltas(run.id, { count: 2 });
      await second.service.finish(run.id);
      const rest = await collectSse(`${second.url}/v1/runs/${run.id}/events`, { headers: { 'Last-Event-ID': '3' } });
      assert.deepEqual(parsed([...received, ...rest]), asWire(await store.readEvents(run.id)));
    } finally {
      await second.close();
    }
  });
});
