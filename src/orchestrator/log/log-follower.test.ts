import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type RunEvent } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { emptyConversation } from '../state/run-state.ts';
import { LogFollower } from './log-follower.ts';

/** A run with `count` user messages in its log, and a follower that has applied none of them. */
async function setUp(
  count: number,
): Promise<{ store: MemoryRunStore; runId: string; events: RunEvent[]; follower: LogFollower; applied: number[][] }> {
  const store = new MemoryRunStore();
  const { id: runId } = await store.createRun({ input: 'x', model: 'm' });
  const events = await store.append(
    runId,
    Array.from({ length: count }, (_, i) => draft('user_message', { text: `m${i + 1}` })),
  );
  const applied: number[][] = [];
  const follower = new LogFollower({
    store,
    runId,
    state: emptyConversation(),
    onApplied: (list) => applied.push(list.map((e) => e.id)),
  });
  return { store, runId, events, follower, applied };
}

describe('LogFollower', () => {
  it('applies events that continue the log at once, and settle has nothing to wait for', async () => {
    const { events, follower, applied } = await setUp(3);
    assert.equal(follower.settle(events.slice(0, 2)), undefined);
    assert.equal(follower.state.lastEventId, 2);
    assert.deepEqual(
      follower.state.messages.map((m) => m.content),
      ['m1', 'm2'],
    );
    // Overlapping what was applied: only the new one is applied, once.
    follower.offer(events);
    assert.deepEqual(applied, [[1, 2], [3]]);
    assert.deepEqual(
      follower.state.messages.map((m) => m.content),
      ['m1', 'm2', 'm3'],
    );
    follower.offer(events);
    assert.deepEqual(applied, [[1, 2], [3]], 'nothing is applied twice');
  });

  it('holds events past a gap until the gap is read from the store, then applies them in order', async () => {
    const { events, follower, applied } = await setUp(4);
    follower.offer(events.slice(2));
    assert.equal(follower.state.lastEventId, 0, 'events 3 and 4 wait for 1 and 2');
    const settling = follower.settle(events.slice(3));
    assert.ok(settling instanceof Promise);
    await settling;
    assert.equal(follower.state.lastEventId, 4);
    assert.deepEqual(
      follower.state.messages.map((m) => m.content),
      ['m1', 'm2', 'm3', 'm4'],
    );
    assert.deepEqual(applied.flat(), [1, 2, 3, 4]);
  });

  it('applies events offered out of order once they follow each other', async () => {
    const { events, follower } = await setUp(3);
    follower.offer([events[1] as RunEvent, events[0] as RunEvent]);
    assert.equal(follower.state.lastEventId, 2);
    assert.deepEqual(
      follower.state.messages.map((m) => m.content),
      ['m1', 'm2'],
    );
  });

  it('says so when the store does not return an event it appended', async () => {
    const { events, follower } = await setUp(1);
    const missing = { ...(events[0] as RunEvent), id: 9 };
    await assert.rejects(
      follower.settle([missing]) ?? Promise.resolve(),
      /event 9 was appended but the store does not return it/,
    );
  });
});
