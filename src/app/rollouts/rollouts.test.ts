import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROLLOUTS_THREAD_ID, type ArmFigures, type RunStore } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { openStore } from '../open-store.ts';
import { Rollouts, type RolloutStats } from './rollouts.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-rollouts-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const arm = (ended: number, failed: number): ArmFigures => ({ ended, failed, toolLatencyMs: { count: 0 } });

/** Live statistics as far as rollbacks read them: figures set by the test, run ends announced by it. */
class FakeStats implements RolloutStats {
  figures = { treated: arm(0, 0), control: arm(0, 0) };
  windows: (number | undefined)[] = [];
  marked: string[] = [];
  #listeners = new Set<() => void>();
  armFigures(_name: string, windowMs?: number) {
    this.windows.push(windowMs);
    return this.figures;
  }
  onRunEnded(listener: () => void) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  markRolledBack(name: string) {
    this.marked.push(name);
  }
  runEnded() {
    for (const listener of this.#listeners) listener();
  }
}

const rollout = (percent: number) => ({
  'guard.maxToolCalls': { percent, value: 1, tenants: ['acme'], rollback: { maxFailureRate: 0.3, minRuns: 5 } },
});
const acmeThread = { tenantId: 'acme', threadId: 'thread-a', named: new Set<never>() };

async function rollBackOn(store: RunStore): Promise<{ stats: FakeStats; logged: string[] }> {
  const rollouts = new Rollouts({ settings: { rollout: rollout(100), stats: { windowMinutes: 30 } }, store });
  const stats = new FakeStats();
  const logged: string[] = [];
  rollouts.watch(stats);
  rollouts.onRolledBack((data) => logged.push(data.message));
  assert.equal((await rollouts.assign(acmeThread)).arms[0]?.arm, 'treated');
  // Under minRuns, and at the threshold: nothing happens.
  stats.figures = { treated: arm(4, 4), control: arm(4, 0) };
  await rollouts.check();
  stats.figures = { treated: arm(10, 3), control: arm(4, 0) };
  await rollouts.check();
  assert.deepEqual(logged, []);
  stats.figures = { treated: arm(5, 4), control: arm(6, 0) };
  stats.runEnded();
  await rollouts.check();
  assert.equal(logged.length, 1);
  assert.match(
    logged[0] ?? '',
    /rollout guard\.maxToolCalls rolled back: 4 of 5 treated runs failed \(80\.0% > 30\.0%\)/,
  );
  assert.deepEqual(stats.marked, ['guard.maxToolCalls']);
  assert.deepEqual(stats.windows.at(-1), 30 * 60_000, 'the stats window when the rollout names none');
  assert.deepEqual(await rollouts.assign(acmeThread), { arms: [], treated: [] }, 'new runs no longer take part');
  rollouts.close();
  return { stats, logged };
}

async function markers(store: RunStore) {
  const { runs } = await store.listRuns({ threadId: ROLLOUTS_THREAD_ID });
  return Promise.all(runs.map(async (run) => ({ run, events: await store.readEvents(run.id) })));
}

for (const [label, open] of [
  ['SQLite', () => openStore(`sqlite:${join(dir, 'runs.db')}`)],
  ['memory', async () => new MemoryRunStore()],
] as const) {
  describe(`rollouts: automatic rollback (${label} store)`, () => {
    it('records an ended run on the rollouts thread, never claimed; the state survives a restart', async () => {
      const store = await open();
      try {
        await rollBackOn(store);
        const [marker, ...more] = await markers(store);
        assert.equal(more.length, 0);
        assert.equal(marker?.run.status, 'completed');
        assert.equal(marker?.run.tenantId, undefined);
        assert.deepEqual(
          marker?.events.map((e) => e.type),
          ['rollout_rolled_back', 'run_status', 'run_completed'],
        );
        const data = marker?.events[0]?.type === 'rollout_rolled_back' ? marker.events[0].data : undefined;
        assert.equal(data?.treatedRuns, 5);
        assert.equal(data?.controlRuns, 6);
        assert.equal(data?.controlFailureRate, 0);
        assert.equal(data?.windowMs, 30 * 60_000);
        assert.deepEqual(await store.claimNext({ owner: 'other', ttlMs: 10_000, limit: 10 }), []);

        // A restart: the same config reads the rollback back; a changed rollout starts again.
        const restarted = new Rollouts({ settings: { rollout: rollout(100) }, store });
        const stats = new FakeStats();
        restarted.watch(stats);
        assert.deepEqual((await restarted.assign(acmeThread)).arms, []);
        assert.deepEqual(stats.marked, ['guard.maxToolCalls']);
        assert.equal(restarted.isRolledBack('guard.maxToolCalls'), true);
        const changed = new Rollouts({ settings: { rollout: rollout(99.99) }, store });
        assert.equal((await changed.assign(acmeThread)).arms[0]?.name, 'guard.maxToolCalls');
      } finally {
        await store.close();
      }
    });
  });
}

describe('rollouts: other instances', () => {
  it("sees another instance's rollback when it reads the thread again, and records none itself", async () => {
    const store = new MemoryRunStore();
    const other = new Rollouts({ settings: { rollout: rollout(100) }, store, rereadMs: 0 });
    const otherStats = new FakeStats();
    other.watch(otherStats);
    assert.equal((await other.assign(acmeThread)).arms.length, 1);
    await rollBackOn(store);
    assert.deepEqual((await other.assign(acmeThread)).arms, [], 'read again (rereadMs 0)');
    otherStats.figures = { treated: arm(9, 9), control: arm(0, 0) };
    await other.check();
    assert.equal((await markers(store)).length, 1);
    await store.close();
  });

  it('refuses a thread id of its own for runs', async () => {
    const { Toolgate } = await import('../toolgate.ts');
    const toolgate = new Toolgate();
    await assert.rejects(
      toolgate.newRun({ input: 'hi', model: 'scripted:x', threadId: ROLLOUTS_THREAD_ID }),
      /holds toolgate's rollout records/,
    );
    await toolgate.close();
  });
});
