// toolgate/client against a real `toolgate serve`: a SQLite file in a temporary folder, the power-exchange MCP
// server (its state file shows which orders really ran), the mock model. Create and follow, a held write approved,
// rejected or edited, cancel, pages of runs, errors as the server says them, and a follow whose SSE connection is cut
// mid-run (through a TCP proxy) that still hands over every event exactly once, in order.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolgateApiError, ToolgateClient, type ConnectionChange, type RunEvent } from '../../src/entries/client.ts';
import { startTcpProxy, type TcpProxy } from '../support/browser.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, startServe, type StartedProcess } from '../support/processes.ts';

const KEY = 'acme-client-key-0123456789';

/** "order P" bids 1 MWh for bob at price P, then repeats what the tool said; "slow …" reads the slow book. */
function model(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string | null }[];
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  if (messages.some((m) => m.role === 'tool'))
    return { text: `Told: ${messages.findLast((m) => m.role === 'tool')?.content ?? ''}`, chunkDelayMs: 5 };
  const price = /^order (\d+(\.\d+)?)/.exec(prompt)?.[1];
  if (price !== undefined) {
    const order = `{"userId":"bob","side":"BUY","price":${price},"qty":1,"symbol":"DE-BASE-D+1"}`;
    return { toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: order }] };
  }
  return {
    toolCalls: [{ id: 'r1', name: prompt.startsWith('slow') ? 'getOrderBook' : 'getMarketMetrics', arguments: '{}' }],
  };
}

async function all(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Follows until the run waits for a decision; the approval_required event. */
async function untilApproval(client: ToolgateClient, runId: string): Promise<RunEvent<'approval_required'>> {
  for await (const event of client.events(runId)) {
    if (event.type === 'approval_required') return event;
    assert.ok(!['run_completed', 'run_failed', 'run_cancelled'].includes(event.type), `ended: ${event.type}`);
  }
  assert.fail(`run ${runId} ended without waiting for approval`);
}

describe('toolgate/client against a real server', { timeout: 120_000 }, () => {
  let mock: MockOpenAI;
  let dir: string;
  let server: StartedProcess & { url: string };
  let client: ToolgateClient;
  const state = (): string => join(dir, 'venue.json');
  /** Bob's orders at this price at the venue (0 when the venue never saved: nothing was written). */
  const ordersAt = (price: number): number => {
    if (!existsSync(state())) return 0;
    const venue = JSON.parse(readFileSync(state(), 'utf8')) as {
      exchange: { orders: { userId: string; priceCents: number }[] };
    };
    return venue.exchange.orders.filter((o) => o.userId === 'bob' && o.priceCents === Math.round(price * 100)).length;
  };

  before(async () => {
    mock = await startMockOpenAI({ handler: model });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-client-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: openai:mock\nproviders:\n  openai: { baseUrl: "${mock.url}", maxRetries: 0 }\n` +
        `tenants:\n  acme:\n    apiKeys: ["${KEY}"]\nservers:\n  power-exchange:\n` +
        `    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}, ` +
        `--state, ${JSON.stringify(state())}, --delay, getOrderBook=1500]\n`,
    );
    server = await startServe({ cwd: dir, args: ['--store', `sqlite:${join(dir, 'runs.db')}`] });
    client = new ToolgateClient({ url: server.url, apiKey: KEY });
  });
  after(async () => {
    await server?.stop();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a run and follows it to the end: the events of the log, in order, then the iterator ends', async () => {
    const created = await client.createRun({ input: 'how is the market?' }, { idempotencyKey: 'market-1' });
    assert.equal(created.status, 'queued');
    const followed = await all(client.events(created.id));
    const stored = await client.readEvents(created.id);
    assert.deepEqual(followed, stored);
    assert.deepEqual(
      followed.map((e) => e.id),
      stored.map((_, i) => i + 1),
    );
    assert.equal(followed.at(-1)?.type, 'run_completed');
    const run = await client.getRun(created.id);
    assert.equal(run.status, 'completed');
    assert.match(run.output ?? '', /^Told: /);
    assert.deepEqual(await client.readEvents(created.id, { after: stored.length - 1 }), stored.slice(-1));
    const again = await client.createRun({ input: 'how is the market?' }, { idempotencyKey: 'market-1' });
    assert.equal(again.id, created.id, 'the same key and body: the same run');
  });

  it('a held write is approved: the run completes and the venue has the order exactly once', async () => {
    const run = await client.createRun({ input: 'order 41.5' });
    const held = await untilApproval(client, run.id);
    assert.equal(held.data.name, 'placeOrder');
    assert.equal((await client.getRun(run.id)).pendingApproval?.toolCallId, held.data.toolCallId);
    assert.equal(ordersAt(41.5), 0);
    const decided = await client.approve(run.id, { toolCallId: held.data.toolCallId, reason: 'within limits' });
    assert.equal(decided.pendingApproval, undefined);
    const rest = await all(client.events(run.id, { after: held.id }));
    assert.equal(rest[0]?.id, held.id + 1);
    assert.equal(rest.at(-1)?.type, 'run_completed');
    assert.equal(ordersAt(41.5), 1);
    assert.equal((await client.getRun(run.id)).status, 'completed');
  });

  it('reject: nothing is executed and the model is told why', async () => {
    const run = await client.createRun({ input: 'order 42.5' });
    const held = await untilApproval(client, run.id);
    await client.reject(run.id, { toolCallId: held.data.toolCallId, reason: 'limit is 5 MWh' });
    const rest = await all(client.events(run.id, { after: held.id }));
    assert.equal(rest.at(-1)?.type, 'run_completed');
    assert.match((await client.getRun(run.id)).output ?? '', /limit is 5 MWh/);
    assert.equal(ordersAt(42.5), 0);
  });

  it('edit: the call runs with the arguments a person gave', async () => {
    const run = await client.createRun({ input: 'order 43.5' });
    const held = await untilApproval(client, run.id);
    const edited = { ...held.data.arguments, qty: 3 };
    await client.edit(run.id, { toolCallId: held.data.toolCallId, arguments: edited });
    const rest = await all(client.events(run.id, { after: held.id }));
    const call = rest.find((e): e is RunEvent<'tool_call'> => e.type === 'tool_call');
    assert.equal(call?.data.arguments['qty'], 3);
    assert.equal(rest.at(-1)?.type, 'run_completed');
    assert.equal(ordersAt(43.5), 1);
  });

  it('cancel ends a waiting run with the reason; a follower sees run_cancelled and ends', async () => {
    const run = await client.createRun({ input: 'order 44.5' });
    const held = await untilApproval(client, run.id);
    const following = all(client.events(run.id, { after: held.id }));
    const cancelled = await client.cancel(run.id, { reason: 'wrong account' });
    assert.equal(cancelled.status, 'cancelled');
    const rest = await following;
    const ended = rest.at(-1);
    assert.equal(ended?.type, 'run_cancelled');
    assert.equal(ended.type === 'run_cancelled' ? ended.data.reason : undefined, 'wrong account');
    assert.equal(ordersAt(44.5), 0);
    await assert.rejects(client.cancel(run.id), (e: unknown) => e instanceof ToolgateApiError && e.code === 'conflict');
  });

  it('lists runs page by page with a cursor; listAllRuns follows it to the last run', async () => {
    const first = await client.listRuns({ limit: 2 });
    assert.equal(first.runs.length, 2);
    assert.ok(first.nextCursor !== undefined);
    const second = await client.listRuns({ limit: 2, cursor: first.nextCursor });
    assert.ok(second.runs.length > 0);
    assert.equal(
      new Set([...first.runs, ...second.runs].map((r) => r.id)).size,
      first.runs.length + second.runs.length,
    );
    const ids: string[] = [];
    for await (const run of client.listAllRuns({ limit: 2 })) ids.push(run.id);
    assert.ok(ids.length >= 5, `every run so far: ${ids.join(', ')}`);
    assert.equal(new Set(ids).size, ids.length, 'no run twice');
    assert.deepEqual(
      ids.slice(0, 4),
      [...first.runs, ...second.runs].map((r) => r.id),
    );
    const cancelled = await client.listRuns({ status: 'cancelled', fields: ['status', 'input'] });
    assert.deepEqual([...new Set(cancelled.runs.map((r) => r.status))], ['cancelled']);
    assert.equal(cancelled.runs[0]?.model, undefined, 'only the fields asked for');
  });

  it("says the server's errors: a wrong key, a run not found, a bad body, a decision for no pending call", async () => {
    const stranger = new ToolgateClient({ url: server.url, apiKey: 'not-the-key' });
    await assert.rejects(stranger.listRuns(), (e: unknown) => {
      assert.ok(e instanceof ToolgateApiError);
      assert.equal(e.status, 401);
      assert.equal(e.code, 'unauthorized');
      return true;
    });
    await assert.rejects(client.getRun('run_nope'), (e: unknown) => {
      assert.ok(e instanceof ToolgateApiError);
      assert.deepEqual([e.status, e.code, e.runId], [404, 'not_found', 'run_nope']);
      return true;
    });
    await assert.rejects(client.createRun({ input: 'x', maxSteps: 0 }), (e: unknown) => {
      assert.ok(e instanceof ToolgateApiError);
      assert.deepEqual([e.status, e.code], [400, 'usage']);
      assert.match(e.message, /maxSteps/);
      return true;
    });
    const [done] = (await client.listRuns({ status: 'completed', limit: 1 })).runs;
    await assert.rejects(client.approve(done?.id ?? '', { toolCallId: 'o1' }), (e: unknown) => {
      assert.ok(e instanceof ToolgateApiError);
      assert.deepEqual([e.status, e.code], [409, 'conflict']);
      return true;
    });
    const tools = await client.listTools();
    assert.ok(tools.tools.some((t) => t.name === 'placeOrder' && t.effect === 'write'));
    assert.deepEqual((await client.listModels()).default, 'openai:mock');
  });

  describe('through a connection that is cut mid-run', () => {
    let proxy: TcpProxy;
    before(async () => {
      proxy = await startTcpProxy(server.url);
    });
    after(() => proxy.close());

    it('resumes with Last-Event-ID: every event exactly once, in order, until the end', async () => {
      const viaProxy = new ToolgateClient({ url: proxy.url, apiKey: KEY });
      const run = await viaProxy.createRun({ input: 'slow book please' });
      const changes: ConnectionChange[] = [];
      const seen: RunEvent[] = [];
      let cuts = 0;
      for await (const event of viaProxy.events(run.id, { onConnection: (c) => changes.push(c) })) {
        seen.push(event);
        // The book takes 1.5 s: cut the stream while the tool runs.
        if (event.type === 'tool_call' && cuts === 0) {
          cuts = proxy.cut(new RegExp(`GET /v1/runs/${run.id}/events`));
          assert.equal(cuts, 1, 'the SSE connection was open');
        }
      }
      const stored = await client.readEvents(run.id);
      assert.deepEqual(seen, stored, 'every event once, in order');
      assert.equal(seen.at(-1)?.type, 'run_completed');
      const retried = changes.filter((c) => c.state === 'retrying');
      assert.equal(retried.length, 1, JSON.stringify(changes));
      const resumedAfter = seen.findIndex((e) => e.type === 'tool_call') + 1;
      assert.equal(retried[0]?.after, resumedAfter, 'resumed after the last event handed over');
      assert.ok(
        seen.slice(resumedAfter).length > 0,
        'events came after the cut: the tool result and the answer, on the new connection',
      );
      assert.equal((await viaProxy.getRun(run.id)).status, 'completed');
    });
  });
});
