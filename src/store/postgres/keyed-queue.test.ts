import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedQueue } from './keyed-queue.ts';

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedQueue', () => {
  it('runs the tasks of one key in call order, one at a time', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    let running = 0;
    const task = (name: string, ms: number) => async (): Promise<string> => {
      running += 1;
      assert.equal(running, 1, 'two tasks of one key overlapped');
      log.push(`start ${name}`);
      await tick(ms);
      log.push(`end ${name}`);
      running -= 1;
      return name;
    };
    const results = await Promise.all([
      queue.run('a', task('1', 15)),
      queue.run('a', task('2', 1)),
      queue.run('a', task('3', 5)),
    ]);
    assert.deepEqual(results, ['1', '2', '3']);
    assert.deepEqual(log, ['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('runs tasks of different keys side by side', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    await Promise.all([
      queue.run('a', async () => {
        await tick(20);
        log.push('a');
      }),
      queue.run('b', async () => {
        log.push('b');
      }),
    ]);
    assert.deepEqual(log, ['b', 'a']);
  });

  it('goes on after a failed task and forgets keys once idle', async () => {
    const queue = new KeyedQueue();
    const failed = queue.run('a', () => Promise.reject(new Error('boom')));
    const next = queue.run('a', () => Promise.resolve('next'));
    await assert.rejects(failed, /boom/);
    assert.equal(await next, 'next');
    await tick(0);
    assert.equal(queue.size, 0);
  });

  it('drained waits for every queued task, also one queued by a task while it ran, and for failed ones', async () => {
    const queue = new KeyedQueue();
    const done: string[] = [];
    void queue.run('a', async () => {
      await tick(10);
      done.push('a1');
      void queue.run('b', async () => {
        await tick(10);
        done.push('b1');
      });
    });
    queue.run('a', () => Promise.reject(new Error('fails'))).catch(() => done.push('a2 failed'));
    await queue.drained();
    assert.deepEqual(done, ['a1', 'a2 failed', 'b1']);
    assert.equal(queue.size, 0);
  });
});
