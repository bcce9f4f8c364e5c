import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type RunEvent } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { followRun } from './follow-run.ts';

async function collect(source: AsyncGenerator<RunEvent>, onEach?: (event: RunEvent) => Promise<void>) {
  const seen: RunEvent[] = [];
  for await (const event of source) {
    seen.push(event);
    await onEach?.(event);
  }
  return seen;
}

describe('followRun', () => {
  it('yields history then live events, each once and in order, and returns after the terminal event', async () => {
    const store = new MemoryRunStore();
    const run = await store.createRun({ input: 'x', model: 'm' });
    await store.append(run.id, [draft('user_message', { text: 'a' }), draft('user_message', { text: 'b' })]);
    const signal = new AbortController().signal;
    let appended = 0;
    const seen = await collect(followRun(store, { runId: run.id, signal, pollMs: 0 }), async () => {
      // Appends while the consumer is busy, including while history is still being read.
      if (appended < 3) {
        appended++;
        await store.append(run.id, [draft('user_message', { text: `live ${appended}` })]);
      } else if (appended === 3) {
        appended++;
        await store.append(run.id, [
          draft('run_completed', {
            output: 'done',
            usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
            steps: 0,
          }),
        ]);
      }
    });
    assert.deepEqual(
      seen.map((e) => e.id),
      [1, 2, 3, 4, 5, 6],
    );
    assert.equal(seen.at(-1)?.type, 'run_completed');
  });

  it('starts after `after`, and stops when aborted while waiting', async () => {
    const store = new MemoryRunStore();
    const run = await store.createRun({ input: 'x', model: 'm' });
    await store.append(run.id, [draft('user_message', { text: 'a' }), draft('user_message', { text: 'b' })]);
    const stop = new AbortController();
    const seen = collect(followRun(store, { runId: run.id, after: 1, signal: stop.signal, pollMs: 0 }));
    setTimeout(() => stop.abort(), 30);
    assert.deepEqual(
      (await seen).map((e) => e.id),
      [2],
    );
  });

  it('reads the store at each poll, for events another process appended (no live notification)', async () => {
    const store = new MemoryRunStore();
    const run = await store.createRun({ input: 'x', model: 'm' });
    // A store view whose subscription hears nothing, as for appends made elsewhere.
    const quiet = { readEvents: store.readEvents.bind(store), subscribe: () => () => undefined };
    const stop = new AbortController();
    const seen = collect(followRun(quiet, { runId: run.id, signal: stop.signal, pollMs: 10 }));
    await store.append(run.id, [draft('user_message', { text: 'elsewhere' })]);
    await store.append(run.id, [draft('run_cancelled', { reason: 'r' })]);
    const events = await seen;
    assert.deepEqual(
      events.map((e) => e.type),
      ['user_message', 'run_cancelled'],
    );
  });
});
