import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { draft, type RunEvent, type RunStore } from '../../core/index.ts';
import { submitInput } from '../../orchestrator/submit-input.ts';
import { openSqliteRunStore } from '../../store/sqlite/open-sqlite-run-store.ts';
import { ApprovalNotifier } from './approval-notifier.ts';
import { ApprovalSweeper, DEFAULT_RESCAN_MS } from './approval-sweeper.ts';
import { DeadlineHeap } from './deadline-heap.ts';
import { waitingCallOf, type ApprovalsConfig } from './waiting-call.ts';

/** A run waiting on call_1; returns its id and when the call began to wait (ms). */
async function waitingRun(store: RunStore): Promise<{ runId: string; since: number }> {
  const run = await store.createRun({ input: 'bid', model: 'scripted:x', tenantId: 'acme' });
  const required = {
    step: 1,
    toolCallId: 'call_1',
    name: 'placeOrder',
    arguments: { volumeMwh: 7000 },
    effect: 'write' as const,
    reason: 'policy' as const,
  };
  const [event] = await store.append(run.id, [draft('approval_required', required)], {
    status: 'waiting_approval',
    pendingApproval: { ...required, eventId: run.lastEventId + 1 },
  });
  return { runId: run.id, since: Date.parse(event?.time ?? '') };
}

function sweeperOn(store: RunStore, config: ApprovalsConfig, clock: { now: number }): ApprovalSweeper {
  const log = (): void => undefined;
  return new ApprovalSweeper({
    store,
    config,
    notifier: new ApprovalNotifier({ store, baseUrl: () => 'http://tg.test', log }),
    decide: (runId, input) => submitInput(store, runId, input),
    log,
    now: () => clock.now,
  });
}

const types = (events: readonly RunEvent[]): string[] =>
  events.filter((e) => e.type === 'approval_timed_out' || e.type === 'input_received').map((e) => e.type);

describe('DeadlineHeap', () => {
  it('hands out due values earliest first, leaving later ones', () => {
    const heap = new DeadlineHeap<string>();
    for (const [at, v] of [
      [50, 'e'],
      [10, 'a'],
      [30, 'c'],
      [20, 'b'],
      [40, 'd'],
      [30, 'c2'],
    ] as const)
      heap.push(at, v);
    assert.equal(heap.peek(), 10);
    assert.deepEqual(heap.popDue(5), []);
    assert.deepEqual(heap.popDue(30).slice(0, 2), ['a', 'b']);
    assert.equal(heap.size, 2);
    assert.deepEqual(heap.popDue(1000), ['d', 'e']);
    assert.equal(heap.peek(), undefined);
  });
});

describe('ApprovalSweeper (one SQLite store, an injected clock)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-sweeper-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('escalate, then reject after escalation.timeoutMs with source timeout; nothing before a deadline', async () => {
    const store = await openSqliteRunStore({ path: join(dir, 'escalate.db') });
    const { runId, since } = await waitingRun(store);
    const clock = { now: since + 500 };
    const sweeper = sweeperOn(
      store,
      { timeoutMs: 1000, onTimeout: 'escalate', escalation: { timeoutMs: 2000 } },
      clock,
    );
    try {
      await sweeper.start();
      assert.deepEqual(types(await store.readEvents(runId)), []);
      clock.now = since + 1000;
      await sweeper.tick();
      const escalated = (await store.readEvents(runId)).find((e) => e.type === 'approval_timed_out');
      assert.deepEqual(escalated?.data, { toolCallId: 'call_1', action: 'escalate', waitedMs: 1000, round: 1 });
      clock.now = since + 2900;
      await sweeper.tick();
      assert.deepEqual(types(await store.readEvents(runId)), ['approval_timed_out']);
      clock.now = since + 3000;
      await sweeper.tick();
      const events = await store.readEvents(runId);
      assert.deepEqual(types(events), ['approval_timed_out', 'approval_timed_out', 'input_received']);
      const decision = events.find((e) => e.type === 'input_received');
      assert.deepEqual(decision?.data.input, {
        type: 'approval',
        toolCallId: 'call_1',
        decision: 'reject',
        reason: 'no decision within 2 s (approvals.escalation.timeoutMs)',
        source: { via: 'timeout' },
      });
      assert.equal((await store.getRun(runId))?.status, 'running');
    } finally {
      await sweeper.close();
      await store.close();
    }
  });

  it('notify-again repeats up to the cap of rounds, then rejects', async () => {
    const store = await openSqliteRunStore({ path: join(dir, 'again.db') });
    const { runId, since } = await waitingRun(store);
    const clock = { now: since };
    const sweeper = sweeperOn(store, { timeoutMs: 1000, onTimeout: 'notify-again' }, clock);
    try {
      await sweeper.start();
      for (let n = 1; n <= 10; n++) {
        clock.now = since + n * 1000;
        await sweeper.tick();
      }
      const timeouts = (await store.readEvents(runId)).flatMap((e) =>
        e.type === 'approval_timed_out' ? [`${e.data.round}:${e.data.action}`] : [],
      );
      assert.equal(timeouts.length, 10);
      assert.deepEqual(timeouts.slice(-2), ['9:notify-again', '10:reject']);
      assert.equal((await store.getRun(runId))?.status, 'running');
    } finally {
      await sweeper.close();
      await store.close();
    }
  });

  it('a later scan reads no log of a call that began to wait here and did not change since', async () => {
    const store = await openSqliteRunStore({ path: join(dir, 'unchanged.db') });
    const clock = { now: Date.now() };
    const sweeper = sweeperOn(store, { timeoutMs: 3_600_000 }, clock);
    const reads = new Map<string, number>();
    const readEvents = store.readEvents.bind(store);
    store.readEvents = (runId, options) => {
      reads.set(runId, (reads.get(runId) ?? 0) + 1);
      return readEvents(runId, options);
    };
    try {
      await sweeper.start();
      // Two calls begin to wait here after the first scan: one told with its run's last event id, one without.
      const told = await waitingRun(store);
      const untold = await waitingRun(store);
      for (const [{ runId, since }, withId] of [
        [told, true],
        [untold, false],
      ] as const) {
        const run = await store.getRun(runId);
        const call = run === undefined ? undefined : waitingCallOf(run, new Date(since).toISOString());
        assert.ok(run !== undefined && call !== undefined);
        sweeper.waiting(call, withId ? run.lastEventId : undefined);
      }
      clock.now += DEFAULT_RESCAN_MS;
      await sweeper.tick();
      assert.equal(reads.get(told.runId), undefined, 'the scan read the log of a call whose run did not change');
      assert.equal(reads.get(untold.runId), 1, 'the scan looks once at a call it knows nothing of');
    } finally {
      await sweeper.close();
      await store.close();
    }
  });

  it('a deadline whose look fails (the store down) is looked at again, and acted on, at the next scan', async () => {
    const store = await openSqliteRunStore({ path: join(dir, 'retry.db') });
    const clock = { now: Date.now() };
    const sweeper = sweeperOn(store, { timeoutMs: 2 * DEFAULT_RESCAN_MS, onTimeout: 'reject' }, clock);
    const getRun = store.getRun.bind(store);
    let down = false;
    store.getRun = (runId) => (down ? Promise.reject(new Error('store unavailable')) : getRun(runId));
    try {
      await sweeper.start();
      const { runId, since } = await waitingRun(store);
      const run = await getRun(runId);
      const call = run === undefined ? undefined : waitingCallOf(run, new Date(since).toISOString());
      assert.ok(run !== undefined && call !== undefined);
      sweeper.waiting(call, run.lastEventId);
      clock.now += DEFAULT_RESCAN_MS;
      await sweeper.tick();
      // The deadline comes while the store is down: nothing is written, and the scans after it do not list the run
      // (it did not change since they began); the call is looked at again all the same.
      down = true;
      clock.now = since + 2 * DEFAULT_RESCAN_MS;
      await sweeper.tick();
      assert.deepEqual(types(await store.readEvents(runId)), []);
      down = false;
      clock.now += DEFAULT_RESCAN_MS;
      await sweeper.tick();
      assert.deepEqual(types(await store.readEvents(runId)), ['approval_timed_out', 'input_received']);
    } finally {
      await sweeper.close();
      await store.close();
    }
  });

  it('two instances racing on one timeout: exactly one approval_timed_out and one decision', async () => {
    const path = join(dir, 'race.db');
    const first = await openSqliteRunStore({ path });
    const second = await openSqliteRunStore({ path });
    const { runId, since } = await waitingRun(first);
    const clock = { now: since + 1500 };
    const config: ApprovalsConfig = { timeoutMs: 1000, onTimeout: 'reject' };
    const a = sweeperOn(first, config, clock);
    const b = sweeperOn(second, config, clock);
    try {
      await Promise.all([a.start(), b.start()]);
      await Promise.all([a.tick(), b.tick()]);
      const events = await first.readEvents(runId);
      assert.deepEqual(types(events), ['approval_timed_out', 'input_received']);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await Promise.all([first.close(), second.close()]);
    }
  });
});
