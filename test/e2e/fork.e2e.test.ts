// Forking a run (POST /v1/runs/{id}/fork) on real stores: a `toolgate serve`
// process on a SQLite file, and on a PostgreSQL database, with the mock model and
// the power-exchange MCP server (its --state file says what the venue received).
// A fork continues from the chosen event under its own settings — the model's next
// request holds the copied conversation, tool result included — and the original
// stays byte for byte as it was; a fork at a pending approval waits for a person
// again; a write in flight at the cut is an unknown outcome, never sent again.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolgateClient } from '../../src/client/index.ts';
import type { Run, RunEvent, RunStatus } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';
import { startServe, type StartedProcess } from '../support/processes.ts';
import { mockTradingYaml } from '../support/trading-config.ts';

const KEY = 'acme-fork-key-0123456789';
// Below alice's resting sell order (86.5), so the venue takes it without crossing her own book.
const ORDER = '{"side":"BUY","price":80,"qty":1,"symbol":"DE-BASE-D+1"}';
const WAIT_MS = 20_000;

interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: { function: { name: string } }[];
}

function modelFor(request: RecordedRequest): {
  text: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
} {
  const messages = request.body.messages as WireMessage[];
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const lastTool = [...messages].reverse().find((m) => m.role === 'tool')?.content ?? '';
  if (prompt.startsWith('book')) {
    if (turn === 0)
      return { text: 'Reading the book.', toolCalls: [{ id: 'b1', name: 'getOrderBook', arguments: '{}' }] };
    return { text: `The book is read (${lastTool.length} characters).` };
  }
  if (turn === 0)
    return { text: 'Placing the order.', toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: ORDER }] };
  return { text: /rejected|not approved/i.test(lastTool) ? 'No order was placed.' : 'Your order is placed.' };
}

/** The suite, on a server whose store `storeFor` names. */
function forkSuite(name: string, options: { skip: string | false; store: (dir: string) => Promise<string> }): void {
  describe(name, { skip: options.skip, timeout: 120_000 }, () => {
    let dir: string;
    let mock: MockOpenAI;
    let server: StartedProcess & { url: string };
    let client: ToolgateClient;
    const databases: string[] = [];

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'toolgate-fork-'));
      mock = await startMockOpenAI({ handler: modelFor });
      const store = await options.store(dir);
      if (store.startsWith('postgres')) databases.push(new URL(store).pathname.slice(1));
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        `${mockTradingYaml({ modelUrl: mock.url, stateFile: join(dir, 'venue.json') })}tools:
  "power-exchange/placeOrder": { approval: required, inject: { userId: "{{user.id}}" } }
tenants:
  acme:
    apiKeys: [{ key: "${KEY}", userId: alice }]
server:
  store: ${JSON.stringify(store)}
`,
      );
      server = await startServe({ cwd: dir });
      client = new ToolgateClient({ url: server.url, apiKey: KEY });
    });

    after(async () => {
      await server?.stop();
      await mock?.close();
      for (const database of databases) await dropDatabase(database);
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    async function settle(runId: string, statuses: readonly RunStatus[]): Promise<Run> {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const run = await client.getRun(runId);
        if (statuses.includes(run.status)) return run;
        if (Date.now() > deadline) assert.fail(`run ${runId} is ${run.status}, not ${statuses.join(' or ')}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    const ENDED: RunStatus[] = ['completed', 'failed', 'cancelled'];

    /** Orders the venue holds for alice, as its state file has them. */
    function venueOrders(): number {
      const path = join(dir, 'venue.json');
      if (!existsSync(path)) return 0;
      const state = JSON.parse(readFileSync(path, 'utf8')) as { exchange: { orders: { userId: string }[] } };
      return state.exchange.orders.filter((o) => o.userId === 'alice').length;
    }

    /** The run's row and log as a client reads them, as text: what must not change. */
    async function snapshot(runId: string): Promise<string> {
      return JSON.stringify([await client.getRun(runId), await client.readEvents(runId)]);
    }

    /** A completed order run: placeOrder approved and placed. */
    async function placedOrder(): Promise<{ run: Run; events: RunEvent[] }> {
      const started = await client.createRun({ input: `order one MWh ${Math.random()}` });
      const waiting = await settle(started.id, ['waiting_approval', ...ENDED]);
      assert.equal(waiting.pendingApproval?.name, 'placeOrder');
      await client.approve(started.id, { toolCallId: waiting.pendingApproval.toolCallId });
      const run = await settle(started.id, ENDED);
      assert.equal(run.output, 'Your order is placed.', JSON.stringify(run.error));
      return { run, events: await client.readEvents(run.id) };
    }

    it(
      'a fork after the first tool_result goes on live from there under a new strategy and maxSteps: the ' +
        "model's next request holds the copied conversation, tool result included; the original is unchanged",
      async () => {
        const started = await client.createRun({ input: 'book: how deep is it?' });
        const original = await settle(started.id, ENDED);
        assert.equal(original.status, 'completed', JSON.stringify(original.error));
        const events = await client.readEvents(original.id);
        const result = ofType(events, 'tool_result')[0];
        assert.ok(result !== undefined && result.data.ok, 'the book was read');
        const bookText = result.data.content.map((c) => ('text' in c ? c.text : '')).join('');
        const before = await snapshot(original.id);
        const asked = mock.requests.length;

        const fork = await client.fork(original.id, {
          afterEventId: result.id,
          settings: { strategy: 'reflect', maxSteps: 6 },
        });
        assert.deepEqual(fork.metadata?.['forkOf'], { runId: original.id, afterEventId: result.id });
        assert.equal(fork.settings?.strategy, 'reflect');
        assert.equal(fork.settings?.maxSteps, 6);
        const done = await settle(fork.id, ENDED);
        assert.equal(done.status, 'completed', JSON.stringify(done.error));
        assert.equal(done.output, `The book is read (${bookText.length} characters).`);

        const forkRequests = mock.requests.slice(asked);
        assert.equal(forkRequests.length, 1, 'the model was asked once more: for the turn after the result');
        const messages = (forkRequests[0]?.body.messages ?? []) as WireMessage[];
        assert.deepEqual(
          messages.filter((m) => m.role !== 'system').map((m) => m.role),
          ['user', 'assistant', 'tool'],
        );
        assert.equal(messages.find((m) => m.role === 'tool')?.content, bookText, 'the copied result');
        assert.equal(messages.find((m) => m.role === 'assistant')?.tool_calls?.[0]?.function.name, 'getOrderBook');

        const log = await client.readEvents(fork.id);
        const forked = ofType(log, 'run_forked')[0];
        assert.deepEqual(forked?.data, {
          from: original.id,
          afterEventId: result.id,
          settings: { strategy: 'reflect', maxSteps: 6 },
        });
        assert.equal(ofType(log, 'tool_call').length, 1, 'the read is not made again');
        assert.ok(
          ofType(log, 'assistant_message').some((e) => e.id > (forked?.id ?? Infinity)),
          'the next turn is live',
        );
        assert.equal(await snapshot(original.id), before, 'the original, byte for byte');
      },
    );

    it(
      'a fork at the approval the original waited on waits for a person again; ' + 'rejected there, nothing is sent',
      async () => {
        const ordersBefore = venueOrders();
        const { run: original, events } = await placedOrder();
        const before = await snapshot(original.id);
        const asked = ofType(events, 'approval_required')[0];
        assert.ok(asked !== undefined);
        const fork = await client.fork(original.id, { afterEventId: asked.id });
        const waiting = await settle(fork.id, ['waiting_approval', ...ENDED]);
        assert.equal(waiting.status, 'waiting_approval');
        assert.equal(waiting.pendingApproval?.toolCallId, asked.data.toolCallId);
        assert.equal(waiting.pendingApproval?.reason, 'policy');
        await client.reject(fork.id, { toolCallId: asked.data.toolCallId, reason: 'not in the fork' });
        const done = await settle(fork.id, ENDED);
        assert.equal(done.output, 'No order was placed.');
        assert.equal(
          ofType(await client.readEvents(fork.id), 'tool_call').length,
          0,
          'placeOrder never ran in the fork',
        );
        assert.equal(venueOrders(), ordersBefore + 1, "the venue has the original's order only");
        assert.equal(await snapshot(original.id), before);
      },
    );

    it(
      'a write in flight at the cut is an unknown outcome: a person is asked, ' + 'the order is never sent again',
      async () => {
        const { run: original, events } = await placedOrder();
        const ordersAfterOriginal = venueOrders();
        const call = ofType(events, 'tool_call').find((e) => e.data.name === 'placeOrder');
        assert.ok(call !== undefined);
        const fork = await client.fork(original.id, { afterEventId: call.id });
        const waiting = await settle(fork.id, ['waiting_approval', ...ENDED]);
        assert.equal(waiting.status, 'waiting_approval', JSON.stringify(waiting.error));
        assert.equal(waiting.pendingApproval?.reason, 'outcome_unknown');
        assert.equal(waiting.pendingApproval?.toolCallId, call.data.toolCallId);
        await client.markDone(fork.id, { toolCallId: call.data.toolCallId, result: 'the original placed it' });
        const done = await settle(fork.id, ENDED);
        assert.equal(done.status, 'completed', JSON.stringify(done.error));
        const log = await client.readEvents(fork.id);
        const forkedAt = ofType(log, 'run_forked')[0]?.id ?? 0;
        assert.deepEqual(
          ofType(log, 'tool_call').map((e) => e.id < forkedAt),
          [true],
          'only the copied call: the fork sent nothing',
        );
        assert.equal(ofType(log, 'tool_result').at(-1)?.data.markedDone, true);
        assert.equal(venueOrders(), ordersAfterOriginal, 'the venue received nothing from the fork');
      },
    );

    it('refuses a point after the end, naming the valid range, and writes nothing', async () => {
      const { run: original } = await placedOrder();
      const before = await snapshot(original.id);
      const error = await client.fork(original.id, { afterEventId: original.lastEventId }).catch((e: unknown) => e);
      assert.ok(error instanceof Error && 'status' in error && error.status === 400, String(error));
      assert.match(
        error.message,
        /after event (\d+) \(event \1 ends the run\); afterEventId must be from \d+ \(its first user message\) to \d+/,
      );
      assert.equal(await snapshot(original.id), before);
    });
  });
}

forkSuite('forking runs on a SQLite store (toolgate serve)', {
  skip: false,
  store: async (dir) => `sqlite:${join(dir, 'runs.db')}`,
});

const created: string[] = [];
forkSuite('forking runs on a PostgreSQL store (toolgate serve)', {
  skip: postgresSkip(),
  store: async () => createDatabase('toolgate_fork', created),
});
