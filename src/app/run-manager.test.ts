import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelAdapter, Run } from '../core/index.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { fileURLToPath } from 'node:url';
import { submitInput } from '../orchestrator/submit-input.ts';
import { createScriptedAdapter } from '../providers/scripted/scripted-adapter.ts';
import { startHttpServer } from '../server/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { RunManager } from './run-manager.ts';
import { Toolgate } from './toolgate.ts';
import { gatedModel } from '../../test/support/gated-model.ts';

async function until(fn: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail('condition not reached');
}

function setup(concurrency: number) {
  const model = gatedModel();
  const toolgate = new Toolgate({ settings: resolveSettings({}, {}, {}), model });
  const manager = new RunManager({ toolgate, concurrency });
  return { model, toolgate, manager };
}

describe('RunManager', () => {
  it('runs at most `concurrency` runs at once; the rest wait queued, in order', async () => {
    const { model, toolgate, manager } = setup(1);
    const a = (await manager.startRun({}, { input: 'a' })).run;
    const b = (await manager.startRun({}, { input: 'b' })).run;
    await until(async () => model.calls === 1);
    assert.equal((await toolgate.store.getRun(b.id))?.status, 'queued');
    assert.deepEqual(manager.load, { active: 1, queued: 1 });
    model.release();
    await until(async () => (await toolgate.store.getRun(a.id))?.status === 'completed');
    await until(async () => model.calls === 2);
    model.release();
    await until(async () => (await toolgate.store.getRun(b.id))?.status === 'completed');
    await toolgate.close();
  });

  it(
    'a run started while a slot is free is created and claimed in one ' +
      'write; starts made together never take more slots than there are',
    async () => {
      const model = gatedModel();
      const store = new MemoryRunStore();
      const calls = { createAndClaimRun: 0, createRun: 0, createRunIdempotent: 0 };
      for (const name of Object.keys(calls) as (keyof typeof calls)[]) {
        const original = (store[name] as (...args: never[]) => unknown).bind(store);
        (store as unknown as Record<string, unknown>)[name] = (...args: never[]) => {
          calls[name] += 1;
          return original(...args);
        };
      }
      const toolgate = new Toolgate({ settings: resolveSettings({}, {}, {}), model, store });
      const manager = new RunManager({ toolgate, concurrency: 2 });
      const started = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((input) => manager.startRun({}, { input })));
      await until(async () => model.calls === 2);
      assert.deepEqual(calls, { createAndClaimRun: 2, createRun: 3, createRunIdempotent: 0 });
      assert.deepEqual(manager.load, { active: 2, queued: 3 });
      const idempotent = await manager.startRun({}, { input: 'f' }, { key: 'k1', requestHash: 'h1' });
      assert.equal(calls.createRunIdempotent, 1);
      assert.equal(idempotent.run.status, 'queued');
      for (let i = 0; i < 6; i++) {
        model.release();
        await new Promise((r) => setTimeout(r, 5));
      }
      await until(async () =>
        (
          await Promise.all([...started.map((s) => s.run.id), idempotent.run.id].map((id) => toolgate.store.getRun(id)))
        ).every((r) => r?.status === 'completed'),
      );
      assert.equal(model.calls, 6, 'each run asked the model once: none was driven twice');
      await manager.shutdown();
    },
  );

  it('cancels a queued run without running it, and a running one by aborting it', async () => {
    const { model, toolgate, manager } = setup(1);
    const a = (await manager.startRun({}, { input: 'a' })).run;
    const b = (await manager.startRun({}, { input: 'b' })).run;
    await until(async () => model.calls === 1);
    const cancelledB: Run = await manager.cancelRun({}, b.id);
    assert.equal(cancelledB.status, 'cancelled');
    const cancelledA = await manager.cancelRun({}, a.id);
    assert.equal(cancelledA.status, 'cancelled');
    assert.equal((await toolgate.store.readEvents(a.id)).at(-1)?.type, 'run_cancelled');
    await assert.rejects(manager.cancelRun({}, a.id), /already ended/);
    assert.equal(model.calls, 1, 'b never reached the model');
    await toolgate.close();
  });

  it("hides other tenants' runs and refuses new runs while shutting down", async () => {
    const { model, toolgate, manager } = setup(2);
    const mine = (await manager.startRun({ tenantId: 'acme' }, { input: 'x' })).run;
    assert.equal(await manager.getRun({ tenantId: 'globex' }, mine.id), undefined);
    await assert.rejects(manager.cancelRun({ tenantId: 'globex' }, mine.id), /does not exist/);
    await until(async () => model.calls === 1);
    model.release();
    await until(async () => (await toolgate.store.getRun(mine.id))?.status === 'completed');
    await manager.shutdown({ graceMs: 100 });
    await assert.rejects(
      manager.startRun({}, { input: 'late' }),
      (e: unknown) => e instanceof Error && 'code' in e && e.code === 'shutting_down',
    );
    assert.equal((await manager.ready()).ready, false);
    await toolgate.close();
  });

  it('recover() resumes a waiting run whose decision was recorded just before a stop', async () => {
    const server = fileURLToPath(new URL('../../examples/power-exchange/server.ts', import.meta.url));
    const settings = resolveSettings({ servers: { pe: { command: process.execPath, args: [server] } } }, {}, {});
    const model = createScriptedAdapter({
      script: {
        turns: [
          {
            toolCalls: [
              {
                id: 'o1',
                name: 'placeOrder',
                arguments: '{"userId":"bob","side":"BUY","price":50,"qty":1,"symbol":"DE-BASE-D+1"}',
              },
            ],
          },
          { text: 'placed' },
        ],
      },
      id: 'scripted:test',
    });
    const toolgate = new Toolgate({ settings, model });
    try {
      const waiting = await toolgate.run({ input: 'buy' });
      assert.equal(waiting.status, 'waiting_approval');
      // The decision is in the log, but the process stops before driving the run on.
      await submitInput(toolgate.store, waiting.id, {
        type: 'approval',
        toolCallId: waiting.pendingApproval?.toolCallId ?? '',
        decision: 'approve',
      });
      const manager = new RunManager({ toolgate });
      assert.equal(
        (await toolgate.store.getRun(waiting.id))?.status,
        'running',
        'the decision moved the run back to running',
      );
      assert.deepEqual(await manager.recover(), [waiting.id], 'nobody drives it: recovery takes it over');
      await until(async () => (await toolgate.store.getRun(waiting.id))?.status === 'completed');
      const still = await toolgate.run({ input: 'buy again' });
      const other = new RunManager({ toolgate });
      await other.recover();
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(
        (await toolgate.store.getRun(still.id))?.status,
        'waiting_approval',
        'no decision: it keeps waiting',
      );
      assert.equal(
        (await toolgate.store.readEvents(still.id)).at(-1)?.type,
        'approval_required',
        'and nothing was appended',
      );
    } finally {
      await toolgate.close();
    }
  });

  it(
    'threads are per tenant: another tenant taking the ' + 'same thread id first never costs the owner its history',
    async () => {
      const requests: { messages: { role: string; content: string }[] }[] = [];
      const model: ModelAdapter = {
        id: 'echo:model',
        generate: async (request) => {
          requests.push(structuredClone(request) as unknown as { messages: { role: string; content: string }[] });
          return { text: `answer ${requests.length}`, toolCalls: [], finishReason: 'stop' };
        },
      };
      const toolgate = new Toolgate({ settings: resolveSettings({}, {}, {}), model });
      const manager = new RunManager({ toolgate });
      const done = async (run: Run) => until(async () => (await toolgate.store.getRun(run.id))?.status === 'completed');
      await done((await manager.startRun({ tenantId: 'intruder' }, { input: 'mine now', threadId: 'shared' })).run);
      await done((await manager.startRun({ tenantId: 'owner' }, { input: 'first question', threadId: 'shared' })).run);
      await done((await manager.startRun({ tenantId: 'owner' }, { input: 'second question', threadId: 'shared' })).run);
      const seen = requests[2]?.messages.map((m) => m.content) ?? [];
      assert.deepEqual(
        seen,
        ['first question', 'answer 2', 'second question'],
        "the owner's history, and nothing of the other tenant's",
      );
      await toolgate.close();
    },
  );

  it('a full queue answers POST /v1/runs with 429 overloaded and Retry-After, creating nothing', async () => {
    const model = gatedModel();
    const toolgate = new Toolgate({ settings: resolveSettings({}, {}, {}), model });
    const manager = new RunManager({ toolgate, concurrency: 1, queueLimit: 1 });
    const http = await startHttpServer({ service: manager, store: toolgate.store, apiKeys: [], port: 0 });
    try {
      const post = (input: string) =>
        fetch(`${http.url}/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ input }),
        });
      assert.equal((await post('a')).status, 201);
      await until(async () => model.calls === 1);
      assert.equal((await post('b')).status, 201, 'one run may wait for the slot');
      const refused = await post('c');
      assert.equal(refused.status, 429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1,
        `Retry-After in seconds, got ${refused.headers.get('retry-after')}`,
      );
      const body = (await refused.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'overloaded');
      assert.match(body.error.message, /queueLimit 1/);
      assert.equal((await toolgate.store.listRuns({})).runs.length, 2, 'the refused request created no run');
      model.release();
      await until(async () => manager.load.queued === 0 && model.calls === 2);
      model.release();
      assert.equal((await post('d')).status, 201, 'room again once the queue drained');
      model.release();
    } finally {
      await manager.shutdown({ graceMs: 100 });
      await http.close({ graceMs: 100 });
      await toolgate.close();
    }
  });

  it(
    'strategy: unknown names are refused naming the known ' + 'ones; a known one is stored with the run and dispatched',
    async () => {
      const { model, toolgate, manager } = setup(1);
      await assert.rejects(
        manager.startRun({}, { input: 'x', strategy: 'no-such-strategy' }),
        (error: Error & { code?: string }) => {
          assert.equal(error.code, 'usage');
          assert.match(error.message, /unknown strategy "no-such-strategy"; known strategies: react/);
          return true;
        },
      );
      assert.equal((await toolgate.store.listRuns({})).runs.length, 0);
      const { run } = await manager.startRun({}, { input: 'x', strategy: 'react', maxSteps: 4 });
      assert.equal(run.settings?.strategy, 'react');
      assert.equal(run.settings?.maxSteps, 4);
      await until(async () => model.calls === 1);
      model.release();
      await until(async () => (await toolgate.store.getRun(run.id))?.status === 'completed');
      const started = (await toolgate.store.readEvents(run.id)).find((e) => e.type === 'run_started');
      assert.equal(started?.type === 'run_started' ? started.data.strategy : undefined, 'react');
      await manager.shutdown({ graceMs: 100 });
    },
  );
});
