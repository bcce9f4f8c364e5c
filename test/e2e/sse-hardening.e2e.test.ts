// SSE streams against a real node:http server on loopback: large terminal
// events, clients that stop reading, and resume points past a live log's end.
// Each case was once a way for a stream to lose its last events or to hold a
// connection (and megabytes of buffers) forever.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { draft, type RunEvent } from '../../src/core/events.ts';
import type { Run } from '../../src/core/runs.ts';
import { ZERO_USAGE } from '../../src/core/usage.ts';
import { startTestServer, type TestServer, type TestServerOptions } from '../support/test-server.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { parseSse, readSse, type SseMessage } from '../support/sse-client.ts';

const ANSWER = 'a'.repeat(200 * 1024);
const STREAMS = 10;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function withServer(
  options: TestServerOptions,
  body: (server: TestServer, store: MemoryRunStore) => Promise<void>,
): Promise<void> {
  const store = new MemoryRunStore();
  const server = await startTestServer(store, options);
  try {
    await body(server, store);
  } finally {
    await server.close();
  }
}

async function createRun(server: TestServer): Promise<Run> {
  return (await (await server.call('/v1/runs', { body: { input: 'go' } })).json()) as Run;
}

/** What the run loop appends for a 200 KB answer: the message, then the status change with run_completed. */
async function answerBig(server: TestServer, runId: string): Promise<void> {
  await server.service.emit(runId, [
    draft('assistant_message', { step: 1, text: ANSWER, toolCalls: [], finishReason: 'stop', latencyMs: 1 }),
  ]);
  await server.service.emit(
    runId,
    [
      draft('run_status', { from: 'running', to: 'completed' }),
      draft('run_completed', { output: ANSWER, usage: { ...ZERO_USAGE }, steps: 1 }),
    ],
    { status: 'completed' },
  );
}

function ids(messages: readonly SseMessage[]): number[] {
  return messages.map((m) => Number(m.id));
}

/**
 * 'complete' when a stream carried the whole stored log, in order, ending on run_completed with its full output; else
 * what went wrong.
 */
function complete(received: readonly SseMessage[], log: readonly RunEvent[]): string {
  const got = ids(received).join(',');
  const stored = log.map((e) => e.id).join(',');
  if (got !== stored) return `ids ${got}, stored ${stored}`;
  const last = received.at(-1);
  if (last?.event !== 'run_completed') return `ended on ${last?.event}`;
  const output = (JSON.parse(last.data) as RunEvent<'run_completed'>).data.output;
  return output === ANSWER ? 'complete' : `output of ${output.length} characters`;
}

/** Appends `count` deltas of `size` characters in one go: a history far larger than the socket buffers. */
async function bigHistory(server: TestServer, runId: string, options: { count: number; size: number }): Promise<void> {
  await server.service.emit(
    runId,
    Array.from({ length: options.count }, (_, i) =>
      draft('assistant_delta', { step: 1, text: String(i % 10).repeat(options.size) }),
    ),
  );
  await server.service.finish(runId);
}

/** A raw HTTP/1.1 GET that reads nothing. */
async function silentClient(server: TestServer, path: string): Promise<Socket> {
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  await once(socket, 'connect');
  socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  return socket;
}

describe('SSE hardening (real sockets)', () => {
  it(
    `${STREAMS} of ${STREAMS} live streams of a 200 KB answer end on run_completed with every event`,
    { timeout: 60_000 },
    async () => {
      await withServer({}, async (server, store) => {
        const follow = async (): Promise<string> => {
          const run = await createRun(server);
          const received: SseMessage[] = [];
          for await (const message of readSse(`${server.url}/v1/runs/${run.id}/events`)) {
            received.push(message);
            if (message.id === '3') await answerBig(server, run.id);
          }
          return complete(received, await store.readEvents(run.id));
        };
        const results = await Promise.all(Array.from({ length: STREAMS }, follow));
        assert.deepEqual(
          results.filter((r) => r !== 'complete'),
          [],
          `${results.filter((r) => r === 'complete').length} of ${STREAMS} complete`,
        );
      });
    },
  );

  it(
    `${STREAMS} of ${STREAMS} POST /v1/runs?stream=true of a 200 KB answer end on run_completed with every event`,
    { timeout: 60_000 },
    async () => {
      await withServer({}, async (server, store) => {
        const stream = async (): Promise<string> => {
          const received: SseMessage[] = [];
          let runId = '';
          for await (const message of readSse(`${server.url}/v1/runs?stream=true`, {
            method: 'POST',
            body: JSON.stringify({ input: 'go' }),
            headers: { 'Content-Type': 'application/json' },
          })) {
            received.push(message);
            runId = (JSON.parse(message.data) as RunEvent).runId;
            if (message.id === '3') await answerBig(server, runId);
          }
          return complete(received, await store.readEvents(runId));
        };
        const results = await Promise.all(Array.from({ length: STREAMS }, stream));
        assert.deepEqual(
          results.filter((r) => r !== 'complete'),
          [],
          `${results.filter((r) => r === 'complete').length} of ${STREAMS} complete`,
        );
      });
    },
  );

  it('ends on the terminal event when the client is slow to start reading', { timeout: 30_000 }, async () => {
    await withServer({}, async (server, store) => {
      const run = await createRun(server);
      const response = await fetch(`${server.url}/v1/runs/${run.id}/events`);
      assert.ok(response.body);
      // Nothing is read while the answer is appended: the terminal event meets a full socket.
      await answerBig(server, run.id);
      await sleep(100);
      const received: SseMessage[] = [];
      for await (const message of parseSse(response.body)) received.push(message);
      assert.deepEqual(
        ids(received),
        (await store.readEvents(run.id)).map((e) => e.id),
      );
      assert.equal(received.at(-1)?.event, 'run_completed');
    });
  });

  it(
    'drops a client that reads none of a finished run’s history after the idle limit',
    { timeout: 30_000 },
    async () => {
      await withServer({ sseIdleTimeoutMs: 300 }, async (server) => {
        const run = await createRun(server);
        await bigHistory(server, run.id, { count: 64, size: 256 * 1024 });
        const serverSockets: Socket[] = [];
        server.running.server.on('connection', (socket: Socket) => serverSockets.push(socket));
        const started = Date.now();
        const client = await silentClient(server, `/v1/runs/${run.id}/events`);
        try {
          while (serverSockets.length === 0) await sleep(5);
          const closed = once(serverSockets[0] as Socket, 'close').then(() => Date.now() - started);
          const elapsed = await Promise.race([closed, sleep(5000).then(() => -1)]);
          assert.notEqual(elapsed, -1, 'the server still holds the connection 5 s later');
          assert.ok(elapsed >= 250, `dropped after ${elapsed} ms, before the idle limit`);
          assert.ok(
            server.logs.some((entry) => entry.level === 'warn' && /no progress/.test(entry.msg)),
            'the drop is logged',
          );
        } finally {
          client.destroy();
        }
      });
    },
  );

  it(
    'ends a stream still catching up on history at the total limit; the client resumes losslessly',
    { timeout: 60_000 },
    async () => {
      await withServer({ sseHistoryTimeoutMs: 300 }, async (server, store) => {
        const run = await createRun(server);
        await bigHistory(server, run.id, { count: 64, size: 256 * 1024 });
        const log = await store.readEvents(run.id);
        const url = `${server.url}/v1/runs/${run.id}/events`;

        // A slow reader: one chunk, then a pause.
        const response = await fetch(url);
        assert.ok(response.body);
        const slowly = async function* (body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
          for await (const chunk of body) {
            yield chunk;
            await sleep(20);
          }
        };
        const first: SseMessage[] = [];
        for await (const message of parseSse(slowly(response.body))) first.push(message);
        assert.ok(
          first.length > 0 && first.length < log.length,
          `the first stream sent ${first.length} of ${log.length} events`,
        );
        assert.deepEqual(
          ids(first),
          log.slice(0, first.length).map((e) => e.id),
          'a clean end after a contiguous prefix',
        );
        assert.ok(
          first.every(
            (m) =>
              m.event === 'assistant_delta' ||
              m.event === 'run_status' ||
              m.event === 'user_message' ||
              m.event === 'run_started',
          ),
        );
        assert.ok(
          server.logs.some((entry) => /history/.test(entry.msg)),
          'the early end is logged',
        );

        // Reconnecting with Last-Event-ID, as EventSource does, gets the rest.
        const all = [...first];
        for (let attempt = 0; attempt < 20 && all.at(-1)?.event !== 'run_completed'; attempt += 1) {
          for await (const message of readSse(url, { headers: { 'Last-Event-ID': String(all.at(-1)?.id ?? 0) } }))
            all.push(message);
        }
        assert.deepEqual(
          ids(all),
          log.map((e) => e.id),
        );
      });
    },
  );

  it(
    'holds a resume point past the end of a live log until the run ends, then ends on its terminal event',
    { timeout: 30_000 },
    async () => {
      await withServer({}, async (server, store) => {
        const run = await createRun(server);
        const response = await fetch(`${server.url}/v1/runs/${run.id}/events`, { headers: { 'Last-Event-ID': '50' } });
        assert.equal(response.status, 200);
        assert.ok(response.body);
        const received: SseMessage[] = [];
        let ended = false;
        const reading = (async () => {
          for await (const message of parseSse(response.body as ReadableStream<Uint8Array>)) received.push(message);
          ended = true;
        })();

        await server.service.emitDeltas(run.id, { count: 5 });
        await sleep(150);
        assert.equal(ended, false, 'the stream ended while the run was still live');

        const terminalAppended = Date.now();
        await server.service.finish(run.id);
        const done = await Promise.race([
          reading.then(() => Date.now() - terminalAppended),
          sleep(3000).then(() => -1),
        ]);
        assert.notEqual(done, -1, 'the stream was still open 3 s after the terminal event');
        assert.deepEqual(received, [], 'nothing at or before the resume point is sent');
        assert.ok((await store.readEvents(run.id)).length < 50);
      });
    },
  );

  it(
    'a resume point inside a live run’s future sends only what comes after it, and ends on the terminal event',
    { timeout: 30_000 },
    async () => {
      await withServer({}, async (server, store) => {
        const run = await createRun(server);
        const streamed = (async () => {
          const received: SseMessage[] = [];
          for await (const message of readSse(`${server.url}/v1/runs/${run.id}/events?after=6`)) received.push(message);
          return received;
        })();
        await sleep(50);
        await server.service.emitDeltas(run.id, { count: 5 });
        await server.service.finish(run.id);
        const received = await streamed;
        assert.deepEqual(
          ids(received),
          (await store.readEvents(run.id)).slice(6).map((e) => e.id),
        );
        assert.equal(received.at(-1)?.event, 'run_completed');
      });
    },
  );
});
