// A gateway session's run, on the real stores: every call of the MCP client
// through executeToolCall, approvals decided over the runs API (submitInput)
// or through the client (decide), cancel and end, and recovery by a RunEngine
// when the gateway holding the session goes away. The SQLite suite opens the
// file twice: decisions and recovery come through the second connection, as
// from another process.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import {
  ToolgateError,
  draft,
  type JsonObject,
  type Run,
  type RunEvent,
  type RunLease,
  type RunStore,
  type ToolResult,
} from '../core/index.ts';
import type { Policy } from '../gate/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { openSqliteRunStore } from '../store/sqlite/open-sqlite-run-store.ts';
import { defineTool } from '../tools/local/define-tool.ts';
import { LocalToolSource } from '../tools/local/local-tool-source.ts';
import { sharedValidator } from '../validation/index.ts';
import { gatewaySessionRuns, sweepLostGatewaySessions } from './gateway-recovery.ts';
import type { GatewayCallRequest, GatewayCallResult, GatewayDone } from './gateway-call.ts';
import { GatewayRun } from './gateway-run.ts';
import type { GatewayRunOptions } from './session-run.ts';
import { settingsFrom } from '../orchestrator/run-agent.ts';
import { RunEngine } from '../orchestrator/run-engine.ts';
import { submitInput } from '../orchestrator/submit-input.ts';
import { buildToolCatalog, type ToolCatalog } from '../orchestrator/call/tool-catalog.ts';

const TENANT = 'acme';
const USER = 'u-1';
const SESSION = { transport: 'stdio' as const, client: { name: 'test-client', version: '1.0' }, dryRun: false };

/**
 * placeOrder waits for a person and gets the user id injected; deleteAll is denied to the tenant; notify is a write
 * that needs nobody.
 */
const POLICY: Policy = {
  tools: { placeOrder: { approval: 'required', inject: { userId: '{{user.id}}' } }, notify: { approval: 'never' } },
  tenants: { [TENANT]: { deny: ['deleteAll'] } },
};

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Stores {
  /** What the gateway writes through. */
  store: RunStore;
  /** Another process's view of the same runs (the same object for the memory store). */
  peer: RunStore;
  close: () => Promise<void>;
}

const KINDS: { name: string; twoConnections: boolean; open: () => Promise<Stores> }[] = [
  {
    name: 'memory store',
    twoConnections: false,
    open: () => {
      const store = new MemoryRunStore();
      return Promise.resolve({ store, peer: store, close: () => Promise.resolve() });
    },
  },
  {
    name: 'SQLite file store',
    twoConnections: true,
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'toolgate-gateway-run-'));
      dirs.push(dir);
      const path = join(dir, 'runs.db');
      const store = await openSqliteRunStore({ path });
      const peer = await openSqliteRunStore({ path });
      return { store, peer, close: async () => void (await Promise.all([store.close(), peer.close()])) };
    },
  },
];

/**
 * The gateway's view of the store, with a switch that freezes its lease
 * renewals (a process stalled or gone: its lease runs out) and a record of
 * the leases it released.
 */
interface StoreSpy {
  store: RunStore;
  released: RunLease[];
  freezeRenewals: () => void;
  thaw: () => void;
}

function spy(target: RunStore): StoreSpy {
  let frozen = false;
  const waiting: (() => void)[] = [];
  const released: RunLease[] = [];
  const store = new Proxy(target, {
    get(t, property) {
      const value: unknown = Reflect.get(t, property, t);
      if (typeof value !== 'function') return value;
      if (property === 'renewLease') {
        return async (lease: RunLease, ttlMs: number) => {
          if (frozen) await new Promise<void>((resolve) => waiting.push(resolve));
          return t.renewLease(lease, ttlMs);
        };
      }
      if (property === 'releaseRun') {
        return (lease: RunLease) => {
          released.push(lease);
          return t.releaseRun(lease);
        };
      }
      return (...args: unknown[]): unknown => (value as (...a: unknown[]) => unknown).apply(t, args);
    },
  });
  return {
    store,
    released,
    freezeRenewals: () => (frozen = true),
    thaw: () => {
      frozen = false;
      waiting.splice(0).forEach((resolve) => resolve());
    },
  };
}

type Calls = Record<'lookup' | 'placeOrder' | 'deleteAll' | 'notify' | 'flaky', JsonObject[]>;

function shopTools(calls: Calls, options: { notifyHangs?: boolean }): LocalToolSource {
  const record = (name: keyof Calls) => (args: JsonObject) => void calls[name].push(args);
  return new LocalToolSource({
    name: 'shop',
    tools: [
      defineTool({
        name: 'lookup',
        description: 'Looks an order up.',
        inputSchema: {
          type: 'object',
          properties: { id: { type: 'string' } },
          required: ['id'],
          additionalProperties: false,
        },
        effect: 'read',
        execute: (args) => (record('lookup')(args), { id: args['id'] ?? null, status: 'open' }),
      }),
      defineTool({
        name: 'placeOrder',
        description: 'Places an order.',
        inputSchema: {
          type: 'object',
          properties: {
            side: { type: 'string', enum: ['BUY', 'SELL'] },
            qty: { type: 'integer', minimum: 1 },
            userId: { type: 'string' },
          },
          required: ['side', 'qty', 'userId'],
          additionalProperties: false,
        },
        effect: 'write',
        execute: (args) => (
          record('placeOrder')(args),
          `placed ${String(args['qty'])} ${String(args['side'])} for ${String(args['userId'])}`
        ),
      }),
      defineTool({
        name: 'deleteAll',
        description: 'Deletes every order.',
        inputSchema: { type: 'object' },
        effect: 'write',
        execute: (args) => (record('deleteAll')(args), 'deleted'),
      }),
      defineTool({
        name: 'notify',
        description: 'Sends a notice.',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        effect: 'write',
        execute: (args, ctx) => {
          record('notify')(args);
          if (options.notifyHangs !== true) return 'sent';
          // Never answers; gives up only when aborted.
          return new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
          );
        },
      }),
      defineTool({
        name: 'flaky',
        description: 'Fails.',
        inputSchema: { type: 'object' },
        effect: 'read',
        execute: (args) => {
          record('flaky')(args);
          throw new Error('warehouse offline');
        },
      }),
    ],
  });
}

interface Fixture extends Stores {
  spy: StoreSpy;
  run: GatewayRun;
  catalog: ToolCatalog;
  calls: Calls;
  call: (name: string, args: JsonObject, extra?: Partial<GatewayCallRequest>) => Promise<GatewayCallResult>;
  events: () => Promise<RunEvent[]>;
  current: () => Promise<Run>;
}

interface SetUpOptions {
  leaseMs?: number;
  approvalTimeoutMs?: number;
  dryRun?: boolean;
  notifyHangs?: boolean;
}

async function setUp(t: TestContext, open: () => Promise<Stores>, options: SetUpOptions = {}): Promise<Fixture> {
  const stores = await open();
  const storeSpy = spy(stores.store);
  const calls: Calls = { lookup: [], placeOrder: [], deleteAll: [], notify: [], flaky: [] };
  const tools = shopTools(calls, { notifyHangs: options.notifyHangs ?? false });
  const catalog = buildToolCatalog(await tools.listTools(), { policy: POLICY, tenantId: TENANT });
  const gatewayOptions: GatewayRunOptions = {
    store: storeSpy.store,
    owner: 'gateway-1',
    leaseMs: options.leaseMs ?? 5_000,
    environment: { tools, policy: POLICY, validator: sharedValidator() },
    tenantId: TENANT,
    userId: USER,
    session: { ...SESSION, dryRun: options.dryRun ?? false },
    approvalTimeoutMs: options.approvalTimeoutMs ?? 20_000,
    toolNames: catalog.definitions.map((d) => d.name),
  };
  const run = await GatewayRun.open(gatewayOptions);
  t.after(async () => {
    storeSpy.thaw();
    await run.end({ status: 'completed', reason: 'the test is over' }).catch(() => undefined);
    await stores.close();
  });
  return {
    ...stores,
    spy: storeSpy,
    run,
    catalog,
    calls,
    call: (name, args, extra = {}) => run.call({ catalog, name, arguments: args, ...extra }),
    events: () => stores.store.readEvents(run.runId),
    current: async () => (await stores.store.getRun(run.runId)) ?? assert.fail('the run is gone'),
  };
}

function done(outcome: GatewayCallResult): GatewayDone {
  assert.equal(outcome.kind, 'done', `expected a finished call, got ${outcome.kind}`);
  return outcome;
}

function held(outcome: GatewayCallResult): Extract<GatewayCallResult, { kind: 'held' }> {
  assert.equal(outcome.kind, 'held', `expected a held call, got ${outcome.kind}`);
  return outcome as Extract<GatewayCallResult, { kind: 'held' }>;
}

function textOf(result: ToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** The events of one call, in order. */
function eventsOf(events: readonly RunEvent[], toolCallId: string): RunEvent[] {
  return events.filter((e) =>
    e.type === 'input_received'
      ? e.data.input.type === 'approval' && e.data.input.toolCallId === toolCallId
      : 'toolCallId' in e.data && e.data.toolCallId === toolCallId,
  );
}

function typesOf(events: readonly RunEvent[]): string[] {
  return events.map((e) => (e.type === 'gate_decision' ? `gate_decision:${e.data.decision}` : e.type));
}

/**
 * What every log must look like: ids 1, 2, 3… without a gap; each run_status
 * starts from the status before it; every call ends in exactly one
 * tool_result, after its tool_call; nothing after a terminal event.
 */
function assertWellFormed(events: readonly RunEvent[]): void {
  events.forEach((event, index) => assert.equal(event.id, index + 1, 'event ids are contiguous from 1'));
  let status = 'queued';
  for (const event of events) {
    if (event.type !== 'run_status') continue;
    assert.equal(event.data.from, status, `run_status ${event.id} starts from the status before it`);
    status = event.data.to;
  }
  const sent = new Map<string, number>();
  const results = new Map<string, number>();
  const seen = new Set<string>();
  for (const event of events) {
    if (!('toolCallId' in event.data) || event.type === 'input_received') continue;
    const id = event.data.toolCallId;
    if (id === undefined) continue;
    seen.add(id);
    if (event.type === 'tool_call') {
      assert.ok(!sent.has(id), `one tool_call for ${id}`);
      sent.set(id, event.id);
    }
    if (event.type === 'tool_result') {
      assert.ok(!results.has(id), `one tool_result for ${id}`);
      results.set(id, event.id);
    }
  }
  for (const id of seen) assert.ok(results.has(id), `call ${id} has a tool_result`);
  for (const [id, at] of sent) assert.ok((results.get(id) ?? 0) > at, `the tool_result of ${id} follows its tool_call`);
  const terminal = events.findIndex(
    (e) => e.type === 'run_completed' || e.type === 'run_failed' || e.type === 'run_cancelled',
  );
  if (terminal !== -1) assert.equal(terminal, events.length - 1, 'nothing follows the terminal event');
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

/** Resolves with whether `promise` settled within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await sleep(ms);
  return settled;
}

function engineOn(store: RunStore, owner: string, leaseMs = 1_000): RunEngine {
  return new RunEngine({
    store,
    owner,
    leaseMs,
    environment: () => Promise.reject(new Error('a gateway session run needs no model')),
    fallbackSettings: settingsFrom({}),
    ownedElsewhere: gatewaySessionRuns,
  });
}

const ORDER = { side: 'buy', qty: 2 };
const PREPARED_ORDER = { side: 'BUY', qty: 2, userId: USER };

for (const kind of KINDS) {
  describe(`GatewayRun on the ${kind.name}`, () => {
    it('open: a running run with the session in its settings, its start recorded, its lease held', async (t) => {
      const f = await setUp(t, kind.open);
      const run = await f.current();
      assert.equal(run.status, 'running');
      assert.deepEqual(run.settings?.gateway, SESSION);
      assert.equal(run.settings?.maxSteps, 0);
      assert.equal(run.model, 'mcp-client');
      assert.equal(run.tenantId, TENANT);
      assert.equal(run.userId, USER);
      assert.deepEqual(run.metadata, { gateway: true });
      assert.equal(run.input, 'MCP gateway session: test-client 1.0 over stdio');
      const events = await f.events();
      assert.deepEqual(typesOf(events), ['run_started', 'run_status']);
      const [started, status] = events;
      assert.ok(started?.type === 'run_started');
      assert.equal(started.data.strategy, 'gateway');
      assert.equal(started.data.dryRun, false);
      assert.deepEqual(
        started.data.tools,
        ['lookup', 'placeOrder', 'notify', 'flaky'],
        'the tools the tenant is offered; deleteAll is denied to it',
      );
      assert.ok(status?.type === 'run_status');
      assert.deepEqual({ from: status.data.from, to: status.data.to }, { from: 'queued', to: 'running' });
      assert.equal(
        await f.store.claimRun(f.run.runId, { owner: 'someone-else', ttlMs: 1_000 }),
        undefined,
        'the gateway holds the lease',
      );
      assert.equal(await f.peer.claimRun(f.run.runId, { owner: 'another-process', ttlMs: 1_000 }), undefined);
      assert.equal(f.run.ended, false);
    });

    it('a read goes through the gate and runs: gate_decision allowed, tool_call, tool_result', async (t) => {
      const f = await setUp(t, kind.open);
      const outcome = done(await f.call('lookup', { id: '42' }));
      assert.equal(outcome.result.ok, true);
      assert.deepEqual(outcome.result.structuredContent, { id: '42', status: 'open' });
      assert.deepEqual(f.calls.lookup, [{ id: '42' }]);
      const events = eventsOf(await f.events(), outcome.toolCallId);
      assert.deepEqual(typesOf(events), ['gate_decision:allowed', 'tool_call', 'tool_result']);
      const call = events[1];
      assert.ok(call?.type === 'tool_call');
      assert.deepEqual(call.data.arguments, { id: '42' });
      assert.deepEqual(call.data.origin, { kind: 'local', server: 'shop', tool: 'lookup' });
      assert.match(outcome.toolCallId, /^call_/);
      assertWellFormed(await f.events());
    });

    it('invalid arguments are refused by the gate and the tool is never called', async (t) => {
      const f = await setUp(t, kind.open);
      const missing = done(await f.call('lookup', {}));
      assert.equal(missing.result.ok, false);
      assert.equal(missing.result.error?.code, 'invalid_arguments');
      assert.match(textOf(missing.result), /id/);
      const badEnum = done(await f.call('placeOrder', { side: 'HOLD', qty: 1 }));
      assert.equal(badEnum.result.error?.code, 'invalid_arguments', 'refused before it could wait for a person');
      assert.deepEqual(f.calls.lookup, []);
      assert.deepEqual(f.calls.placeOrder, []);
      const events = await f.events();
      for (const id of [missing.toolCallId, badEnum.toolCallId])
        assert.deepEqual(typesOf(eventsOf(events, id)), ['gate_decision:invalid', 'tool_result']);
      assert.equal((await f.current()).status, 'running');
      assertWellFormed(events);
    });

    it('a tool denied to the tenant is refused and not called; an unknown tool is not found', async (t) => {
      const f = await setUp(t, kind.open);
      const denied = done(await f.call('deleteAll', {}));
      assert.equal(denied.result.error?.code, 'denied');
      assert.deepEqual(f.calls.deleteAll, []);
      assert.deepEqual(typesOf(eventsOf(await f.events(), denied.toolCallId)), ['gate_decision:denied', 'tool_result']);
      const unknown = done(await f.call('dropTables', {}));
      assert.equal(unknown.result.error?.code, 'tool_not_found');
      assert.match(textOf(unknown.result), /available tools: .*lookup/);
      assertWellFormed(await f.events());
    });

    it('a write that needs approval is held, then runs once when approved over the runs API', async (t) => {
      const f = await setUp(t, kind.open);
      const hold = held(await f.call('placeOrder', ORDER));
      assert.equal(hold.name, 'placeOrder');
      assert.deepEqual(hold.arguments, PREPARED_ORDER, 'normalised and injected: what the person is shown');
      assert.equal(hold.effect, 'write');
      assert.equal(hold.reason, 'policy');
      assert.equal(f.run.heldOutcome(hold.toolCallId), hold.outcome);
      const waiting = await f.current();
      assert.equal(waiting.status, 'waiting_approval');
      const approvalEvent = (await f.events()).find((e) => e.type === 'approval_required');
      assert.deepEqual(waiting.pendingApproval, {
        toolCallId: hold.toolCallId,
        name: 'placeOrder',
        arguments: PREPARED_ORDER,
        effect: 'write',
        reason: 'policy',
        eventId: approvalEvent?.id ?? -1,
      });
      assert.deepEqual(f.calls.placeOrder, [], 'nothing runs before the decision');
      await submitInput(f.peer, f.run.runId, {
        type: 'approval',
        toolCallId: hold.toolCallId,
        decision: 'approve',
        userId: 'approver',
      });
      const outcome = await hold.outcome;
      assert.equal(outcome.toolCallId, hold.toolCallId);
      assert.equal(outcome.result.ok, true);
      assert.equal(textOf(outcome.result), `placed 2 BUY for ${USER}`);
      assert.deepEqual(f.calls.placeOrder, [PREPARED_ORDER]);
      const after = await f.current();
      assert.equal(after.status, 'running');
      assert.equal(after.pendingApproval, undefined);
      const events = await f.events();
      assert.deepEqual(typesOf(eventsOf(events, hold.toolCallId)), [
        'gate_decision:approval_required',
        'approval_required',
        'input_received',
        'gate_decision:allowed',
        'tool_call',
        'tool_result',
      ]);
      const allowed = eventsOf(events, hold.toolCallId).find(
        (e) => e.type === 'gate_decision' && e.data.decision === 'allowed',
      );
      assert.ok(allowed?.type === 'gate_decision');
      assert.equal(allowed.data.reason, 'approved by approver');
      assert.deepEqual(allowed.data.injected, [{ key: 'userId', overridden: false }]);
      assertWellFormed(events);
    });

    it('an edit runs with the edited arguments, validated and injected again', async (t) => {
      const f = await setUp(t, kind.open);
      const hold = held(await f.call('placeOrder', ORDER));
      // The approver cannot set the injected key either.
      await submitInput(f.peer, f.run.runId, {
        type: 'approval',
        toolCallId: hold.toolCallId,
        decision: 'edit',
        arguments: { side: 'sell', qty: 1, userId: 'mallory' },
      });
      const outcome = await hold.outcome;
      assert.equal(outcome.result.ok, true);
      assert.deepEqual(f.calls.placeOrder, [{ side: 'SELL', qty: 1, userId: USER }]);
      const events = await f.events();
      const call = eventsOf(events, hold.toolCallId).find((e) => e.type === 'tool_call');
      assert.ok(call?.type === 'tool_call');
      assert.deepEqual(call.data.arguments, { side: 'SELL', qty: 1, userId: USER });
      assertWellFormed(events);
    });

    it('an invalid edit is refused and not run', async (t) => {
      const f = await setUp(t, kind.open);
      const hold = held(await f.call('placeOrder', ORDER));
      await submitInput(f.peer, f.run.runId, {
        type: 'approval',
        toolCallId: hold.toolCallId,
        decision: 'edit',
        arguments: { side: 'SELL', qty: 0 },
      });
      const outcome = await hold.outcome;
      assert.equal(outcome.result.ok, false);
      assert.equal(outcome.result.error?.code, 'invalid_arguments');
      assert.deepEqual(f.calls.placeOrder, []);
      assert.equal((await f.current()).status, 'running');
      assertWellFormed(await f.events());
    });

    it('a rejection is not run and tells the client why', async (t) => {
      const f = await setUp(t, kind.open);
      const hold = held(await f.call('placeOrder', ORDER));
      await submitInput(f.peer, f.run.runId, {
        type: 'approval',
        toolCallId: hold.toolCallId,
        decision: 'reject',
        reason: 'too large',
      });
      const outcome = await hold.outcome;
      assert.equal(outcome.result.ok, false);
      assert.equal(outcome.result.error?.code, 'rejected');
      assert.match(textOf(outcome.result), /rejected this call to placeOrder: too large/);
      assert.deepEqual(f.calls.placeOrder, []);
      const run = await f.current();
      assert.equal(run.status, 'running');
      assert.equal(run.pendingApproval, undefined);
      assert.deepEqual(typesOf(eventsOf(await f.events(), hold.toolCallId)), [
        'gate_decision:approval_required',
        'approval_required',
        'input_received',
        'gate_decision:denied',
        'tool_result',
      ]);
      assertWellFormed(await f.events());
    });

    it('decide (an answer through the MCP client) works like the runs API; a second decision is ignored', async (t) => {
      const f = await setUp(t, kind.open);
      const hold = held(await f.call('placeOrder', ORDER));
      await f.run.decide({ type: 'approval', toolCallId: hold.toolCallId, decision: 'approve', userId: USER });
      await f.run.decide({
        type: 'approval',
        toolCallId: hold.toolCallId,
        decision: 'reject',
        reason: 'changed my mind',
      });
      const outcome = await hold.outcome;
      assert.equal(outcome.result.ok, true, 'the first decision stands');
      assert.deepEqual(f.calls.placeOrder, [PREPARED_ORDER]);
      await f.run.decide({ type: 'approval', toolCallId: hold.toolCallId, decision: 'approve' });
      assert.equal(f.calls.placeOrder.length, 1, 'run once');
      const events = await f.events();
      assert.equal(
        events.filter((e) => e.type === 'input_received').length,
        1,
        'the ignored decisions were not recorded',
      );
      assertWellFormed(events);
    });

    it('decide passes on usage errors (an edit without arguments)', async (t) => {
      const f = await setUp(t, kind.open);
      const hold = held(await f.call('placeOrder', ORDER));
      await assert.rejects(
        f.run.decide({ type: 'approval', toolCallId: hold.toolCallId, decision: 'edit' }),
        (error: unknown) => error instanceof ToolgateError && error.code === 'usage',
      );
      await f.run.decide({ type: 'approval', toolCallId: hold.toolCallId, decision: 'reject' });
      assert.equal((await hold.outcome).result.error?.code, 'rejected');
    });

    it('two writes that need approval: the second is held only once the first is decided; both complete', async (t) => {
      const f = await setUp(t, kind.open);
      const first = f.call('placeOrder', { side: 'BUY', qty: 1 });
      const second = f.call('placeOrder', { side: 'SELL', qty: 3 });
      const one = held(await Promise.race([first, second]));
      const later = (await first) === one ? second : first;
      assert.equal(await settlesWithin(later, 150), false, 'one pending approval at a time: the other waits its turn');
      assert.equal((await f.current()).pendingApproval?.toolCallId, one.toolCallId);
      await submitInput(f.peer, f.run.runId, { type: 'approval', toolCallId: one.toolCallId, decision: 'approve' });
      assert.equal((await one.outcome).result.ok, true);
      const two = held(await later);
      assert.notEqual(two.toolCallId, one.toolCallId);
      const waiting = await f.current();
      assert.equal(waiting.status, 'waiting_approval');
      assert.equal(waiting.pendingApproval?.toolCallId, two.toolCallId);
      await submitInput(f.peer, f.run.runId, { type: 'approval', toolCallId: two.toolCallId, decision: 'approve' });
      assert.equal((await two.outcome).result.ok, true);
      assert.equal(f.calls.placeOrder.length, 2);
      assert.deepEqual(f.calls.placeOrder.map((a) => a['qty']).sort(), [1, 3]);
      const events = await f.events();
      assert.equal(events.filter((e) => e.type === 'approval_required').length, 2);
      assertWellFormed(events);
    });

    it('a held call with no decision in time is refused, and the run goes back to running', async (t) => {
      const f = await setUp(t, kind.open, { approvalTimeoutMs: 200 });
      const hold = held(await f.call('placeOrder', ORDER));
      const started = Date.now();
      const outcome = await hold.outcome;
      assert.ok(Date.now() - started >= 150, 'it waited for the timeout');
      assert.equal(outcome.result.error?.code, 'rejected');
      assert.match(
        textOf(outcome.result),
        /placeOrder was not run: no decision came within \d+ m?s; the call was refused$/,
      );
      assert.deepEqual(f.calls.placeOrder, []);
      const run = await f.current();
      assert.equal(run.status, 'running');
      assert.equal(run.pendingApproval, undefined);
      await assert.rejects(
        submitInput(f.peer, f.run.runId, { type: 'approval', toolCallId: hold.toolCallId, decision: 'approve' }),
        (e: unknown) => e instanceof ToolgateError && e.code === 'conflict',
      );
      await f.run.decide({ type: 'approval', toolCallId: hold.toolCallId, decision: 'approve' });
      assert.deepEqual(f.calls.placeOrder, [], 'a late decision through the client is dropped');
      assertWellFormed(await f.events());
    });

    it('cancelHeld refuses a held call at once (the client stopped waiting)', async (t) => {
      const f = await setUp(t, kind.open);
      const hold = held(await f.call('placeOrder', ORDER));
      f.run.cancelHeld(hold.toolCallId, 'the client cancelled the request');
      const outcome = await hold.outcome;
      assert.equal(outcome.result.error?.code, 'cancelled');
      assert.match(textOf(outcome.result), /placeOrder was not run: the client cancelled the request/);
      const run = await f.current();
      assert.equal(run.status, 'running');
      assert.equal(run.pendingApproval, undefined);
      f.run.cancelHeld('call_unknown', 'nothing');
      f.run.cancelHeld(hold.toolCallId, 'again');
      assert.deepEqual(f.calls.placeOrder, []);
      assertWellFormed(await f.events());
    });

    it('a dry-run session validates writes and runs none; reads still run', async (t) => {
      const f = await setUp(t, kind.open, { dryRun: true });
      assert.equal((await f.current()).dryRun, true);
      const started = (await f.events())[0];
      assert.ok(started?.type === 'run_started');
      assert.equal(started.data.dryRun, true);
      const order = done(await f.call('placeOrder', ORDER));
      assert.equal(order.result.ok, true);
      assert.match(textOf(order.result), /^DRY RUN: placeOrder was validated .* not executed/);
      assert.deepEqual(order.result.structuredContent, { dryRun: true, tool: 'placeOrder', arguments: PREPARED_ORDER });
      const notice = done(await f.call('notify', { text: 'hi' }));
      assert.match(textOf(notice.result), /^DRY RUN/);
      assert.deepEqual(f.calls.placeOrder, []);
      assert.deepEqual(f.calls.notify, []);
      assert.equal(done(await f.call('lookup', { id: '1' })).result.ok, true);
      assert.equal(f.calls.lookup.length, 1);
      const result = eventsOf(await f.events(), order.toolCallId).find((e) => e.type === 'tool_result');
      assert.ok(result?.type === 'tool_result');
      assert.equal(result.data.dryRun, true);
      assertWellFormed(await f.events());
    });

    it(
      'refuse (a rate limit) is recorded as the gate denying ' +
        'the call, with code rate_limited; the tool is not called',
      async (t) => {
        const f = await setUp(t, kind.open);
        const asked: string[] = [];
        const refuse = (entry: { tool: { name: string } }) => {
          asked.push(entry.tool.name);
          return entry.tool.name === 'lookup'
            ? {
                code: 'rate_limited' as const,
                message: 'rate limit: tenant "acme" may make 1 call per 60 s; retry in 60 s',
              }
            : undefined;
        };
        const limited = done(await f.call('lookup', { id: '1' }, { refuse }));
        assert.equal(limited.result.ok, false);
        assert.deepEqual(limited.result.error, {
          code: 'rate_limited',
          message: 'rate limit: tenant "acme" may make 1 call per 60 s; retry in 60 s',
        });
        assert.deepEqual(f.calls.lookup, []);
        const events = eventsOf(await f.events(), limited.toolCallId);
        assert.deepEqual(typesOf(events), ['gate_decision:denied', 'tool_result']);
        const gate = events[0];
        assert.ok(gate?.type === 'gate_decision');
        assert.equal(gate.data.reason, 'rate limit: tenant "acme" may make 1 call per 60 s; retry in 60 s');
        assert.equal(gate.data.effect, 'read');
        assert.equal(
          done(await f.call('notify', { text: 'x' }, { refuse })).result.ok,
          true,
          'not refused: the call goes on through the gate',
        );
        done(await f.call('nope', {}, { refuse }));
        assert.deepEqual(asked, ['lookup', 'notify'], 'asked with the catalog entry of a known tool only');
        assertWellFormed(await f.events());
      },
    );

    it('end: completed with a summary of the calls, the lease released, no more calls', async (t) => {
      const f = await setUp(t, kind.open);
      done(await f.call('lookup', { id: '1' }));
      done(await f.call('deleteAll', {}));
      done(await f.call('flaky', {}));
      done(await f.call('lookup', {}));
      await f.run.end({ status: 'completed', reason: 'the client closed the session' });
      assert.equal(f.run.ended, true);
      const run = await f.current();
      assert.equal(run.status, 'completed');
      const summary = 'gateway session ended (the client closed the session); 4 tool calls: 1 ok, 1 failed, 2 refused';
      assert.equal(run.output, summary);
      assert.equal(run.steps, 4);
      const events = await f.events();
      const [status, completed] = events.slice(-2);
      assert.ok(status?.type === 'run_status');
      assert.deepEqual(
        { from: status.data.from, to: status.data.to, reason: status.data.reason },
        { from: 'running', to: 'completed', reason: 'the client closed the session' },
      );
      assert.ok(completed?.type === 'run_completed');
      assert.equal(completed.data.output, summary);
      assert.equal(completed.data.steps, 4);
      assert.equal(f.spy.released.length, 1, 'the lease was given back');
      assert.equal(f.spy.released[0]?.owner, 'gateway-1');
      await f.run.end({ status: 'completed', reason: 'again' });
      assert.equal((await f.events()).length, events.length, 'a second end writes nothing');
      await assert.rejects(
        f.call('lookup', { id: '2' }),
        (e: unknown) => e instanceof ToolgateError && e.code === 'conflict',
      );
      await f.run.record([draft('user_message', { text: 'after the end' })]);
      assert.equal((await f.events()).length, events.length, 'record after the end writes nothing');
      assertWellFormed(events);
    });

    it('end with a held call: the call is refused first, then the run completes', async (t) => {
      const f = await setUp(t, kind.open);
      const hold = held(await f.call('placeOrder', ORDER));
      await f.run.end({ status: 'completed', reason: 'the client went away' });
      const outcome = await hold.outcome;
      assert.equal(outcome.result.error?.code, 'cancelled');
      assert.match(textOf(outcome.result), /the session ended \(the client went away\) before a decision came/);
      assert.deepEqual(f.calls.placeOrder, []);
      const run = await f.current();
      assert.equal(run.status, 'completed');
      assert.equal(run.pendingApproval, undefined);
      assert.match(run.output ?? '', /1 tool call: 0 ok, 0 failed, 1 refused$/);
      const events = await f.events();
      const result = events.findIndex((e) => e.type === 'tool_result' && e.data.toolCallId === hold.toolCallId);
      const completed = events.findIndex((e) => e.type === 'run_completed');
      assert.ok(result !== -1 && result < completed, 'the refusal is recorded before the run completes');
      assertWellFormed(events);
    });

    it('record appends session events that are not calls', async (t) => {
      const f = await setUp(t, kind.open);
      const changed = draft('tool_changed', {
        name: 'lookup',
        server: 'shop',
        tool: 'lookup',
        fingerprint: 'new',
        pinnedFingerprint: 'old',
        pinnedAt: '2026-01-01T00:00:00.000Z',
        changes: ['description'],
      });
      await f.run.record([changed]);
      const last = (await f.events()).at(-1);
      assert.ok(last?.type === 'tool_changed');
      assert.equal(last.data.fingerprint, 'new');
    });

    it('a cancel requested through the store ends the session cancelled and refuses the held call', async (t) => {
      const f = await setUp(t, kind.open);
      done(await f.call('lookup', { id: '1' }));
      const hold = held(await f.call('placeOrder', ORDER));
      const cancelled = await engineOn(f.store, 'api-1').cancel(f.run.runId, { reason: 'operator stop' });
      assert.equal(cancelled.status, 'cancelled');
      const outcome = await hold.outcome;
      assert.equal(outcome.result.error?.code, 'cancelled');
      assert.match(textOf(outcome.result), /cancelled \(operator stop\)/);
      assert.deepEqual(f.calls.placeOrder, []);
      await until('the session knows it ended', () => f.run.ended);
      const events = await f.events();
      assert.deepEqual(typesOf(events.slice(-2)), ['run_status', 'run_cancelled']);
      const last = events.at(-1);
      assert.ok(last?.type === 'run_cancelled');
      assert.equal(last.data.reason, 'operator stop');
      assert.equal((await f.current()).pendingApproval, undefined);
      await assert.rejects(
        f.call('lookup', { id: '2' }),
        (e: unknown) => e instanceof ToolgateError && e.code === 'conflict',
      );
      assertWellFormed(events);
    });

    it('a cancel requested from another process ends the session', {}, async (t) => {
      // Processes sharing a store share the lease length: the gateway reads the log every third of it, a cancel waits
      // two.
      const f = await setUp(t, kind.open, { leaseMs: 900 });
      done(await f.call('lookup', { id: '1' }));
      const cancelled = await engineOn(f.peer, 'api-2', 900).cancel(f.run.runId, { reason: 'operator stop' });
      await until('the session ends', () => f.run.ended, 2_000);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal((await f.current()).status, 'cancelled');
    });

    it(
      'a lost session is ended by a RunEngine: session_lost, the ' +
        'unanswered write outcome_unknown, the held call cancelled',
      async (t) => {
        const f = await setUp(t, kind.open, { leaseMs: 300, notifyHangs: true });
        const inFlight = f.call('notify', { text: 'hello' });
        inFlight.catch(() => undefined);
        await until('notify was sent', () => f.calls.notify.length === 1);
        const hold = held(await f.call('placeOrder', ORDER));
        assert.equal((await f.current()).status, 'waiting_approval');
        // The gateway stalls: its lease runs out.
        f.spy.freezeRenewals();
        const engine = engineOn(f.peer, 'recovery');
        // Until the lease runs out, drive leaves the run to the gateway.
        let recovered = await engine.drive(f.run.runId);
        assert.equal(recovered.status, 'waiting_approval', 'the gateway still holds the session');
        await until(
          'the lease ran out and the engine ended the session',
          async () => (recovered = await engine.drive(f.run.runId)).status === 'failed',
        );
        assert.equal(recovered.error?.code, 'session_lost');
        assert.equal(recovered.pendingApproval, undefined);
        const events = await f.peer.readEvents(f.run.runId);
        const resultOf = (id: string) =>
          events.find((e): e is RunEvent<'tool_result'> => e.type === 'tool_result' && e.data.toolCallId === id);
        const sent = events.find((e) => e.type === 'tool_call' && e.data.name === 'notify');
        assert.ok(sent?.type === 'tool_call');
        const unknown = resultOf(sent.data.toolCallId);
        assert.equal(unknown?.data.error?.code, 'outcome_unknown');
        assert.match(unknown?.data.error?.message ?? '', /notify was sent .* MAY HAVE EXECUTED/);
        const refused = resultOf(hold.toolCallId);
        assert.equal(refused?.data.error?.code, 'cancelled');
        assert.match(
          refused?.data.error?.message ?? '',
          /placeOrder was waiting for approval when the gateway went away; it was not run/,
        );
        const [status, failed] = events.slice(-2);
        assert.ok(status?.type === 'run_status');
        assert.deepEqual({ from: status.data.from, to: status.data.to }, { from: 'waiting_approval', to: 'failed' });
        assert.ok(failed?.type === 'run_failed');
        assert.equal(failed.data.error.code, 'session_lost');
        assertWellFormed(events);
        // The stalled gateway, waking, writes nothing more: its held call and its call in flight end without touching
        // the
        // log.
        assert.equal((await hold.outcome).result.error?.code, 'cancelled');
        f.spy.thaw();
        await until('the gateway noticed it lost the session', () => f.run.ended);
        await assert.rejects(
          inFlight,
          (e: unknown) => e instanceof ToolgateError && (e.code === 'lease_lost' || e.code === 'conflict'),
        );
        assert.equal((await f.peer.readEvents(f.run.runId)).length, events.length);
        await assert.rejects(
          f.call('lookup', { id: '1' }),
          (e: unknown) => e instanceof ToolgateError && e.code === 'conflict',
        );
      },
    );

    it('a lost session waiting on approval is ended by the gateway sweep, once its lease has expired', async (t) => {
      const f = await setUp(t, kind.open, { leaseMs: 300 });
      const hold = held(await f.call('placeOrder', ORDER));
      assert.deepEqual(
        await sweepLostGatewaySessions(f.peer, { owner: 'sweeper', ttlMs: 300 }),
        [],
        'not while the gateway holds the lease',
      );
      f.spy.freezeRenewals();
      await sleep(450);
      assert.deepEqual(await sweepLostGatewaySessions(f.peer, { owner: 'sweeper', ttlMs: 300 }), [f.run.runId]);
      const run = await f.peer.getRun(f.run.runId);
      assert.equal(run?.error?.code, 'session_lost');
      assert.equal(run?.pendingApproval, undefined);
      const events = await f.peer.readEvents(f.run.runId);
      const refused = events.find((e) => e.type === 'tool_result' && e.data.toolCallId === hold.toolCallId);
      assert.ok(refused?.type === 'tool_result' && refused.data.error?.code === 'cancelled');
      assertWellFormed(events);
    });

    it('a lost session with nothing held is swept up by claimNext and fails session_lost', async (t) => {
      const f = await setUp(t, kind.open, { leaseMs: 300 });
      done(await f.call('lookup', { id: '1' }));
      f.spy.freezeRenewals();
      const engine = engineOn(f.peer, 'recovery');
      assert.deepEqual(await engine.claimNext(10), [], 'not while the gateway holds the lease');
      let leases: RunLease[] = [];
      await until('the sweep claims the session', async () => (leases = await engine.claimNext(10)).length > 0);
      assert.deepEqual(
        leases.map((l) => l.runId),
        [f.run.runId],
      );
      const run = await engine.drive(f.run.runId, { lease: leases[0] });
      assert.equal(run.status, 'failed');
      assert.equal(run.error?.code, 'session_lost');
      assert.match(run.error?.message ?? '', /gateway process serving this MCP session went away/);
      const events = await f.peer.readEvents(f.run.runId);
      assert.deepEqual(typesOf(events.slice(-2)), ['run_status', 'run_failed']);
      assertWellFormed(events);
    });
  });
}
