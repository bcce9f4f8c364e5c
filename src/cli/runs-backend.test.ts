import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Run } from '../core/index.ts';
import { isSettled, listByStatus, newestFirst } from './runs-backend.ts';

const run = (status: Run['status'], lastEventId: number): Run => ({
  id: 'run_a',
  status,
  input: '',
  model: 'm:m',
  createdAt: '',
  updatedAt: '',
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  steps: 0,
  lastEventId,
});

describe('runs backends: shared rules', () => {
  it('a follower is done once it has seen every event of a run that ended or waits', () => {
    assert.equal(isSettled(run('completed', 5), 5), true);
    assert.equal(isSettled(run('completed', 5), 4), false, 'the terminal event is still to come');
    assert.equal(isSettled(run('waiting_approval', 5), 5), true);
    assert.equal(isSettled(run('running', 5), 5), false);
    assert.equal(isSettled(run('queued', 0), 0), false);
  });

  it('several status filters merge newest first, up to the limit', async () => {
    const a = { id: 'a', createdAt: '2026-01-01T00:00:01Z' };
    const b = { id: 'b', createdAt: '2026-01-01T00:00:03Z' };
    const c = { id: 'c', createdAt: '2026-01-01T00:00:02Z' };
    assert.deepEqual(newestFirst([[b, a], [c]], 2), [b, c]);
    const asked: (string | undefined)[] = [];
    const merged = await listByStatus({ statuses: ['failed', 'completed', 'failed'], limit: 5 }, async (status) => {
      asked.push(status);
      return status === 'failed' ? [a] : [b];
    });
    assert.deepEqual(asked, ['failed', 'completed']);
    assert.deepEqual(merged, [b, a]);
    assert.deepEqual(await listByStatus({ statuses: [], limit: 5 }, async (status) => [{ id: String(status) }]), [
      { id: 'undefined' },
    ]);
  });
});
