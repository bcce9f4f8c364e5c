// RunWriter, the one write path of a run: appends fenced by the lease, the
// approval id taken from where the append lands, a changed log under what the
// writer expected, and the state kept equal to the log whoever wrote it. The
// held-back appends are in append-queue.test.ts; passes in run-engine.test.ts,
// gateway sessions in src/gateway/gateway-run.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft, type RunEvent, type RunLease } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { RunWriter } from './run-writer.ts';

/**
 * A running run with two events, claimed, and a writer on it. `deaf`: the
 * writer's store hears no appends but its own (as another process's would
 * not), so the test can write behind its back.
 */
async function setUp(options: { deaf?: boolean } = {}) {
  const store = new MemoryRunStore();
  const run = await store.createRun({ input: 'x', model: 'm', status: 'running' });
  await store.append(run.id, [draft('user_message', { text: 'hi' }), draft('user_message', { text: 'again' })]);
  const lease = await store.claimRun(run.id, { owner: 'me', ttlMs: 60_000 });
  assert.ok(lease !== undefined);
  if (options.deaf === true) store.subscribe = () => () => undefined;
  const applied: RunEvent[] = [];
  let stale = 0;
  let lost = 0;
  const writer = new RunWriter({
    store,
    lease,
    leaseMs: 60_000,
    lastEventId: 2,
    onApplied: (events) => applied.push(...events),
    onStale: () => (stale += 1),
    onLost: () => (lost += 1),
  });
  await writer.start();
  return { store, runId: run.id, lease, writer, applied, counts: () => ({ stale, lost }) };
}

const ask = (toolCallId: string) =>
  draft('approval_required', {
    step: 1,
    toolCallId,
    name: 'placeOrder',
    arguments: { qty: 1 },
    effect: 'write',
    reason: 'policy',
  });
const pending = (toolCallId: string) => ({
  toolCallId,
  name: 'placeOrder',
  arguments: { qty: 1 },
  effect: 'write' as const,
  reason: 'policy' as const,
});

describe('RunWriter', () => {
  it('reads the log into its state on start, and follows every append, its own and others', async () => {
    const { store, runId, writer, applied } = await setUp();
    assert.equal(writer.state.lastEventId, 2);
    await store.append(runId, [draft('cancel_requested', { reason: 'stop' })]);
    await writer.append([draft('user_message', { text: 'mine' })]);
    assert.equal(writer.state.lastEventId, 4);
    assert.equal(writer.state.cancelRequested, 'stop');
    assert.deepEqual(
      applied.map((e) => e.type),
      ['user_message', 'user_message', 'cancel_requested', 'user_message'],
    );
    writer.close();
  });

  it(
    'a pending approval points at its approval_required event ' +
      'as the append numbered it, and the caller gets that id back',
    async () => {
      const { store, runId, writer } = await setUp();
      const events = await writer.append(
        [draft('run_status', { from: 'running', to: 'waiting_approval' }), ask('c1')],
        {
          status: 'waiting_approval',
          pendingApproval: pending('c1'),
        },
      );
      const asked = events.find((e) => e.type === 'approval_required');
      assert.equal(asked?.id, 4);
      assert.deepEqual((await store.getRun(runId))?.pendingApproval, { ...pending('c1'), eventId: 4 });
      writer.close();
    },
  );

  it(
    'a pending approval whose place in the log changed is not ' +
      'written: the writer is stale and refuses every later append',
    async () => {
      const { store, runId, writer, counts } = await setUp({ deaf: true });
      // Input another process appended, not yet read by this writer: an approval id predicted from the state would be
      // wrong.
      await store.append(runId, [draft('user_message', { text: 'from elsewhere' })]);
      await assert.rejects(
        writer.append([ask('c1')], { status: 'waiting_approval', pendingApproval: pending('c1') }),
        (e: unknown) =>
          e instanceof ToolgateError && e.code === 'conflict' && /driven again from the log/.test(e.message),
      );
      assert.equal(writer.stale, true);
      assert.deepEqual(counts(), { stale: 1, lost: 0 });
      assert.equal((await store.getRun(runId))?.pendingApproval, undefined);
      await assert.rejects(writer.append([draft('user_message', { text: 'after' })]), /driven again from the log/);
      assert.equal((await store.readEvents(runId)).length, 3, 'nothing more was written');
      writer.close();
    },
  );

  it("a caller's own expectation that no longer holds is its conflict to handle: the writer writes on", async () => {
    const { store, runId, writer } = await setUp({ deaf: true });
    await store.append(runId, [draft('user_message', { text: 'from elsewhere' })]);
    await assert.rejects(
      writer.append([ask('c1')], { pendingApproval: pending('c1') }, { expectLastEventId: 2 }),
      (e: unknown) => e instanceof ToolgateError && e.code === 'conflict',
    );
    assert.equal(writer.stale, false);
    const events = await writer.append([ask('c1')], { pendingApproval: pending('c1') }, { expectLastEventId: 3 });
    assert.deepEqual(
      events.map((e) => e.id),
      [4],
    );
    assert.equal((await store.getRun(runId))?.pendingApproval?.eventId, 4);
    writer.close();
  });

  it(
    'appends carry the lease: once another owner took the ' + 'run, the append is refused and the writer has lost it',
    async () => {
      const { store, runId, writer, lease, counts } = await setUp();
      await store.releaseRun(lease);
      const other: RunLease | undefined = await store.claimRun(runId, { owner: 'other', ttlMs: 60_000 });
      assert.ok(other !== undefined);
      await assert.rejects(
        writer.append([draft('user_message', { text: 'late' })]),
        (e: unknown) => e instanceof ToolgateError && e.code === 'lease_lost',
      );
      assert.equal(writer.lost, true);
      assert.deepEqual(counts(), { stale: 0, lost: 1 });
      assert.equal(await writer.release(), undefined, 'a lost lease is not released');
      assert.equal((await store.getRun(runId))?.lastEventId, 2);
    },
  );

  it('release gives the lease up: another owner may claim the run at once', async () => {
    const { store, runId, writer } = await setUp();
    await writer.append([draft('user_message', { text: 'done' })]);
    const released = await writer.release();
    assert.equal(released?.lastEventId, 3);
    assert.ok((await store.claimRun(runId, { owner: 'next', ttlMs: 1000 })) !== undefined);
  });
});
