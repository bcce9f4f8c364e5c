import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { draft, type EventDraft, type RunSettings, type RunStore, type Usage } from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { watchAppends } from '../approvals/watch-appends.ts';
import { LiveStats } from './live-stats.ts';

const HOUR = 3_600_000;
const SETTINGS: RunSettings = {
  maxSteps: 10,
  strategy: 'react',
  toolMode: 'native',
  parseRetries: 1,
  textToolCalls: 'auto',
  constrain: false,
  stream: false,
};

/** A memory store, statistics over it on a clock the test moves, and a store that feeds them as serve's does. */
function setup(options: { maxKeys?: number; maxKeysPerTenant?: number } = {}) {
  const raw = new MemoryRunStore();
  const clock = { offset: 0 };
  const stats = new LiveStats({ store: raw, now: () => Date.now() + clock.offset, ...options });
  const store = watchAppends(raw, (_runId, events) => stats.observe(events));
  return { raw, store, stats, clock };
}

async function newRun(
  store: RunStore,
  options: { tenantId?: string; settings?: Partial<RunSettings>; model?: string; threadId?: string } = {},
): Promise<string> {
  const run = await store.createRun({
    input: 'hi',
    model: options.model ?? 'scripted:a',
    settings: { ...SETTINGS, ...options.settings },
    ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
    ...(options.threadId === undefined ? {} : { threadId: options.threadId }),
  });
  return run.id;
}

const usage = (promptTokens: number, completionTokens: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

const started = (): EventDraft => draft('run_started', { input: 'hi', model: 'scripted:a', tools: [], maxSteps: 10 });
const turn = (latencyMs: number, u = usage(100, 10)): EventDraft =>
  draft('assistant_message', { step: 1, text: 'ok', toolCalls: [], finishReason: 'stop', usage: u, latencyMs });
const completed = (): EventDraft => draft('run_completed', { output: 'ok', usage: usage(0, 0), steps: 1 });
const failed = (code: 'tool_error' | 'budget_cost' = 'tool_error'): EventDraft =>
  draft('run_failed', { error: { code, message: 'no' } });
const toolCall = (id: string): EventDraft => draft('tool_call', { step: 1, toolCallId: id, name: 't', arguments: {} });
const toolResult = (id: string, latencyMs: number): EventDraft =>
  draft('tool_result', { step: 1, toolCallId: id, name: 't', ok: true, content: [], latencyMs });
const routed = (route: 'answer' | 'react' | 'plan', intent?: 'answer' | 'lookup' | 'change'): EventDraft =>
  draft('intent_routed', {
    route,
    reason: 'test',
    by: 'signals',
    signals: { toolsMentioned: [], changeVerbs: [], steps: 0, chars: 2 },
    ...(intent === undefined ? {} : { intent }),
  });

describe('LiveStats', () => {
  it('counts each event once by id, however often it is seen', async () => {
    const { store, raw, stats } = setup();
    const runId = await newRun(store, { tenantId: 'acme' });
    await store.append(runId, [started(), turn(120)]);
    await store.append(runId, [completed()]);
    await stats.idle();
    stats.observe(await raw.readEvents(runId));
    await stats.idle();
    const { rows, totals } = stats.snapshot();
    assert.equal(rows.length, 1);
    assert.deepEqual(
      { tenant: rows[0]?.tenant, intent: rows[0]?.intent, strategy: rows[0]?.strategy, model: rows[0]?.model },
      { tenant: 'acme', intent: '-', strategy: 'react', model: 'scripted:a' },
    );
    assert.deepEqual(totals.runs, { started: 1, completed: 1, failed: 0, cancelled: 0 });
    assert.equal(totals.steps, 1);
    assert.deepEqual(totals.tokens, { input: 100, output: 10 });
    assert.equal(totals.completionRate, 1);
    assert.equal(totals.modelLatencyMs.count, 1);
  });

  it('reads a gap from the store: events appended elsewhere count when a later one is seen', async () => {
    const { store, raw, stats } = setup();
    const runId = await newRun(store);
    // Not through the watched store: this process never saw them.
    await raw.append(runId, [started(), turn(50), turn(70)]);
    await store.append(runId, [failed('budget_cost')]);
    await stats.idle();
    const { totals } = stats.snapshot();
    assert.deepEqual(totals.runs, { started: 1, completed: 0, failed: 1, cancelled: 0 });
    assert.deepEqual(totals.failures, { budget_cost: 1 });
    assert.equal(totals.steps, 2);
  });

  it('applies the next events of a known run as they are observed, and still reads a gap after them', async () => {
    const { store, raw, stats } = setup();
    const runId = await newRun(store);
    await store.append(runId, [started(), turn(50)]);
    await stats.idle();
    // The run is known and nothing of it is queued: its next events count before anything is awaited.
    stats.observe(await raw.append(runId, [turn(60)]));
    assert.equal(stats.snapshot().totals.steps, 2);
    // A gap (an event this process never saw) is read from the store, in order, before what follows it.
    await raw.append(runId, [turn(70)]);
    stats.observe(await raw.append(runId, [turn(80)]));
    stats.observe(await raw.append(runId, [completed()]));
    await stats.idle();
    const { totals } = stats.snapshot();
    assert.equal(totals.steps, 4);
    assert.deepEqual(totals.runs, { started: 1, completed: 1, failed: 0, cancelled: 0 });
  });
  it('follows runs other processes changed with refresh, once, and warms a new instance up', async () => {
    const { raw, stats } = setup();
    const a = await newRun(raw, { tenantId: 'acme' });
    await raw.append(a, [started(), turn(10), completed()]);
    await stats.refresh();
    assert.deepEqual(stats.snapshot().totals.runs, { started: 1, completed: 1, failed: 0, cancelled: 0 });
    const b = await newRun(raw, { tenantId: 'globex' });
    await raw.append(b, [started(), failed()]);
    await stats.refresh();
    await stats.refresh();
    const { totals, rows } = stats.snapshot();
    assert.deepEqual(totals.runs, { started: 2, completed: 1, failed: 1, cancelled: 0 });
    assert.deepEqual(
      rows.map((r) => r.tenant),
      ['acme', 'globex'],
    );
    const restarted = new LiveStats({ store: raw });
    await restarted.refresh();
    assert.deepEqual(restarted.snapshot().rows, stats.snapshot().rows);
  });

  it('slides: events count in the bucket of their time and leave the window after it', async () => {
    const { store, stats, clock } = setup();
    const runId = await newRun(store);
    await store.append(runId, [started(), turn(10), completed()]);
    await stats.idle();
    let snapshot = stats.snapshot();
    assert.equal(snapshot.bucketMs, HOUR / 60);
    assert.equal(snapshot.totals.series.completed.length, 60);
    assert.equal(snapshot.totals.series.completed.at(-1), 1);
    clock.offset = HOUR / 2;
    snapshot = stats.snapshot();
    assert.equal(snapshot.totals.runs.completed, 1);
    assert.equal(snapshot.totals.series.completed.at(-31), 1, 'the bucket moved back by 30');
    clock.offset = HOUR + 60_000;
    snapshot = stats.snapshot();
    assert.deepEqual(snapshot.rows, []);
    assert.equal(snapshot.totals.runs.completed, 0);
    // An event older than the window is not counted at all.
    const late = await newRun(store);
    await store.append(late, [started()]);
    await stats.idle();
    assert.equal(stats.snapshot().totals.runs.started, 0);
  });

  it('caps the keys: beyond maxKeys a tenant\u2019s new keys count in its own overflow row', async () => {
    const { store, stats } = setup({ maxKeys: 2 });
    for (const tenantId of ['a', 'b', 'c', 'd', 'other']) {
      const runId = await newRun(store, { tenantId });
      await store.append(runId, [started(), completed()]);
    }
    await stats.idle();
    const { rows, totals } = stats.snapshot();
    assert.deepEqual(
      rows.map((r) => [r.tenant, r.strategy, r.runs.completed]),
      [
        ['a', 'react', 1],
        ['b', 'react', 1],
        ['c', 'other', 1],
        ['d', 'other', 1],
        ['other', 'other', 1],
      ],
    );
    assert.equal(totals.runs.completed, 5);
    // A tenant called "other" sees its own run only.
    assert.equal(stats.snapshot({ tenant: 'other' }).totals.runs.completed, 1);
  });

  it('caps one tenant\u2019s keys: its many models cannot push the other tenants out', async () => {
    const { store, stats } = setup({ maxKeysPerTenant: 2 });
    for (const model of ['m:1', 'm:2', 'm:3', 'm:4']) {
      const runId = await newRun(store, { tenantId: 'noisy', model });
      await store.append(runId, [started(), completed()]);
    }
    const quiet = await newRun(store, { tenantId: 'quiet', model: 'm:9' });
    await store.append(quiet, [started(), completed()]);
    const anonymous = await newRun(store, { model: 'm:9' });
    await store.append(anonymous, [started(), completed()]);
    await stats.idle();
    assert.deepEqual(
      stats.snapshot().rows.map((r) => [r.tenant, r.model, r.runs.completed]),
      [
        ['(none)', 'm:9', 1],
        ['noisy', 'm:1', 1],
        ['noisy', 'm:2', 1],
        ['noisy', 'other', 2],
        ['quiet', 'm:9', 1],
      ],
    );
  });

  it('counts a fork once: copies of the original\u2019s events add nothing, what follows run_forked does', async () => {
    const { store, stats } = setup();
    const original = await newRun(store);
    await store.append(original, [started(), turn(10), toolCall('c1'), toolResult('c1', 30), completed()]);
    const fork = await store.createRun({
      input: 'hi',
      model: 'scripted:a',
      settings: SETTINGS,
      metadata: { forkOf: { runId: original, afterEventId: 3 } },
    });
    await store.append(fork.id, [
      started(),
      turn(10),
      toolCall('c1'),
      toolResult('c1', 30),
      draft('run_forked', { from: original, afterEventId: 4 }),
      turn(20),
      completed(),
    ]);
    await stats.idle();
    const { totals } = stats.snapshot();
    assert.deepEqual(
      [
        totals.runs.started,
        totals.runs.completed,
        totals.steps,
        totals.modelLatencyMs.count,
        totals.toolLatencyMs.count,
      ],
      [2, 2, 2, 2, 1],
    );
  });

  it('moves an auto run to its route and intent, counts it started there, and feeds the router', async () => {
    const { store, stats } = setup();
    const price = { inputPerMTok: 1, outputPerMTok: 2 };
    for (const [route, end] of [
      ['plan', completed()],
      ['plan', failed()],
      ['answer', completed()],
    ] as const) {
      const runId = await newRun(store, { settings: { strategy: 'auto', price } });
      await store.append(runId, [started(), routed(route), turn(10, usage(1000, 500)), end]);
    }
    const react = await newRun(store, { settings: { strategy: 'react' } });
    await store.append(react, [started(), completed()]);
    await stats.idle();
    const { rows, totals } = stats.snapshot();
    assert.deepEqual(
      rows.map((r) => [r.intent, r.strategy, r.runs.started, r.runs.completed, r.runs.failed]),
      [
        ['-', 'react', 1, 1, 0],
        ['answer', 'answer', 1, 1, 0],
        ['change', 'plan', 2, 1, 1],
      ],
    );
    assert.equal(totals.costUsd, 3 * 0.002);
    const evidence = stats.routerEvidence();
    assert.deepEqual(evidence, {
      windowMs: HOUR,
      byIntent: [
        { intent: 'answer', strategy: 'answer', completed: 1, failed: 0, avgCostUsd: 0.002 },
        { intent: 'change', strategy: 'plan', completed: 1, failed: 1, avgCostUsd: 0.002 },
      ],
    });
    assert.equal(stats.snapshot({ intent: 'change' }).rows.length, 1);
    assert.equal(stats.snapshot({ strategy: 'nope' }).rows.length, 0);
  });

  it('counts approvals, rejections, guard trips and the latency of executed calls only', async () => {
    const { store, stats } = setup();
    const runId = await newRun(store);
    await store.append(runId, [
      started(),
      toolCall('c1'),
      toolResult('c1', 200),
      // Not executed (denied, dry run): no tool_call before it.
      toolResult('c2', 9999),
      draft('approval_required', {
        step: 1,
        toolCallId: 'c3',
        name: 't',
        arguments: {},
        effect: 'write',
        reason: 'policy',
      }),
      draft('input_received', { input: { type: 'approval', toolCallId: 'c3', decision: 'reject' } }),
      draft('guard_tripped', { code: 'tool_failures', action: 'warn', limit: 1, value: 2, message: 'x' }),
      failed(),
    ]);
    await stats.idle();
    const { totals } = stats.snapshot();
    assert.deepEqual(totals.approvals, { asked: 1, rejected: 1 });
    assert.deepEqual(totals.guardTrips, { tool_failures: 1 });
    assert.equal(totals.toolLatencyMs.count, 1);
    assert.equal(totals.toolLatencyMs.max, 200);
  });

  it('keeps rollout arms, tells listeners of ended runs, and leaves rollout markers out', async () => {
    const { store, stats } = setup();
    const ended: string[][] = [];
    const stop = stats.onRunEnded(({ rollouts }) => ended.push(rollouts.map((r) => `${r.name}:${r.arm}`)));
    for (const [arm, end] of [
      ['treated', failed()],
      ['treated', completed()],
      ['control', completed()],
    ] as const) {
      const runId = await newRun(store, { tenantId: 'acme', settings: { rollouts: [{ name: 'router.live', arm }] } });
      await store.append(runId, [started(), toolCall('c'), toolResult('c', 40), end]);
    }
    const marker = await newRun(store, { threadId: 'toolgate:rollouts' });
    await store.append(marker, [started(), completed()]);
    await stats.idle();
    stop();
    assert.deepEqual(ended, [['router.live:treated'], ['router.live:treated'], ['router.live:control']]);
    const arms = stats.armFigures('router.live', 60_000);
    assert.deepEqual(
      [arms.treated.ended, arms.treated.failed, arms.treated.failureRate, arms.control.ended],
      [2, 1, 0.5, 1],
    );
    assert.equal(arms.treated.toolLatencyMs.count, 2);
    stats.markRolledBack('router.live', { at: new Date().toISOString(), failureRate: 0.5, threshold: 0.2 });
    const snapshot = stats.snapshot();
    assert.equal(snapshot.totals.runs.started, 3, 'the marker run is not counted');
    assert.equal(snapshot.rollouts[0]?.name, 'router.live');
    assert.equal(snapshot.rollouts[0]?.rolledBack?.threshold, 0.2);
    assert.deepEqual(stats.snapshot({ tenant: 'globex' }).rollouts, []);
  });
});
