import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type Run, type RunEvent } from '../../../src/core/index.ts';
import { newRun, userMessage, withStore, type RunStoreFactory } from './harness.ts';

export function subscribeContract(factory: RunStoreFactory): void {
  describe('subscribe', () => {
    it('hands a subscriber exactly the events appended after it subscribed, in order, once', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        await store.append(id, [userMessage('before 1'), userMessage('before 2')]);
        const received: RunEvent[] = [];
        store.subscribe(id, (events) => received.push(...events));
        const first = await store.append(id, [userMessage('after 1')]);
        // Delivered by the time append resolves, not later.
        assert.deepEqual(received, first);
        const second = await store.append(id, [userMessage('after 2'), userMessage('after 3'), userMessage('after 4')]);
        assert.deepEqual(received, [...first, ...second]);
        assert.deepEqual(
          received.map((e) => e.id),
          [3, 4, 5, 6],
        );
      }));

    it('delivers to every subscriber of the run and to none of another run', () =>
      withStore(factory, async (store) => {
        const a = await store.createRun(newRun());
        const b = await store.createRun(newRun());
        const first: number[] = [];
        const second: number[] = [];
        const other: number[] = [];
        store.subscribe(a.id, (events) => first.push(...events.map((e) => e.id)));
        store.subscribe(a.id, (events) => second.push(...events.map((e) => e.id)));
        store.subscribe(b.id, (events) => other.push(...events.map((e) => e.id)));
        await store.append(a.id, [userMessage('1'), userMessage('2')]);
        assert.deepEqual(first, [1, 2]);
        assert.deepEqual(second, [1, 2]);
        assert.deepEqual(other, []);
      }));

    it('stops delivering after unsubscribe, to that listener only', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        const gone: number[] = [];
        const staying: number[] = [];
        const unsubscribe = store.subscribe(id, (events) => gone.push(...events.map((e) => e.id)));
        store.subscribe(id, (events) => staying.push(...events.map((e) => e.id)));
        await store.append(id, [userMessage('1')]);
        unsubscribe();
        unsubscribe();
        await store.append(id, [userMessage('2')]);
        assert.deepEqual(gone, [1]);
        assert.deepEqual(staying, [1, 2]);
      }));

    it('lets a subscriber see the run already patched when it is handed the events', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        const seen: Promise<Run | undefined>[] = [];
        store.subscribe(id, () => seen.push(store.getRun(id)));
        await store.append(id, [draft('run_status', { from: 'queued', to: 'running' })], {
          status: 'running',
          steps: 1,
        });
        assert.equal(seen.length, 1);
        const run = await seen[0];
        assert.equal(run?.status, 'running');
        assert.equal(run?.steps, 1);
        assert.equal(run?.lastEventId, 1);
      }));

    it('a throwing subscriber neither fails the append nor starves the others', () =>
      withStore(factory, async (store) => {
        const { id } = await store.createRun(newRun());
        const received: number[] = [];
        store.subscribe(id, () => {
          throw new Error('listener bug (expected in this test)');
        });
        store.subscribe(id, (events) => received.push(...events.map((e) => e.id)));
        const appended = await store.append(id, [userMessage('1')]);
        assert.deepEqual(
          appended.map((e) => e.id),
          [1],
        );
        assert.deepEqual(received, [1]);
        assert.equal((await store.readEvents(id)).length, 1);
      }));
  });
}
