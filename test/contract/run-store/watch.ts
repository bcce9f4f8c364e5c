import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { RunStore } from '../../../src/core/index.ts';
import { newRun, sleep, toolgateError, userMessage, withStore, type RunStoreFactory } from './harness.ts';

/** Waits up to `ms` for `done` to hold, checking every 10 ms. */
async function until(what: string, ms: number, done: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

type Watch = NonNullable<RunStore['watch']>;

/**
 * The optional `watch`: skipped for stores that leave it out. Appends through the same store suffice here; other
 * processes are the store's own tests.
 */
export function watchContract(factory: RunStoreFactory): void {
  describe('watch (optional)', () => {
    const watching = (title: string, test: (store: RunStore, watch: Watch) => Promise<void>): void => {
      it(title, (t: TestContext) =>
        withStore(factory, async (store) => {
          if (store.watch === undefined) {
            t.skip('this store has no watch');
            return;
          }
          await test(store, store.watch.bind(store));
        }),
      );
    };

    watching(
      'wakes the watcher after an append with the id of its last event, possibly coalesced',
      async (store, watch) => {
        const { id } = await store.createRun(newRun());
        const woken: number[] = [];
        await watch(id, (lastEventId) => woken.push(lastEventId));
        await store.append(id, [userMessage('1'), userMessage('2')]);
        await store.append(id, [userMessage('3')]);
        await until('a wake-up for event 3', 2_000, () => woken.includes(3));
        assert.ok(
          woken.every((n) => Number.isInteger(n) && n >= 0 && n <= 3),
          `woken with ${woken.join(', ')}`,
        );
      },
    );

    watching('stops after unwatch, for that watcher only', async (store, watch) => {
      const { id } = await store.createRun(newRun());
      const gone: number[] = [];
      const staying: number[] = [];
      const unwatch = await watch(id, (n) => gone.push(n));
      await watch(id, (n) => staying.push(n));
      unwatch();
      unwatch();
      await store.append(id, [userMessage('1')]);
      await until('the remaining watcher', 2_000, () => staying.includes(1));
      await sleep(50);
      assert.deepEqual(gone, []);
    });

    watching('watches a run that does not exist yet, and only that run', async (store, watch) => {
      const woken: number[] = [];
      const other: number[] = [];
      await watch('run_later', (n) => woken.push(n));
      const { id } = await store.createRun(newRun());
      await watch(id, (n) => other.push(n));
      await store.createRun(newRun({ id: 'run_later' }));
      await store.append('run_later', [userMessage('hello')]);
      await until('a wake-up for run_later', 2_000, () => woken.includes(1));
      assert.deepEqual(other, []);
    });

    watching('refuses to watch once the store is closed', async (store, watch) => {
      await store.close();
      await assert.rejects(
        watch('run_any', () => undefined),
        toolgateError('internal'),
      );
    });
  });
}
