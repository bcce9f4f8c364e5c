// Runs waiting for a person cost nothing per run while they wait: no timer per
// waiting run (a per-run heartbeat, approval timeout or poll would show here as
// one timer more per run), approval timeouts still fire at each call's own
// deadline from the one timer of the process, and a call that began to wait on
// another instance sharing the store is found by a later scan (which reads
// only the runs changed since the previous one). Real SQLite files, the
// RunManager and the approvals runtime as the server assembles them; the
// model is in-process. Timers are counted with an async hook, which sees every
// Timeout, unref'd and Node-internal ones included.
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApprovalsRuntime } from '../../src/app/approvals/approvals-runtime.ts';
import type { ApprovalsConfig } from '../../src/app/approvals/waiting-call.ts';
import { createToolgate } from '../../src/app/create-toolgate.ts';
import { openStore } from '../../src/app/open-store.ts';
import { RunManager } from '../../src/app/run-manager.ts';
import type { ModelAdapter, Run, RunEvent } from '../../src/core/index.ts';
import { defineTool } from '../../src/tools/local/define-tool.ts';
import { waitUntil } from '../support/wait-until.ts';

const liveTimeouts = new Set<number>();
const census = createHook({
  init(asyncId, type) {
    if (type === 'Timeout') liveTimeouts.add(asyncId);
  },
  destroy(asyncId) {
    liveTimeouts.delete(asyncId);
  },
});

/** Asks for place_order (a write: it waits for approval) until it has a tool result, then answers. */
const orderingModel: ModelAdapter = {
  id: 'ordering:model',
  generate(request) {
    const answered = request.messages.some((m) => m.role === 'tool');
    const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
    return Promise.resolve(
      answered
        ? { text: 'done', toolCalls: [], finishReason: 'stop' as const, usage }
        : {
            text: '',
            toolCalls: [{ id: 'call_1', name: 'place_order', arguments: '{"key":"k"}' }],
            finishReason: 'tool_calls' as const,
            usage,
          },
    );
  },
};

const placeOrder = defineTool({
  name: 'place_order',
  description: 'Places an order',
  inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  effect: 'write',
  execute: () => 'ordered',
});

interface Instance {
  manager: RunManager;
  getRun: (runId: string) => Promise<Run | undefined>;
  readEvents: (runId: string) => Promise<RunEvent[]>;
  /** How many times anything read a run's events from the store. */
  eventReads: () => number;
  close: () => Promise<void>;
}

/** One server's worth on the SQLite file: toolgate, a RunManager and, when configured, the approvals runtime. */
async function instance(path: string, approvalsConfig: ApprovalsConfig | undefined): Promise<Instance> {
  const approvals = approvalsConfig === undefined ? undefined : new ApprovalsRuntime({ config: approvalsConfig });
  const opened = await openStore(`sqlite:${path}`);
  let eventReads = 0;
  const readEvents = opened.readEvents.bind(opened);
  opened.readEvents = (...args) => {
    eventReads += 1;
    return readEvents(...args);
  };
  const store = approvals === undefined ? opened : approvals.watch(opened);
  const toolgate = await createToolgate({ model: orderingModel, tools: [placeOrder], store });
  const manager = new RunManager({ toolgate, concurrency: 50, queueLimit: 1000, queueLimitPerTenant: 1000 });
  await manager.recover();
  await approvals?.start({
    store: toolgate.store,
    serverUrl: () => 'http://127.0.0.1:0',
    decide: (runId, input) => manager.submitInput({}, runId, input),
    log: () => undefined,
    rescanMs: 100,
  });
  return {
    manager,
    getRun: (runId) => toolgate.store.getRun(runId),
    readEvents: (runId) => toolgate.store.readEvents(runId),
    eventReads: () => eventReads,
    close: async () => {
      await approvals?.close();
      await manager.shutdown({ graceMs: 100 });
      await toolgate.close();
    },
  };
}

/** Polls the store until the run's status is `status`. */
async function statusReached(server: Instance, runId: string, status: Run['status']): Promise<Run> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await server.getRun(runId);
    if (run?.status === status) return run;
    if (Date.now() > deadline) assert.fail(`run ${runId} is ${run?.status ?? 'missing'}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Starts `count` runs and resolves once each waits for its approval and nothing is being driven any more. */
async function parkAll(server: Instance, count: number): Promise<Run[]> {
  const started = await Promise.all(
    Array.from({ length: count }, async (_, i) => (await server.manager.startRun({}, { input: `order ${i}` })).run),
  );
  const parked = await Promise.all(started.map((run) => statusReached(server, run.id, 'waiting_approval')));
  await waitUntil(() => server.manager.load.active === 0 && server.manager.load.queued === 0, 'the slots to empty');
  return parked;
}

/** Timers alive once the polls of the test itself are over. */
async function timersNow(): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  return liveTimeouts.size;
}

describe('runs waiting for approval (RunManager, approvals runtime, SQLite)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-waiting-'));
    census.enable();
  });
  after(() => {
    census.disable();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps no timer per waiting run: 200 waiting hold as many as 10, and an approved one completes', async () => {
    const server = await instance(join(dir, 'park.db'), { timeoutMs: 3_600_000 });
    try {
      const first = await parkAll(server, 10);
      const withTen = await timersNow();
      await parkAll(server, 190);
      const withTwoHundred = await timersNow();
      assert.ok(
        withTwoHundred - withTen <= 2,
        `timers alive: ${withTen} with 10 runs waiting, ${withTwoHundred} with 200 (one per waiting run came back?)`,
      );
      // Scans every 100 ms, each listing these runs (changed in the last 5 s): none of them is read again.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const readsBefore = server.eventReads();
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(server.eventReads() - readsBefore, 0, 'the scans read the logs of calls that wait unchanged');
      const run = first[0];
      assert.ok(run?.pendingApproval !== undefined, 'the run waits on a call');
      const input = {
        type: 'approval' as const,
        toolCallId: run.pendingApproval.toolCallId,
        decision: 'approve' as const,
      };
      await server.manager.submitInput({}, run.id, input);
      const done = await statusReached(server, run.id, 'completed');
      assert.equal(done.output, 'done');
    } finally {
      await server.close();
    }
  });

  it('times out each of several calls at its own deadline, from the one timer of the process', async () => {
    const timeoutMs = 400;
    const server = await instance(join(dir, 'deadlines.db'), { timeoutMs, onTimeout: 'reject' });
    try {
      const runs: Run[] = [];
      for (let i = 0; i < 3; i++) {
        runs.push(...(await parkAll(server, 1)));
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      const ended = await Promise.all(runs.map((run) => statusReached(server, run.id, 'completed')));
      const timedOutAt: number[] = [];
      for (const run of ended) {
        const events = await server.readEvents(run.id);
        const required = events.find((e) => e.type === 'approval_required');
        const timedOut = events.find((e) => e.type === 'approval_timed_out');
        const decided = events.find((e) => e.type === 'input_received');
        assert.ok(required !== undefined && timedOut !== undefined, `run ${run.id} timed out`);
        assert.ok(
          Date.parse(timedOut.time) >= Date.parse(required.time) + timeoutMs,
          `run ${run.id} timed out at ${timedOut.time}, before its deadline (${required.time} + ${timeoutMs} ms)`,
        );
        assert.ok(
          decided?.type === 'input_received' && decided.data.input.type === 'approval',
          `run ${run.id} was decided`,
        );
        assert.equal(decided.data.input.decision, 'reject');
        timedOutAt.push(Date.parse(timedOut.time));
      }
      assert.deepEqual(
        timedOutAt,
        [...timedOutAt].sort((a, b) => a - b),
        'the calls timed out in the order of their deadlines',
      );
    } finally {
      await server.close();
    }
  });

  it('times out a call that began to wait on another instance, found by a later scan', async () => {
    const path = join(dir, 'shared.db');
    const watching = await instance(path, { timeoutMs: 300, onTimeout: 'reject' });
    // Another process on the same file, without approvals: its appends never pass the first one's watch.
    const other = await instance(path, undefined);
    try {
      // The first scan of `watching` is over: only a later one can see the call.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const [run] = await parkAll(other, 1);
      assert.ok(run !== undefined);
      const done = await statusReached(watching, run.id, 'completed');
      const events = await watching.readEvents(done.id);
      assert.ok(
        events.some((e) => e.type === 'approval_timed_out'),
        'the watching instance timed the call out',
      );
    } finally {
      await other.close();
      await watching.close();
    }
  });
});
