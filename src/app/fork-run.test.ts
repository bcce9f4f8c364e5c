import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft, type Run, type RunSettings } from '../core/index.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { gatedModel } from '../../test/support/gated-model.ts';
import { createFork, prepareFork } from './fork-run.ts';
import { Toolgate } from './toolgate.ts';

const USAGE = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

const STORED: RunSettings = {
  maxSteps: 9,
  strategy: 'react',
  toolMode: 'native',
  parseRetries: 1,
  textToolCalls: 'never',
  constrain: false,
  stream: false,
  guard: { maxToolCalls: 3 },
  todo: { enabled: false, remindAfter: 7 },
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};

/** A Toolgate on a memory store, and an original run there: one answered turn with a read, in a thread. */
async function setup(options: { settings?: Partial<RunSettings>; metadata?: Run['metadata'] } = {}) {
  const store = new MemoryRunStore();
  const toolgate = new Toolgate({ settings: resolveSettings({}, {}, {}), model: gatedModel(), store });
  const original = await store.createRun({
    input: 'how deep is the book?',
    model: 'gated:model',
    tenantId: 'acme',
    userId: 'ann',
    threadId: 'thread-1',
    context: { apiToken: 'secret-token' },
    metadata: options.metadata ?? { ticket: 'T-1', replayOf: 'run_0' },
    settings: { ...STORED, ...options.settings },
  });
  await store.append(original.id, [
    draft('run_status', { from: 'queued', to: 'running' }),
    draft('run_started', { input: original.input, model: original.model, tools: ['book'], maxSteps: 9 }),
    draft('user_message', { text: original.input }),
    draft('assistant_message', {
      step: 1,
      text: '',
      toolCalls: [],
      calls: [{ id: 'c1', name: 'book', arguments: '{}' }],
      finishReason: 'tool_calls',
      usage: USAGE,
      latencyMs: 4,
    }),
    draft('tool_call', { step: 1, toolCallId: 'c1', name: 'book', arguments: {} }),
    draft('tool_result', { step: 1, toolCallId: 'c1', name: 'book', ok: true, content: [], latencyMs: 2 }),
  ]);
  const run = await store.getRun(original.id);
  assert.ok(run !== undefined);
  return { store, toolgate, original: run };
}

describe('prepareFork', () => {
  it("keeps the original's stored settings, puts the request's over them, and says what changed", async () => {
    const { toolgate, original } = await setup();
    const fork = await prepareFork({
      toolgate,
      original,
      request: { afterEventId: 6, settings: { strategy: 'plan', maxSteps: 4, todo: true, dryRun: true } },
    });
    const { traceparent: _trace, ...kept } = STORED;
    assert.deepEqual(fork.init.settings, {
      ...kept,
      strategy: 'plan',
      maxSteps: 4,
      todo: { enabled: true, remindAfter: 7 },
    });
    assert.equal(fork.init.settings.traceparent, undefined, "the original's trace is not the fork's");
    assert.equal(fork.init.dryRun, true);
    assert.equal(fork.init.threadId, undefined, 'a fork does not continue the thread');
    assert.deepEqual(fork.init.context, { apiToken: 'secret-token' }, 'the real values, for injected arguments');
    assert.deepEqual(fork.init.metadata, { ticket: 'T-1', forkOf: { runId: original.id, afterEventId: 6 } });
    assert.deepEqual([fork.init.tenantId, fork.init.userId, fork.init.input], ['acme', 'ann', original.input]);
    assert.deepEqual(fork.events.at(-1), {
      type: 'run_forked',
      data: {
        from: original.id,
        afterEventId: 6,
        settings: { strategy: 'plan', maxSteps: 4, dryRun: true, todo: true },
      },
    });
    assert.deepEqual(
      fork.events.map((e) => e.type),
      ['run_started', 'user_message', 'assistant_message', 'tool_call', 'tool_result', 'run_forked'],
    );
  });

  it('without settings the fork is driven as the original was, and run_forked names no change', async () => {
    const { toolgate, original } = await setup();
    const fork = await prepareFork({ toolgate, original, request: { afterEventId: 3 } });
    assert.equal(fork.init.settings.strategy, 'react');
    assert.equal(fork.init.settings.maxSteps, 9);
    assert.deepEqual(fork.events.at(-1)?.data, { from: original.id, afterEventId: 3 });
  });

  it("refuses a gateway session's run, an unknown strategy and a model that cannot be made", async () => {
    const gateway = await setup({ settings: { gateway: { transport: 'stdio', dryRun: false } } });
    await assert.rejects(
      prepareFork({ toolgate: gateway.toolgate, original: gateway.original, request: { afterEventId: 3 } }),
      (error: unknown) =>
        error instanceof ToolgateError && error.code === 'usage' && /gateway session/.test(error.message),
    );
    const { toolgate, original, store } = await setup();
    await assert.rejects(
      prepareFork({ toolgate, original, request: { afterEventId: 3, settings: { strategy: 'telepathy' } } }),
      /unknown strategy "telepathy"; known strategies: react, plan, reflect, auto/,
    );
    await assert.rejects(
      prepareFork({ toolgate, original, request: { afterEventId: 3, settings: { model: 'nope' } } }),
    );
    assert.equal((await store.listRuns({})).runs.length, 1);
  });
});

describe('createFork', () => {
  it("writes the fork's first events under its lease, leaving it queued with the prefix's usage", async () => {
    const { toolgate, original, store } = await setup();
    const fork = await createFork(toolgate, await prepareFork({ toolgate, original, request: { afterEventId: 6 } }));
    assert.equal(fork.status, 'queued');
    assert.deepEqual(fork.usage, USAGE);
    assert.equal(fork.steps, 1);
    assert.equal(fork.lastEventId, 6);
    const lease = await store.claimRun(fork.id, { owner: 'another-process', ttlMs: 10_000 });
    assert.ok(lease !== undefined, 'the lease was given up: any process may drive the fork');
  });

  it('a fork whose events cannot be written ends failed with the reason, never driven as new', async () => {
    const { toolgate, original, store } = await setup();
    const prepared = await prepareFork({ toolgate, original, request: { afterEventId: 6 } });
    const append = store.append.bind(store);
    let refused = false;
    store.append = async (runId, drafts, patch, options) => {
      if (!refused && drafts.some((d) => d.type === 'run_forked')) {
        refused = true;
        throw new ToolgateError('store_unavailable', 'the disk is full');
      }
      return append(runId, drafts, patch, options);
    };
    await assert.rejects(createFork(toolgate, prepared), /the disk is full/);
    const forks = (await store.listRuns({})).runs.filter((r) => r.id !== original.id);
    assert.equal(forks.length, 1);
    assert.equal(forks[0]?.status, 'failed');
    assert.match(forks[0]?.error?.message ?? '', /the fork's log could not be written: .*the disk is full/);
  });
});
