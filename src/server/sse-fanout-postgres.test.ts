// Many SSE subscribers of one run on a second instance sharing PostgreSQL: the
// events appended through another store instance reach every subscriber, in
// order and once, and each batch costs the second instance a bounded number of
// reads of the log, whatever the number of subscribers (one follower per run).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { draft, type RunEvent, type RunStore } from '../core/index.ts';
import { openPostgresRunStore } from '../store/postgres/open-postgres-run-store.ts';
import type { PostgresRunStore } from '../store/postgres/postgres-run-store.ts';
import { readSse } from '../../test/support/sse-client.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../../test/support/postgres.ts';
import { TestRunService } from '../../test/support/test-run-service.ts';
import { startHttpServer } from './http-server.ts';

const SUBSCRIBERS = 200;
const BATCHES = 15;

/** The store's reads of a run's log, counted: what a storm of per-subscriber reads would show. */
function countingReads(store: PostgresRunStore): {
  store: Pick<RunStore, 'readEvents' | 'subscribe' | 'watch'>;
  reads: () => number;
} {
  let reads = 0;
  return {
    store: {
      readEvents: (runId, options) => {
        reads++;
        return store.readEvents(runId, options);
      },
      subscribe: (runId, listener) => store.subscribe(runId, listener),
      watch: (runId, onAppended) => store.watch(runId, onAppended),
    },
    reads: () => reads,
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const completed = draft('run_completed', {
  output: 'done',
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  steps: 0,
});

describe('SSE fan-out on a second instance sharing PostgreSQL', { skip: postgresSkip() }, () => {
  const created: string[] = [];
  let url = '';
  before(async () => {
    url = await createDatabase('toolgate_sse_fanout', created);
  });
  after(async () => {
    for (const name of created) await dropDatabase(name);
  });

  it(`hands ${SUBSCRIBERS} subscribers every event in order, with reads per batch independent of them`, async () => {
    const appender = await openPostgresRunStore({ url });
    const follower = await openPostgresRunStore({ url });
    const counted = countingReads(follower);
    // No poll: every read counted here answers a wake-up (or a stream's own catch-up when it connects).
    const http = await startHttpServer({
      service: new TestRunService(follower),
      store: counted.store,
      apiKeys: [],
      port: 0,
      ssePollMs: 0,
    });
    const stop = new AbortController();
    try {
      const run = await appender.createRun({ input: 'x', model: 'm', status: 'running' });
      await appender.append(run.id, [draft('user_message', { text: 'first' })]);
      const received: number[][] = Array.from({ length: SUBSCRIBERS }, () => []);
      const streams = received.map(async (ids) => {
        const events = readSse(`${http.url}/v1/runs/${run.id}/events`, { signal: stop.signal });
        for await (const message of events) ids.push(Number(message.id));
      });
      await until(() => received.every((ids) => ids.length === 1), 'every subscriber to have the first event');

      const readsBefore = counted.reads();
      let last = 1;
      for (let batch = 0; batch < BATCHES; batch++) {
        const drafts = [draft('user_message', { text: `a${batch}` }), draft('user_message', { text: `b${batch}` })];
        await appender.append(run.id, drafts);
        last += drafts.length;
        if (batch % 3 === 0) await until(() => received.every((ids) => ids.length === last), `batch ${batch}`);
      }
      await appender.append(run.id, [completed], { status: 'completed' });
      last += 1;
      await Promise.all(streams);
      const reads = counted.reads() - readsBefore;

      const expected = Array.from({ length: last }, (_, i) => i + 1);
      for (const [i, ids] of received.entries()) {
        assert.deepEqual(ids, expected, `subscriber ${i}: every event once, in order`);
      }
      // One read per wake-up, one more when a wake-up comes during a read: per batch, not per subscriber.
      assert.ok(reads <= 2 * (BATCHES + 1), `${reads} reads of the log for ${BATCHES + 1} batches`);
      assert.ok(reads >= 1, 'the second instance read the events another instance appended');
    } finally {
      stop.abort();
      await http.close({ graceMs: 100 });
      await appender.close();
      await follower.close();
    }
  });

  it('a subscriber resuming with Last-Event-ID on the second instance gets the rest once, in order', async () => {
    const appender = await openPostgresRunStore({ url });
    const follower = await openPostgresRunStore({ url });
    const http = await startHttpServer({
      service: new TestRunService(follower),
      store: follower,
      apiKeys: [],
      port: 0,
    });
    try {
      const run = await appender.createRun({ input: 'x', model: 'm', status: 'running' });
      await appender.append(
        run.id,
        [1, 2, 3].map((n) => draft('user_message', { text: `m${n}` })),
      );
      const ids = async (lastEventId: string): Promise<number[]> => {
        const out: number[] = [];
        const headers = { 'last-event-id': lastEventId };
        for await (const m of readSse(`${http.url}/v1/runs/${run.id}/events`, { headers })) out.push(Number(m.id));
        return out;
      };
      const early = ids('0');
      const resumed = ids('2');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const more: RunEvent[] = await appender.append(run.id, [draft('user_message', { text: 'm4' })]);
      assert.equal(more.at(-1)?.id, 4);
      await appender.append(run.id, [completed], { status: 'completed' });
      assert.deepEqual(await early, [1, 2, 3, 4, 5]);
      assert.deepEqual(await resumed, [3, 4, 5]);
    } finally {
      await http.close({ graceMs: 100 });
      await appender.close();
      await follower.close();
    }
  });
});
