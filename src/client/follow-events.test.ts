import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../core/index.ts';
import { ZERO_USAGE } from '../core/usage.ts';
import { ToolgateApiError, ToolgateClientError } from './client-error.ts';
import type { ConnectionChange } from './follow-events.ts';
import { ToolgateClient } from './runs-client.ts';
import type { FetchFunction } from './types.ts';

const encoder = new TextEncoder();
/** The run's log: four deltas, then the end. */
const LAST_ID = 5;

function event(id: number): RunEvent {
  const time = '2026-01-01T00:00:00.000Z';
  if (id === LAST_ID)
    return { id, runId: 'run_1', type: 'run_completed', time, data: { output: 'done', usage: ZERO_USAGE, steps: 1 } };
  return { id, runId: 'run_1', type: 'assistant_delta', time, data: { step: 1, text: `e${id}` } };
}

const frame = (id: number): string => `id: ${id}\nevent: ${event(id).type}\ndata: ${JSON.stringify(event(id))}\n\n`;

interface Connection {
  /** Frames to send; the stream then ends, or fails as a cut connection does. */
  frames: string[];
  then?: 'end' | 'cut' | 'stall';
  status?: number;
}

/** A server played by a fetch: each SSE request gets the next connection; JSON requests get the whole log. */
function server(connections: Connection[]): {
  fetch: FetchFunction;
  requests: { url: string; lastEventId?: string }[];
} {
  const requests: { url: string; lastEventId?: string }[] = [];
  const fetch: FetchFunction = async (url, init) => {
    const lastEventId = new Headers(init.headers).get('last-event-id') ?? undefined;
    requests.push({ url, ...(lastEventId === undefined ? {} : { lastEventId }) });
    if (url.includes('format=json')) {
      const after = Number(new URL(url).searchParams.get('after'));
      const events = Array.from({ length: LAST_ID }, (_, i) => event(i + 1)).filter((e) => e.id > after);
      return new Response(JSON.stringify({ events }), { headers: { 'content-type': 'application/json' } });
    }
    const connection = connections.shift() ?? { frames: [], then: 'end' };
    if (connection.status !== undefined)
      return new Response(JSON.stringify({ error: { code: 'not_found', message: 'run run_1 not found' } }), {
        status: connection.status,
      });
    const frames = [...connection.frames];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        init.signal?.addEventListener('abort', () => controller.error(init.signal?.reason));
      },
      // One frame per read, so that a cut comes after the frames were read (an error drops what is queued).
      pull(controller) {
        const text = frames.shift();
        if (text !== undefined) controller.enqueue(encoder.encode(text));
        else if (connection.then === 'cut') controller.error(new TypeError('terminated'));
        else if (connection.then !== 'stall') controller.close();
        else return new Promise<void>(() => undefined);
        return undefined;
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, requests };
}

const FAST = { delayMs: 1, maxDelayMs: 2 };

async function collect(iterable: AsyncIterable<RunEvent>): Promise<number[]> {
  const ids: number[] = [];
  for await (const e of iterable) ids.push(e.id);
  return ids;
}

describe('ToolgateClient.events: following a run over SSE', () => {
  it('resumes a cut connection with Last-Event-ID: every event once, in order, until the terminal one', async () => {
    const { fetch, requests } = server([
      { frames: [': ping\n\n', frame(1), frame(2)], then: 'cut' },
      // The server resends what it already sent (a proxy's replay): skipped.
      { frames: [frame(2), frame(3), 'event: overflow\ndata: {"lastEventId":3}\n\n'], then: 'end' },
      { frames: [frame(4), frame(5)], then: 'stall' },
    ]);
    const changes: ConnectionChange[] = [];
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    const ids = await collect(client.events('run_1', { retry: FAST, onConnection: (c) => changes.push(c) }));
    assert.deepEqual(ids, [1, 2, 3, 4, 5]);
    assert.deepEqual(
      requests.map((r) => r.lastEventId),
      [undefined, '2', '3'],
    );
    assert.deepEqual(
      changes.map((c) => `${c.state}@${c.after}`),
      ['open@0', 'retrying@2', 'open@2', 'retrying@3', 'open@3'],
    );
    assert.match(changes[1]?.state === 'retrying' ? changes[1].cause : '', /terminated/);
  });

  it('an event past the next one is preceded by the missing ones, read from the stored log', async () => {
    const { fetch, requests } = server([{ frames: [frame(1), frame(4), frame(5)] }]);
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    assert.deepEqual(await collect(client.events('run_1', { retry: FAST })), [1, 2, 3, 4, 5]);
    assert.match(requests[1]?.url ?? '', /\/v1\/runs\/run_1\/events\?format=json&after=1$/);
  });

  it('starts after `after`, sending it as Last-Event-ID', async () => {
    const { fetch, requests } = server([{ frames: [frame(4), frame(5)] }]);
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    assert.deepEqual(await collect(client.events('run_1', { after: 3 })), [4, 5]);
    assert.equal(requests[0]?.lastEventId, '3');
  });

  it('gives up after the retries allowed when connections keep ending without a new event', async () => {
    const { fetch, requests } = server([{ frames: [frame(1)] }]);
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    const error = await collect(client.events('run_1', { retry: { ...FAST, attempts: 2 } })).catch((e: unknown) => e);
    assert.ok(error instanceof ToolgateClientError);
    assert.equal(error.reason, 'stream_gave_up');
    assert.match(error.message, /the event stream of run run_1 at http:\/\/toolgate\.test ended 3 times in a row/);
    assert.equal(requests.length, 4);
  });

  it('a refusal (404) is thrown at once; while resuming, a 503 (a restart) is retried', async () => {
    const missing = server([{ frames: [], status: 404 }]);
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch: missing.fetch });
    await assert.rejects(collect(client.events('run_1', { retry: FAST })), (e: unknown) => {
      assert.ok(e instanceof ToolgateApiError);
      assert.equal(e.status, 404);
      return true;
    });
    assert.equal(missing.requests.length, 1);
    const restarting = server([
      { frames: [frame(1)], then: 'cut' },
      { frames: [], status: 503 },
      { frames: [frame(2), frame(3), frame(4), frame(5)] },
    ]);
    const again = new ToolgateClient({ url: 'http://toolgate.test', fetch: restarting.fetch });
    assert.deepEqual(await collect(again.events('run_1', { retry: FAST })), [1, 2, 3, 4, 5]);
    assert.deepEqual(
      restarting.requests.map((r) => r.lastEventId),
      [undefined, '1', '1'],
    );
    const down = server([{ frames: [], status: 503 }]);
    const first = new ToolgateClient({ url: 'http://toolgate.test', fetch: down.fetch });
    await assert.rejects(collect(first.events('run_1', { retry: FAST })), /run run_1 not found/);
    assert.equal(down.requests.length, 1, 'a first connection that fails is said at once, not retried');
  });

  it('reconnect: false ends with the connection', async () => {
    const { fetch, requests } = server([{ frames: [frame(1), frame(2)], then: 'end' }]);
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    assert.deepEqual(await collect(client.events('run_1', { reconnect: false })), [1, 2]);
    assert.equal(requests.length, 1);
  });

  it('an abort stops a stream that waits, with the reason; a break lets the connection go', async () => {
    const { fetch } = server([
      { frames: [frame(1)], then: 'stall' },
      { frames: [frame(1), frame(2)], then: 'stall' },
    ]);
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    const controller = new AbortController();
    const seen: number[] = [];
    const reason = new Error('stop following');
    await assert.rejects(
      (async () => {
        for await (const e of client.events('run_1', { signal: controller.signal })) {
          seen.push(e.id);
          controller.abort(reason);
        }
      })(),
      (e: unknown) => e === reason,
    );
    assert.deepEqual(seen, [1]);
    for await (const e of client.events('run_1')) if (e.id === 2) break;
  });

  it('a stream of something else is refused by name', async () => {
    const fetch: FetchFunction = async () =>
      new Response('id: 1\ndata: {"hello": "world"}\n\n', { headers: { 'content-type': 'text/event-stream' } });
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    await assert.rejects(
      collect(client.events('run_1')),
      /answered GET \/v1\/runs\/\{id\}\/events with an event that is not a run event/,
    );
  });
});
