import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type RunEvent } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { watchAppends } from './watch-appends.ts';

describe('watchAppends', () => {
  it('hands each durable batch to the observer; a throwing observer fails nothing; the rest is the store', async () => {
    const seen: { runId: string; types: string[] }[] = [];
    let failOnce = true;
    const store = watchAppends(new MemoryRunStore(), (runId, events: readonly RunEvent[]) => {
      seen.push({ runId, types: events.map((e) => e.type) });
      if (failOnce) {
        failOnce = false;
        throw new Error('observer broke');
      }
    });
    const run = await store.createRun({ input: 'bid', model: 'scripted:x' });
    const first = await store.append(run.id, [draft('user_message', { text: 'bid' })]);
    assert.equal(first[0]?.id, 1, 'the append resolves as the store answered, whatever the observer did');
    await store.append(run.id, [draft('run_status', { from: 'queued', to: 'running', reason: 'go' })]);
    await assert.rejects(store.append('run_missing', [draft('user_message', { text: 'x' })]));
    assert.deepEqual(seen, [
      { runId: run.id, types: ['user_message'] },
      { runId: run.id, types: ['run_status'] },
    ]);
    assert.equal((await store.readEvents(run.id)).length, 2);
    assert.equal((await store.getRun(run.id))?.id, run.id);
  });
});
