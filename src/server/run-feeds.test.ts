import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type RunEvent, type RunStore } from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { RunFeeds } from './run-feeds.ts';

/**
 * A store whose reads, subscriptions and watches are counted, and whose watchers the test wakes by hand. `deaf`: its
 * subscription hears nothing, as if every append came from another process.
 */
function observed(
  store: MemoryRunStore,
  deaf = false,
): {
  store: Pick<RunStore, 'readEvents' | 'subscribe' | 'watch'>;
  counts: { reads: number; subscriptions: number; watches: number };
  wake: (runId: string, lastEventId: number) => void;
} {
  const counts = { reads: 0, subscriptions: 0, watches: 0 };
  const watchers = new Map<string, Set<(lastEventId: number) => void>>();
  return {
    counts,
    wake: (runId, lastEventId) => {
      for (const watcher of watchers.get(runId) ?? []) watcher(lastEventId);
    },
    store: {
      readEvents: (runId, options) => {
        counts.reads++;
        return store.readEvents(runId, options);
      },
      subscribe: (runId, listener) => {
        counts.subscriptions++;
        const unsubscribe = deaf ? () => undefined : store.subscribe(runId, listener);
        return () => {
          counts.subscriptions--;
          unsubscribe();
        };
      },
      watch: async (runId, onAppended) => {
        counts.watches++;
        const set = watchers.get(runId) ?? new Set();
        watchers.set(runId, set);
        set.add(onAppended);
        return () => {
          counts.watches--;
          set.delete(onAppended);
        };
      },
    },
  };
}

describe('RunFeeds', () => {
  it('follows a run once for all its streams, and stops when the last one leaves', async () => {
    const memory = new MemoryRunStore();
    const { store, counts } = observed(memory);
    const feeds = new RunFeeds({ store, pollMs: 0 });
    const run = await memory.createRun({ input: 'x', model: 'm' });
    const seen: number[][] = [[], [], []];
    const members = await Promise.all(
      seen.map((ids) =>
        feeds.join(run.id, { position: 0, listener: (events) => ids.push(...events.map((e) => e.id)) }),
      ),
    );
    assert.equal(feeds.followed, 1);
    assert.deepEqual(counts, { reads: 0, subscriptions: 1, watches: 1 });
    await memory.append(run.id, [draft('user_message', { text: 'a' }), draft('user_message', { text: 'b' })]);
    assert.deepEqual(seen, [
      [1, 2],
      [1, 2],
      [1, 2],
    ]);
    for (const member of members) member.leave();
    assert.equal(feeds.followed, 0);
    assert.deepEqual(counts, { reads: 0, subscriptions: 0, watches: 0 });
  });

  it("reads another process's appends once per wake-up for all streams, in order, without duplicates", async () => {
    const memory = new MemoryRunStore();
    const { store, counts, wake } = observed(memory, true);
    const feeds = new RunFeeds({ store, pollMs: 0 });
    const run = await memory.createRun({ input: 'x', model: 'm' });
    const seen: RunEvent[][] = Array.from({ length: 50 }, () => []);
    for (const events of seen) await feeds.join(run.id, { position: 0, listener: (batch) => events.push(...batch) });
    await memory.append(
      run.id,
      [1, 2, 3].map((n) => draft('user_message', { text: `${n}` })),
    );
    wake(run.id, 3);
    wake(run.id, 3);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(counts.reads, 1, 'two wake-ups for the same events while 50 streams follow: one read');
    for (const events of seen)
      assert.deepEqual(
        events.map((e) => e.id),
        [1, 2, 3],
      );
    wake(run.id, 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(counts.reads, 1, 'a wake-up for events already handed out reads nothing');
  });
});
