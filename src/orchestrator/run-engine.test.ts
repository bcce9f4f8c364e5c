// The run engine: settings read from the stored run, exclusive ownership across
// engines sharing a store (one SQLite file opened twice stands for two
// processes: each connection hears only its own appends), fencing of a stale
// owner, and cancel / input that reach whichever engine drives the run.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  ToolgateError,
  type CallToolRequest,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type RawToolCall,
  type Run,
  type RunEvent,
  type RunSettings,
  type RunStore,
  type ToolResult,
  type ToolSource,
  type ToolSpec,
} from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { openSqliteRunStore } from '../store/sqlite/open-sqlite-run-store.ts';
import { settingsFrom } from './run-agent.ts';
import { RunEngine } from './run-engine.ts';
import type { RunEnvironment } from './state/run-options.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Two connections to one SQLite file: what two processes sharing it have. */
async function twoStores(): Promise<[RunStore, RunStore]> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-engine-'));
  dirs.push(dir);
  const path = join(dir, 'runs.db');
  return [await openSqliteRunStore({ path }), await openSqliteRunStore({ path })];
}

type Reply =
  | Partial<ModelResponse>
  | ((request: ModelRequest, signal: AbortSignal | undefined) => Promise<Partial<ModelResponse>>);

/** A model that answers turn n with replies[n] (the last one repeats), counting requests. */
function model(replies: Reply[]): ModelAdapter & { requests: number } {
  const m = {
    id: 'fake:model',
    requests: 0,
    async generate(request: ModelRequest, options?: { signal?: AbortSignal }): Promise<ModelResponse> {
      const reply = replies[Math.min(m.requests, replies.length - 1)] as Reply;
      m.requests++;
      const r = typeof reply === 'function' ? await reply(request, options?.signal) : reply;
      return {
        text: r.text ?? '',
        toolCalls: r.toolCalls ?? [],
        finishReason: (r.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop',
      };
    },
  };
  return m;
}

function tools(
  behaviour: Record<string, { write?: boolean; run: (req: CallToolRequest) => Promise<ToolResult> | ToolResult }>,
): ToolSource & { calls: string[] } {
  const calls: string[] = [];
  const spec = (name: string): ToolSpec => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    annotations:
      behaviour[name]?.write === true ? { readOnlyHint: false, destructiveHint: true } : { readOnlyHint: true },
    origin: { kind: 'mcp', server: 'fake', tool: name },
  });
  return {
    name: 'fake',
    calls,
    listTools: async () => Object.keys(behaviour).map(spec),
    async callTool(req) {
      calls.push(req.name);
      return (behaviour[req.name] as { run: (req: CallToolRequest) => Promise<ToolResult> | ToolResult }).run(req);
    },
    close: async () => undefined,
  };
}

const ok = (text: string): ToolResult => ({ ok: true, content: [{ type: 'text', text }] });
const call = (id: string, name: string, args = '{}'): RawToolCall => ({ id, name, arguments: args });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function engine(
  store: RunStore,
  env: Omit<RunEnvironment, 'validator'>,
  options: { owner: string; leaseMs?: number; fallback?: Partial<RunSettings> },
): RunEngine {
  return new RunEngine({
    store,
    owner: options.owner,
    leaseMs: options.leaseMs ?? 5000,
    environment: () => Promise.resolve(env),
    fallbackSettings: settingsFrom(options.fallback ?? {}),
  });
}

async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}

const ofType = (events: RunEvent[], type: RunEvent['type']) => events.filter((e) => e.type === type);

describe('RunEngine', () => {
  it('reads maxSteps from the stored run, also after an approval (not from the engine defaults)', async () => {
    const store = new MemoryRunStore();
    const env = {
      model: model([{ toolCalls: [call('w', 'write')] }, { toolCalls: [call('r', 'read')] }]),
      tools: tools({ write: { write: true, run: () => ok('written') }, read: { run: () => ok('read') } }),
      policy: { tools: { write: { approval: 'required' as const } }, tenants: {} },
    };
    const eng = engine(store, env, { owner: 'a', fallback: { maxSteps: 20 } });
    const { run } = await eng.start({ input: 'go', model: 'fake:model', settings: settingsFrom({ maxSteps: 3 }) });
    const waiting = await eng.drive(run.id);
    assert.equal(waiting.status, 'waiting_approval');
    const decided = await eng.input(run.id, {
      type: 'approval',
      toolCallId: waiting.pendingApproval?.toolCallId ?? '',
      decision: 'approve',
    });
    assert.equal(decided.status, 'running', 'the decision moves the run back to running, in the same write');
    assert.equal(decided.pendingApproval, undefined);
    const final = await eng.drive(run.id);
    assert.equal(final.status, 'failed');
    assert.equal(final.error?.code, 'max_steps');
    assert.equal(final.steps, 3, 'the run stopped at its own maxSteps (3), not the default 20');
    assert.match(final.error?.message ?? '', /maxSteps \(3\)/);
  });

  it('two engines on one SQLite file: only one drives a run at a time, the other leaves it alone', async () => {
    const [one, two] = await twoStores();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const m = model([async () => (await gate, { text: 'answer' })]);
    const env = { model: m, tools: tools({ read: { run: () => ok('x') } }) };
    const a = engine(one, env, { owner: 'a' });
    const b = engine(two, env, { owner: 'b' });
    const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
    const driving = a.drive(run.id);
    // The model is asked while the run's start is committed (decision 0019): wait for both, so
    // b meets a run that is visibly running under a's lease, however slowly the commit lands.
    await until(async () => m.requests === 1 && (await two.getRun(run.id))?.status === 'running');
    const standing = await two.getRun(run.id);
    const other = await b.drive(run.id);
    assert.equal(other.status, 'running', 'b returns at once with the run as it stands');
    assert.equal(other.lastEventId, standing?.lastEventId, 'b appended nothing');
    release();
    const final = await driving;
    assert.equal(final.status, 'completed');
    assert.equal(m.requests, 1, 'one model turn: b never drove it');
    const events = await two.readEvents(run.id);
    assert.equal(ofType(events, 'run_started').length, 1);
    assert.equal(ofType(events, 'run_completed').length, 1);
    await one.close();
    await two.close();
  });

  it(
    'a stale owner (paused past its lease) writes nothing ' + 'more; the next owner finishes under the crash rules',
    async () => {
      const store = new MemoryRunStore();
      // The write blocks this process for longer than the lease: no renewal can run, as in a paused process.
      const busy = (ms: number) => {
        const end = Date.now() + ms;
        while (Date.now() < end) {
          /* blocked */
        }
      };
      const env = {
        model: model([{ toolCalls: [call('w', 'order')] }, { text: 'done' }]),
        tools: tools({ order: { write: true, run: () => (busy(400), ok('placed')) } }),
        policy: { tools: { order: { approval: 'never' as const } }, tenants: {} },
      };
      const a = engine(store, env, { owner: 'a', leaseMs: 150 });
      const b = engine(store, env, { owner: 'b', leaseMs: 150 });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      const stale = await a.drive(run.id);
      assert.equal(stale.status, 'running', 'a stopped without ending the run');
      let events = await store.readEvents(run.id);
      assert.equal(ofType(events, 'tool_call').length, 1);
      assert.equal(ofType(events, 'tool_result').length, 0, "a's result was refused: its lease had expired");
      const leases = await b.claimNext(10);
      assert.deepEqual(
        leases.map((l) => l.runId),
        [run.id],
      );
      assert.ok((leases[0]?.epoch ?? 0) >= 2, 'the takeover raised the epoch');
      const taken = await b.drive(run.id, { lease: leases[0] });
      assert.equal(taken.status, 'waiting_approval');
      assert.equal(taken.pendingApproval?.reason, 'outcome_unknown', 'the write in flight is not repeated silently');
      events = await store.readEvents(run.id);
      assert.equal(env.tools.calls.length, 1, 'the write ran once');
      assert.equal(ofType(events, 'run_started').length, 1);
    },
  );

  it(
    'cancel written by another process reaches the owner, ' + 'which aborts the call in flight and ends the run',
    async () => {
      const [one, two] = await twoStores();
      const m = model([
        async (_request, signal) =>
          new Promise((_resolve, reject) =>
            signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
          ),
      ]);
      const env = { model: m, tools: tools({ read: { run: () => ok('x') } }) };
      const a = engine(one, env, { owner: 'a', leaseMs: 300 });
      const b = engine(two, env, { owner: 'b', leaseMs: 300 });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      const driving = a.drive(run.id);
      await until(async () => m.requests === 1);
      const started = Date.now();
      const cancelled = await b.cancel(run.id, { reason: 'stop it', userId: 'u1' });
      assert.equal(cancelled.status, 'cancelled');
      assert.ok(Date.now() - started < 2000, 'seen at the owner’s next beat');
      const final = await driving;
      assert.equal(final.status, 'cancelled');
      const events = await one.readEvents(run.id);
      assert.equal(ofType(events, 'cancel_requested').length, 1);
      const end = ofType(events, 'run_cancelled');
      assert.equal(end.length, 1);
      assert.equal(end[0]?.type === 'run_cancelled' ? end[0].data.reason : '', 'stop it');
      await one.close();
      await two.close();
    },
  );

  it('cancel of a run nobody drives (waiting for a person) ends it at once', async () => {
    const store = new MemoryRunStore();
    const env = {
      model: model([{ toolCalls: [call('w', 'write')] }]),
      tools: tools({ write: { write: true, run: () => ok('x') } }),
      policy: { tools: { write: { approval: 'required' as const } }, tenants: {} },
    };
    const a = engine(store, env, { owner: 'a' });
    const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
    assert.equal((await a.drive(run.id)).status, 'waiting_approval');
    const cancelled = await engine(store, env, { owner: 'b' }).cancel(run.id, { reason: 'no' });
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.pendingApproval, undefined);
    assert.deepEqual(env.tools.calls, []);
  });

  it('a message written by another process joins the conversation the owner drives', async () => {
    const [one, two] = await twoStores();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[][] = [];
    const m = model([
      async (request) => (
        seen.push(request.messages.map((x) => x.content ?? '')),
        await gate,
        { toolCalls: [call('r', 'read')] }
      ),
      async (request) => (seen.push(request.messages.map((x) => x.content ?? '')), { text: 'ok' }),
    ]);
    const env = { model: m, tools: tools({ read: { run: () => ok('the price') } }) };
    const a = engine(one, env, { owner: 'a' });
    const b = engine(two, env, { owner: 'b' });
    const { run } = await a.start({ input: 'first', model: 'fake:model', settings: settingsFrom({}) });
    const driving = a.drive(run.id);
    // The message comes while the first turn is in flight, after the run's start is in the log.
    await until(async () => m.requests === 1 && (await two.readEvents(run.id)).some((e) => e.type === 'run_started'));
    await b.input(run.id, { type: 'message', text: 'also this' });
    release();
    const final: Run = await driving;
    assert.equal(final.status, 'completed');
    // The first turn's step, held back, met the changed log: it is dropped and the run driven again from the log.
    // The model is asked again while that step is committed (decision 0019), so one request went out before the
    // commit found the log changed; its answer is dropped too, and the model is asked once more.
    assert.ok(
      seen.at(-1)?.includes('also this'),
      'the turn that was recorded saw the message written by the other connection',
    );
    const events = await one.readEvents(run.id);
    const ids = events.map((e) => e.id);
    assert.deepEqual(
      ids,
      ids.map((_, i) => i + 1),
      'one numbering, no gap, nothing twice',
    );
    const message = events.find((e) => e.type === 'user_message' && e.data.text === 'also this');
    const answers = ofType(events, 'assistant_message');
    assert.equal(answers.length, 1, 'only the answer given after the message is recorded');
    assert.ok(message !== undefined && (answers[0]?.id ?? 0) > message.id, 'the answer follows the message');
    await one.close();
    await two.close();
  });

  it('an unknown strategy stored with a run fails that run with the known names', async () => {
    const store = new MemoryRunStore();
    const env = { model: model([{ text: 'x' }]), tools: tools({}) };
    const a = engine(store, env, { owner: 'a' });
    const { run } = await a.start({
      input: 'go',
      model: 'fake:model',
      settings: { ...settingsFrom({}), strategy: 'nope' as 'react' },
    });
    const final = await a.drive(run.id);
    assert.equal(final.status, 'failed');
    assert.match(final.error?.message ?? '', /unknown strategy "nope"; known strategies: react/);
  });

  it(
    'native tool calls whose arguments stay unreadable ' + 'end the run after parseRetries rounds, like text calls',
    async () => {
      const store = new MemoryRunStore();
      const m = model([{ toolCalls: [call('b', 'read', '{{{{ not json')] }]);
      const env = { model: m, tools: tools({ read: { run: () => ok('x') } }) };
      const a = engine(store, env, { owner: 'a' });
      const { run } = await a.start({
        input: 'go',
        model: 'fake:model',
        settings: settingsFrom({ parseRetries: 2, maxSteps: 20 }),
      });
      const final = await a.drive(run.id);
      assert.equal(final.status, 'failed');
      assert.equal(final.error?.code, 'unparseable_tool_call');
      assert.equal(m.requests, 3, 'the first turn and 2 feedback rounds, not 20 turns');
      const events = await store.readEvents(run.id);
      const results = ofType(events, 'tool_result');
      assert.equal(results.length, 3, 'every call still has its result, with the feedback the model got');
      assert.ok(results.every((e) => e.type === 'tool_result' && e.data.error?.code === 'invalid_arguments'));
      assert.equal(env.tools.calls.length, 0, 'nothing unreadable reached a tool');
    },
  );

  it('a readable turn in between starts the count again', async () => {
    const store = new MemoryRunStore();
    const broken = { toolCalls: [call('b', 'read', 'qty=5')] };
    const m = model([broken, broken, { toolCalls: [call('g', 'read', '{}')] }, broken, broken, { text: 'done' }]);
    const env = { model: m, tools: tools({ read: { run: () => ok('x') } }) };
    const a = engine(store, env, { owner: 'a' });
    const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({ parseRetries: 2 }) });
    const final = await a.drive(run.id);
    assert.equal(final.status, 'completed', 'never more than 2 unreadable turns in a row');
    assert.equal(m.requests, 6);
  });
});

interface CountedStore {
  store: RunStore;
  /** The event types of each append (one append is one transaction). */
  appends: string[][];
  /** How many times each other method was called. */
  calls: Record<string, number>;
  beforeAppend?: (types: string[]) => Promise<void>;
}

/** The store's appends, by the event types of each one, and how often each other method was called. */
function countingStore(store: RunStore): CountedStore {
  const seen: CountedStore = { store, appends: [], calls: {} };
  seen.store = new Proxy(store, {
    get(target, key, receiver) {
      if (key !== 'append') {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        // The store keeps private fields: its methods run on the store itself, not on the proxy.
        const bound = (value as (...a: unknown[]) => unknown).bind(target);
        return (...args: unknown[]) => {
          seen.calls[String(key)] = (seen.calls[String(key)] ?? 0) + 1;
          return bound(...args);
        };
      }
      return async (...args: Parameters<RunStore['append']>) => {
        const types = args[1].map((d) => d.type);
        await seen.beforeAppend?.(types);
        seen.appends.push(types);
        return target.append(...args);
      };
    },
  });
  return seen;
}

describe('RunEngine: leases given up', () => {
  it(
    'a pass that ends the run does not call releaseRun (its last ' +
      'append released the lease); one that waits for a person does',
    async () => {
      const [sqlite] = await twoStores();
      const released: string[] = [];
      const store = new Proxy(sqlite, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver) as unknown;
          if (typeof value !== 'function') return value;
          const bound = (value as (...a: unknown[]) => unknown).bind(target);
          if (key !== 'releaseRun') return bound;
          return (...args: unknown[]) => {
            released.push((args[0] as { runId: string }).runId);
            return bound(...args);
          };
        },
      });
      const env = {
        model: model([{ toolCalls: [call('w', 'write')] }, { text: 'done' }]),
        tools: tools({ write: { write: true, run: () => ok('written') } }),
        policy: { tools: { write: { approval: 'required' as const } }, tenants: {} },
      };
      const a = engine(store, env, { owner: 'a' });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      const waiting = await a.drive(run.id);
      assert.equal(waiting.status, 'waiting_approval');
      assert.deepEqual(released, [run.id], 'a run waiting for a person is let go, so any process can take it up');
      await a.input(run.id, {
        type: 'approval',
        toolCallId: waiting.pendingApproval?.toolCallId ?? '',
        decision: 'approve',
      });
      const final = await a.drive(run.id);
      assert.equal(final.status, 'completed');
      assert.deepEqual(
        released,
        [run.id],
        'the pass that ended the run released nothing more (the ' +
          'contract tests show the ending append clears the lease)',
      );
    },
  );
});

describe('RunEngine: a model answer is committed with what follows it', () => {
  it(
    'a write step is two transactions: the answer with the ' +
      'decision and the call, before the tool runs; then the result',
    async () => {
      const counted = countingStore(new MemoryRunStore());
      let committedBeforeTool: string[] = [];
      const env = {
        model: model([{ toolCalls: [call('w1', 'write')] }, { text: 'done' }]),
        tools: tools({
          write: {
            write: true,
            run: async () => {
              committedBeforeTool = (await counted.store.readEvents(runId)).map((e) => e.type);
              return ok('x');
            },
          },
        }),
        policy: { tools: { write: { approval: 'never' as const } }, tenants: {} },
      };
      const a = engine(counted.store, env, { owner: 'a' });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      const runId = run.id;
      const final = await a.drive(run.id);
      assert.equal(final.status, 'completed');
      assert.deepEqual(counted.appends, [
        ['run_status', 'run_started', 'user_message'],
        ['assistant_message', 'gate_decision', 'tool_call'],
        // The turn's step_signal goes with the result that closed it: no commit of its own.
        ['tool_result', 'step_signal'],
        // The last answer's text (shown at once when not streamed) goes with it, and with the run's end.
        ['assistant_delta', 'assistant_message', 'run_status', 'run_completed'],
      ]);
      assert.deepEqual(
        committedBeforeTool.slice(-3),
        ['assistant_message', 'gate_decision', 'tool_call'],
        "a write's call is durable before the tool is reached",
      );
      const events = await counted.store.readEvents(run.id);
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
      );
      assert.equal(final.steps, 2);
    },
  );

  it(
    'a quick read step is one transaction; a read still ' +
      'running after a moment has its call committed while it runs',
    async () => {
      const counted = countingStore(new MemoryRunStore());
      let seenWhileSlow: string[] = [];
      const env = {
        model: model([{ toolCalls: [call('r1', 'read')] }, { toolCalls: [call('r2', 'slow')] }, { text: 'done' }]),
        tools: tools({
          read: { run: () => ok('x') },
          slow: {
            run: async () => {
              await sleep(150);
              seenWhileSlow = (await counted.store.readEvents(runId)).map((e) => e.type);
              return ok('y');
            },
          },
        }),
      };
      const a = engine(counted.store, env, { owner: 'a' });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      const runId = run.id;
      const final = await a.drive(run.id);
      assert.equal(final.status, 'completed');
      assert.deepEqual(counted.appends.slice(1, 4), [
        ['assistant_message', 'gate_decision', 'tool_call', 'tool_result', 'step_signal'],
        ['assistant_message', 'gate_decision', 'tool_call'],
        ['tool_result', 'step_signal'],
      ]);
      assert.deepEqual(seenWhileSlow.slice(-2), ['gate_decision', 'tool_call'], 'the slow read shows as running');
      const events = await counted.store.readEvents(run.id);
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
      );
    },
  );

  it(
    'a write that needs approval has its answer committed ' + "with the gate's decision, before anyone is asked",
    async () => {
      const counted = countingStore(new MemoryRunStore());
      const env = {
        model: model([{ toolCalls: [call('w', 'write')] }]),
        tools: tools({ write: { write: true, run: () => ok('written') } }),
        policy: { tools: { write: { approval: 'required' as const } }, tenants: {} },
      };
      const a = engine(counted.store, env, { owner: 'a' });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      const waiting = await a.drive(run.id);
      assert.equal(waiting.status, 'waiting_approval');
      assert.deepEqual(counted.appends.slice(1), [
        ['assistant_message', 'gate_decision'],
        ['run_status', 'approval_required'],
      ]);
      assert.equal((await counted.store.readEvents(run.id)).filter((e) => e.type === 'assistant_message').length, 1);
    },
  );

  it(
    'a cancel written while an answer is held back: the pass is dropped, ' +
      'the run is driven again from the log and ends cancelled; nothing runs',
    async () => {
      const counted = countingStore(new MemoryRunStore());
      const m = model([{ toolCalls: [call('w', 'write')] }, { text: 'done' }]);
      const env = { model: m, tools: tools({ write: { write: true, run: () => ok('written') } }) };
      const a = engine(counted.store, env, { owner: 'a' });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      let raced = false;
      // Another writer (a cancel posted to another process) appends between the answer and its commit.
      counted.beforeAppend = async (types) => {
        if (raced || !types.includes('assistant_message')) return;
        raced = true;
        await counted.store.append(run.id, [{ type: 'cancel_requested', data: { reason: 'stop it' } }]);
      };
      const final = await a.drive(run.id);
      assert.equal(final.status, 'cancelled');
      assert.deepEqual(env.tools.calls, [], 'the call held back with the answer never ran');
      const events = await counted.store.readEvents(run.id);
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
        'ids follow each other: nothing was written by the dropped pass',
      );
      assert.equal(events.filter((e) => e.type === 'tool_call').length, 0);
      assert.equal(events.filter((e) => e.type === 'cancel_requested').length, 1);
      assert.equal(events.at(-1)?.type, 'run_cancelled');
    },
  );

  it(
    "a cancel written while a slow read's call is held back: the timer's commit " +
      'finds the log changed, the read is aborted at once, and the run ends cancelled',
    async () => {
      const counted = countingStore(new MemoryRunStore());
      let aborted = false;
      let finishedLate = false;
      const env = {
        model: model([{ toolCalls: [call('r', 'slow')] }, { text: 'done' }]),
        tools: tools({
          slow: {
            // Would answer after a second; answers at once when its call is aborted.
            run: (req) =>
              new Promise<ToolResult>((resolve) => {
                const timer = setTimeout(() => {
                  finishedLate = true;
                  resolve(ok('late'));
                }, 1000);
                req.signal?.addEventListener('abort', () => {
                  aborted = true;
                  clearTimeout(timer);
                  resolve({ ok: false, content: [], error: { code: 'cancelled', message: 'aborted' } });
                });
              }),
          },
        }),
      };
      const a = engine(counted.store, env, { owner: 'a' });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      let raced = false;
      // Another writer (a cancel posted to another process) appends just before the read's held-back call is committed
      // by
      // its timer.
      counted.beforeAppend = async (types) => {
        if (raced || !types.includes('tool_call') || types.includes('tool_result')) return;
        raced = true;
        await counted.store.append(run.id, [{ type: 'cancel_requested', data: { reason: 'stop it' } }]);
      };
      const final = await a.drive(run.id);
      assert.equal(raced, true, 'the read outlived its commit delay');
      assert.equal(final.status, 'cancelled');
      assert.equal(aborted, true, 'the read in flight was aborted when the pass went stale, not waited for');
      assert.equal(finishedLate, false);
      const events = await counted.store.readEvents(run.id);
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
        'ids follow each other: nothing was written by the dropped pass',
      );
      assert.equal(events.filter((e) => e.type === 'tool_result').length, 0);
      assert.equal(events.at(-1)?.type, 'run_cancelled');
    },
  );
});

describe('RunEngine: the model is asked while the step before is committed (decision 0019)', () => {
  /**
   * Holds the commit of an append that carries one of `types` (each once) until `release(type)`, or for at
   * most `ms`: a store whose commits take long. A pass that waited for its commits before asking the model
   * would ask only once the time is up.
   */
  function holdCommits(
    counted: ReturnType<typeof countingStore>,
    types: string[],
    ms = 300,
  ): { release: (type: string) => void } {
    const releases = new Map<string, () => void>();
    const pending = new Set(types);
    counted.beforeAppend = async (appended) => {
      const type = appended.find((t) => pending.has(t));
      if (type === undefined) return;
      pending.delete(type);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        releases.set(type, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    };
    return { release: (type) => releases.get(type)?.() };
  }

  it(
    "the run's start and a read step are committed while the model is " +
      'asked: the request does not wait for the commit, the answer does',
    async () => {
      const counted = countingStore(new MemoryRunStore());
      const hold = holdCommits(counted, ['run_started', 'tool_result']);
      const asked: { started: boolean; stepCommitted: boolean }[] = [];
      let runId = '';
      const observe = async (): Promise<void> => {
        const types = (await counted.store.readEvents(runId)).map((e) => e.type);
        asked.push({ started: types.includes('run_started'), stepCommitted: types.includes('tool_result') });
      };
      const m = model([
        async () => (await observe(), hold.release('run_started'), { toolCalls: [call('r1', 'read')] }),
        async () => (await observe(), hold.release('tool_result'), { text: 'done' }),
      ]);
      const env = { model: m, tools: tools({ read: { run: () => ok('x') } }) };
      const a = engine(counted.store, env, { owner: 'a' });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      runId = run.id;
      const final = await a.drive(run.id);
      assert.equal(final.status, 'completed');
      assert.deepEqual(
        asked,
        [
          { started: false, stepCommitted: false },
          { started: true, stepCommitted: false },
        ],
        'each request went out while the commit before it was still on its way',
      );
      assert.deepEqual(counted.appends, [
        ['run_status', 'run_started', 'user_message'],
        ['assistant_message', 'gate_decision', 'tool_call', 'tool_result', 'step_signal'],
        ['assistant_delta', 'assistant_message', 'run_status', 'run_completed'],
      ]);
      const events = await counted.store.readEvents(run.id);
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
        'each answer follows the commit it was asked alongside',
      );
      assert.deepEqual(events.map((e) => e.type).slice(0, 3), ['run_status', 'run_started', 'user_message']);
    },
  );

  it(
    "with several runs in flight, each run's held-back " + 'step is committed before its model is asked again',
    async () => {
      const counted = countingStore(new MemoryRunStore());
      counted.beforeAppend = async (types) => {
        // Slow commits: a request that did not wait for its run's commit would find the step missing.
        if (types.includes('tool_result')) await sleep(30);
      };
      const runIds = new Map<string, string>();
      const committedWhenAsked: boolean[] = [];
      const m = model([
        async (request) => {
          const input = request.messages.find((x) => x.role === 'user')?.content ?? '';
          if (!request.messages.some((x) => x.role === 'tool')) return { toolCalls: [call(`r-${input}`, 'read')] };
          const events = await counted.store.readEvents(runIds.get(input) ?? '');
          committedWhenAsked.push(events.some((e) => e.type === 'tool_result'));
          return { text: 'done' };
        },
      ]);
      const a = engine(counted.store, { model: m, tools: tools({ read: { run: () => ok('x') } }) }, { owner: 'a' });
      const runs = await Promise.all(
        ['one', 'two'].map((input) => a.start({ input, model: 'fake:model', settings: settingsFrom({}) })),
      );
      for (const { run } of runs) runIds.set(run.input, run.id);
      const finals = await Promise.all(runs.map(({ run }) => a.drive(run.id)));
      assert.deepEqual(
        finals.map((r) => r.status),
        ['completed', 'completed'],
      );
      assert.deepEqual(committedWhenAsked, [true, true]);
    },
  );

  it(
    "a write's call is still committed before the tool " + 'runs, and its result before the model is asked again',
    async () => {
      const counted = countingStore(new MemoryRunStore());
      const hold = holdCommits(counted, ['tool_call', 'tool_result'], 100);
      let runId = '';
      let inStoreAtTool: string[] = [];
      let inStoreWhenAsked: string[] = [];
      const m = model([
        { toolCalls: [call('w1', 'write')] },
        async () => ((inStoreWhenAsked = (await counted.store.readEvents(runId)).map((e) => e.type)), { text: 'done' }),
      ]);
      const env = {
        model: m,
        tools: tools({
          write: {
            write: true,
            run: async () => ((inStoreAtTool = (await counted.store.readEvents(runId)).map((e) => e.type)), ok('x')),
          },
        }),
        policy: { tools: { write: { approval: 'never' as const } }, tenants: {} },
      };
      const a = engine(counted.store, env, { owner: 'a' });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      runId = run.id;
      hold.release('none');
      assert.equal((await a.drive(run.id)).status, 'completed');
      assert.equal(inStoreAtTool.at(-1), 'tool_call', 'the write ran only once its call was in the store');
      assert.deepEqual(
        inStoreWhenAsked.slice(-2),
        ['tool_result', 'step_signal'],
        "the model was asked again only once the write's result (and the turn's signal with it) was in the store",
      );
    },
  );

  it(
    'a commit that fails while the model is asked: the answer ' +
      "is not recorded, and the run fails with the store's error",
    async () => {
      const counted = countingStore(new MemoryRunStore());
      let failed = false;
      counted.beforeAppend = (types) => {
        if (!types.includes('tool_result') || failed) return Promise.resolve();
        failed = true;
        return Promise.reject(new Error('disk I/O error'));
      };
      const m = model([{ toolCalls: [call('r1', 'read')] }, { text: 'an answer asked alongside the failed commit' }]);
      const env = { model: m, tools: tools({ read: { run: () => ok('x') } }) };
      const a = engine(counted.store, env, { owner: 'a' });
      const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      const final = await a.drive(run.id);
      assert.equal(m.requests, 2, 'the model was asked while the step was committed');
      assert.equal(final.status, 'failed');
      assert.match(final.error?.message ?? '', /disk I\/O error/);
      const events = await counted.store.readEvents(run.id);
      assert.ok(
        !events.some((e) => e.type === 'assistant_message' && e.data.text.startsWith('an answer')),
        'the answer is not recorded without the step before it',
      );
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
      );
    },
  );

  it('a lease lost while the model is asked aborts the request, and the pass writes nothing more', async () => {
    const counted = countingStore(new MemoryRunStore());
    let aborted = false;
    const m = model([
      { toolCalls: [call('r1', 'read')] },
      (_request, signal) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => ((aborted = true), reject(new Error('aborted'))), { once: true }),
        ),
    ]);
    const env = { model: m, tools: tools({ read: { run: () => ok('x') } }) };
    const a = engine(counted.store, env, { owner: 'a' });
    const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
    // The store refuses the step's commit as it does for an owner whose lease another has taken over.
    counted.beforeAppend = (types) =>
      types.includes('tool_result')
        ? Promise.reject(new ToolgateError('lease_lost', `run ${run.id}: the lease is held by another owner`))
        : Promise.resolve();
    const final = await a.drive(run.id);
    assert.equal(aborted, true, 'the request in flight was aborted');
    assert.notEqual(final.status, 'completed');
    const events = await counted.store.readEvents(run.id);
    assert.ok(!events.some((e) => e.type === 'tool_result'), 'the lost pass wrote nothing more');
  });

  it('onRunStart is told of a run whose start is in the store', async () => {
    const counted = countingStore(new MemoryRunStore());
    let inStore: string[] = [];
    const env = {
      model: model([{ text: 'done' }]),
      tools: tools({}),
      hooks: {
        onRunStart: async (r: Run) => void (inStore = (await counted.store.readEvents(r.id)).map((e) => e.type)),
      },
    };
    const a = engine(counted.store, env, { owner: 'a' });
    const { run } = await a.start({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
    assert.equal((await a.drive(run.id)).status, 'completed');
    assert.deepEqual(inStore, ['run_status', 'run_started', 'user_message']);
  });
});

describe('RunEngine: a run driven as it was created and claimed', () => {
  it(
    'is not read again before the model is first asked: the run ' +
      'startClaimed returned is used, and its empty log is not read',
    async () => {
      const [sqlite] = await twoStores();
      const { store, calls } = countingStore(sqlite);
      let readsWhenAsked: { getRun: number; readEvents: number } | undefined;
      const m = model([
        async () => (
          (readsWhenAsked = { getRun: calls['getRun'] ?? 0, readEvents: calls['readEvents'] ?? 0 }),
          { text: 'done' }
        ),
      ]);
      const a = engine(store, { model: m, tools: tools({}) }, { owner: 'a' });
      const { run, lease } = await a.startClaimed({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      assert.ok(lease !== undefined);
      const final = await a.drive(run.id, { lease, run });
      assert.equal(final.status, 'completed');
      assert.deepEqual(readsWhenAsked, { getRun: 0, readEvents: 0 });
      const events = await sqlite.readEvents(run.id);
      assert.deepEqual(events.map((e) => e.type).slice(0, 3), ['run_status', 'run_started', 'user_message']);
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
      );
    },
  );

  it(
    'a cancel another process appends before the first pass ' +
      'is still heard: the run ends cancelled and nothing runs',
    async () => {
      const [one, two] = await twoStores();
      const env = {
        model: model([{ toolCalls: [call('w', 'write')] }, { text: 'done' }]),
        tools: tools({ write: { write: true, run: () => ok('x') } }),
      };
      const a = engine(one, env, { owner: 'a' });
      const { run, lease } = await a.startClaimed({ input: 'go', model: 'fake:model', settings: settingsFrom({}) });
      assert.ok(lease !== undefined);
      // What a cancel posted to another process writes while this one holds the lease.
      await two.append(run.id, [{ type: 'cancel_requested', data: { reason: 'stop it' } }]);
      const final = await a.drive(run.id, { lease, run });
      assert.equal(final.status, 'cancelled');
      assert.deepEqual(env.tools.calls, []);
      const events = await one.readEvents(run.id);
      assert.equal(events[0]?.type, 'cancel_requested');
      assert.equal(events.at(-1)?.type, 'run_cancelled');
      assert.ok(!events.some((e) => e.type === 'assistant_message'), 'no answer is recorded');
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
      );
    },
  );
});
