// Writes whose outcome is unknown, end to end: real power-exchange processes
// (stdio and Streamable HTTP) that finish a call after its client gave up, the
// real OpenAI adapter against a mock model that — like many models — retries a
// failed call under a new id. A write that was sent and got no answer must
// never be repeated silently: a person decides (or the model is told it may
// have happened); a write that certainly never left is an ordinary failure.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Toolgate } from '../../src/app/toolgate.ts';
import type { ServerConfig, ToolgateConfig } from '../../src/config/config-schema.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import type { JsonObject, RunEvent, RunStore } from '../../src/core/index.ts';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.ts';
import { callIdOf, ofType } from '../support/events.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, freePort, startProcess, type StartedProcess } from '../support/processes.ts';

const SERVER = 'power-exchange';
const USER = 'carol';
const ORDER: JsonObject = { userId: USER, side: 'BUY', price: 50, qty: 1, symbol: 'DE-BASE-D+1' };
/** Well above any delay used here, well below the runner's per-test limit. */
const TEST_TIMEOUT_MS = 15_000;
/** The venue's --delay for slow tools, and the gate's timeout that gives up first. */
const VENUE_DELAY_MS = 1500;
const SHORT_TIMEOUT_MS = 300;
/** How the MCP source words a call abandoned at SHORT_TIMEOUT_MS. */
const TIMED_OUT = new RegExp(`did not answer within ${SHORT_TIMEOUT_MS} ms`);

const stdioExchange = (...extra: string[]): ServerConfig => ({
  command: process.execPath,
  args: [POWER_EXCHANGE_SERVER, ...extra],
});

interface VenueStats {
  received: Record<string, number>;
  executed: Record<string, number>;
  deduplicated: number;
}

interface WireMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
}

function toolgateFor(options: {
  mock: MockOpenAI;
  servers: Record<string, ServerConfig>;
  tools?: ToolgateConfig['tools'];
  store?: RunStore;
}): Toolgate {
  const settings = resolveSettings(
    {
      model: 'openai:mock-model',
      providers: { openai: { baseUrl: options.mock.url, apiKey: 'test-key', maxRetries: 0 } },
      servers: options.servers,
      ...(options.tools === undefined ? {} : { tools: options.tools }),
    },
    {},
    {},
  );
  return new Toolgate({ settings, ...(options.store === undefined ? {} : { store: options.store }) });
}

/** The venue's own counters, read through the toolgate's registry (no gate, no run). */
async function venueStats(toolgate: Toolgate): Promise<VenueStats> {
  const result = await toolgate.tools.callTool({ name: 'getServerStats', arguments: {} });
  assert.equal(result.ok, true, JSON.stringify(result.error));
  return result.structuredContent as unknown as VenueStats;
}

async function userOrders(toolgate: Toolgate, userId: string): Promise<{ id: string; side: string; status: string }[]> {
  const result = await toolgate.tools.callTool({ name: 'getUserOrders', arguments: { userId, status: 'all' } });
  assert.equal(result.ok, true, JSON.stringify(result.error));
  return (result.structuredContent as unknown as { orders: { id: string; side: string; status: string }[] }).orders;
}

async function registerUser(toolgate: Toolgate, userId: string): Promise<void> {
  const result = await toolgate.tools.callTool({ name: 'registerUser', arguments: { userId } });
  assert.equal(result.ok, true, JSON.stringify(result.error));
}

/** Polls the venue until `done` holds (the late execution of an abandoned call), or fails after `timeoutMs`. */
async function waitForVenue(
  toolgate: Toolgate,
  done: (stats: VenueStats) => boolean,
  timeoutMs = 5000,
): Promise<VenueStats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stats = await venueStats(toolgate);
    if (done(stats)) return stats;
    if (Date.now() > deadline)
      assert.fail(`the venue did not reach the expected state within ${timeoutMs} ms: ${JSON.stringify(stats)}`);
    await sleep(100);
  }
}

function messagesOf(request: RecordedRequest | undefined): WireMessage[] {
  return (request?.body as { messages?: WireMessage[] } | undefined)?.messages ?? [];
}

/** The tool message the model was sent for one of its calls (by the model's own call id). */
function toolMessage(request: RecordedRequest | undefined, providerId: string): string {
  const message = messagesOf(request).find((m) => m.role === 'tool' && m.tool_call_id === providerId);
  assert.ok(message !== undefined, `the request carries no tool message for ${providerId}`);
  return message.content ?? '';
}

/**
 * A model that places one order and retries it (new call id, so a new
 * idempotency key) when the result is an error — at most twice — unless the
 * result says the call happened, may have happened, or was rejected by a
 * person. Exactly the model that placed two orders before the fix.
 */
function retryingTrader(request: RecordedRequest): MockResponse {
  const messages = messagesOf(request);
  const last = messages.at(-1);
  const attempts = messages.filter((m) => m.role === 'assistant').length;
  const place = (id: string): MockResponse => ({
    toolCalls: [{ id, name: 'placeOrder', arguments: JSON.stringify(ORDER) }],
  });
  if (last?.role !== 'tool') return place('po1');
  const content = last.content ?? '';
  const failed = content.startsWith('Error (');
  if (!failed || /did happen|MAY HAVE EXECUTED|rejected/.test(content) || attempts >= 2)
    return { text: `Finished after ${attempts} attempt(s).` };
  return place(`po${attempts + 1}`);
}

/** Events appended to the log so far, read from the store (the single source of truth). */
function readLog(toolgate: Toolgate, runId: string): Promise<RunEvent[]> {
  return toolgate.store.readEvents(runId);
}

async function startHttpExchange(extra: string[], port = 0): Promise<StartedProcess & { url: string }> {
  const started = await startProcess({
    command: process.execPath,
    args: [POWER_EXCHANGE_SERVER, '--http', String(port), ...extra],
    ready: /listening on (http:\/\/\S+)/,
  });
  return { ...started, url: started.match[1] ?? '' };
}

describe('unknown outcomes e2e', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-unknown-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'a timed-out write waits for a person; the venue executes ' +
      'it once, late; mark_done records it without a second order',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const mock = await startMockOpenAI({ handler: retryingTrader });
      const toolgate = toolgateFor({
        mock,
        servers: { [SERVER]: stdioExchange('--delay', `placeOrder=${VENUE_DELAY_MS}`) },
        tools: { [`${SERVER}/placeOrder`]: { approval: 'never', timeoutMs: SHORT_TIMEOUT_MS } },
      });
      try {
        await registerUser(toolgate, USER);
        let run = await toolgate.run({ input: 'Buy 1 MWh at 50 for carol' });

        assert.equal(run.status, 'waiting_approval', JSON.stringify(run.error));
        let log = await readLog(toolgate, run.id);
        const callId = callIdOf(log, 'po1');
        assert.equal(run.pendingApproval?.toolCallId, callId);
        assert.equal(run.pendingApproval?.reason, 'outcome_unknown');
        assert.match(run.pendingApproval?.detail ?? '', TIMED_OUT);
        const asked = ofType(log, 'approval_required');
        assert.equal(asked.length, 1);
        assert.equal(asked[0]?.data.reason, 'outcome_unknown');
        assert.equal(asked[0]?.data.toolCallId, callId);
        assert.match(asked[0]?.data.detail ?? '', TIMED_OUT);
        assert.deepEqual(asked[0]?.data.arguments, ORDER);
        assert.equal(log.at(-1)?.type, 'approval_required', 'the run stops at the question');
        assert.equal(
          ofType(log, 'tool_call').filter((e) => e.data.toolCallId === callId).length,
          1,
          'the call was sent once',
        );
        assert.equal(ofType(log, 'tool_result').length, 0, 'no result: nobody knows whether the order exists');
        assert.equal(mock.requests.length, 1, 'the model was not asked again, so it could not retry');

        // The venue finishes the abandoned call after its delay, once.
        const late = await waitForVenue(toolgate, (s) => (s.executed['placeOrder'] ?? 0) >= 1);
        assert.equal(late.received['placeOrder'], 1);
        assert.equal(late.executed['placeOrder'], 1);
        const orders = await userOrders(toolgate, USER);
        assert.equal(orders.length, 1, 'the order exists although toolgate saw a timeout');
        const orderId = orders[0]?.id ?? '';

        // A person looks at the venue, sees the order and says so.
        const seen = `venue shows order ${orderId} for ${USER}`;
        run = await toolgate.submitInput(run.id, {
          type: 'approval',
          toolCallId: callId,
          decision: 'mark_done',
          result: seen,
          userId: 'ops',
        });

        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        log = await readLog(toolgate, run.id);
        const results = ofType(log, 'tool_result').filter((e) => e.data.toolCallId === callId);
        assert.equal(results.length, 1);
        assert.equal(results[0]?.data.ok, true);
        assert.equal(results[0]?.data.markedDone, true);
        assert.equal(results[0]?.data.structuredContent, seen);
        assert.equal(
          ofType(log, 'tool_call').filter((e) => e.data.toolCallId === callId).length,
          1,
          'mark_done executes nothing',
        );
        assert.equal(mock.requests.length, 2);
        const told = toolMessage(mock.requests[1], 'po1');
        assert.match(told, /ops confirmed that this call to placeOrder did happen; it was not executed again/);
        assert.ok(told.includes(seen), `the model sees what the person saw: ${told}`);
        assert.equal(run.output, 'Finished after 1 attempt(s).');

        const final = await venueStats(toolgate);
        assert.equal(final.received['placeOrder'], 1);
        assert.equal(final.executed['placeOrder'], 1);
        assert.equal((await userOrders(toolgate, USER)).length, 1);
      } finally {
        await toolgate.close();
        await mock.close();
      }
    },
  );

  it(
    'approve after an unknown outcome sends the same idempotency key: the venue replays the first answer, one order',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      // The venue applies its delay to a replay too, so a retry under the same
      // 300 ms timeout would time out again (and ask again). The operator raises
      // the timeout before approving: a second toolgate on the same store and
      // the same (HTTP) venue, as after a restart with a changed config.
      const venue = await startHttpExchange(['--delay', `placeOrder=${VENUE_DELAY_MS}`]);
      const mock = await startMockOpenAI({ handler: retryingTrader });
      const store = new MemoryRunStore();
      const impatient = toolgateFor({
        mock,
        store,
        servers: { [SERVER]: { url: venue.url } },
        tools: { [`${SERVER}/placeOrder`]: { approval: 'never', timeoutMs: SHORT_TIMEOUT_MS } },
      });
      const patient = toolgateFor({
        mock,
        store,
        servers: { [SERVER]: { url: venue.url } },
        tools: { [`${SERVER}/placeOrder`]: { approval: 'never', timeoutMs: 5000 } },
      });
      try {
        await registerUser(impatient, USER);
        let run = await impatient.run({ input: 'Buy 1 MWh at 50 for carol' });
        assert.equal(run.status, 'waiting_approval', JSON.stringify(run.error));
        assert.equal(run.pendingApproval?.reason, 'outcome_unknown');
        const callId = callIdOf(await readLog(impatient, run.id), 'po1');
        await waitForVenue(impatient, (s) => (s.executed['placeOrder'] ?? 0) >= 1);
        assert.equal(mock.requests.length, 1, 'no retry by the model');

        run = await patient.submitInput(run.id, {
          type: 'approval',
          toolCallId: callId,
          decision: 'approve',
          userId: 'ops',
        });

        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        const log = await readLog(patient, run.id);
        const calls = ofType(log, 'tool_call').filter((e) => e.data.toolCallId === callId);
        assert.equal(calls.length, 2, 'sent twice, under one tool call id (so one idempotency key)');
        const decisions = ofType(log, 'gate_decision').filter((e) => e.data.toolCallId === callId);
        assert.deepEqual(
          decisions.map((e) => e.data.decision),
          ['allowed', 'allowed'],
        );
        assert.match(decisions[1]?.data.reason ?? '', /approved by ops/);
        const results = ofType(log, 'tool_result').filter((e) => e.data.toolCallId === callId);
        assert.equal(results.length, 1);
        assert.equal(results[0]?.data.ok, true, JSON.stringify(results[0]?.data.error));
        assert.equal(results[0]?.data.markedDone, undefined);
        const placed = results[0]?.data.structuredContent as { order: { id: string } } | undefined;

        const stats = await venueStats(patient);
        assert.equal(stats.received['placeOrder'], 2, 'the retry reached the venue');
        assert.equal(stats.executed['placeOrder'], 1, 'and did not run again');
        assert.equal(stats.deduplicated, 1);
        const orders = await userOrders(patient, USER);
        assert.equal(orders.length, 1);
        assert.equal(
          orders[0]?.id,
          placed?.order.id,
          'the replayed answer names the order placed by the first attempt',
        );
        assert.equal(mock.requests.length, 2);
      } finally {
        await impatient.tools.close();
        await patient.close();
        await mock.close();
        await venue.stop();
      }
    },
  );

  it(
    'unknownOutcome: tell_model records outcome_unknown and tells the model not to repeat the call; nobody is asked',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const mock = await startMockOpenAI({ handler: retryingTrader });
      const toolgate = toolgateFor({
        mock,
        servers: { [SERVER]: stdioExchange('--delay', `placeOrder=${VENUE_DELAY_MS}`) },
        tools: {
          [`${SERVER}/placeOrder`]: { approval: 'never', timeoutMs: SHORT_TIMEOUT_MS, unknownOutcome: 'tell_model' },
        },
      });
      try {
        await registerUser(toolgate, USER);
        const run = await toolgate.run({ input: 'Buy 1 MWh at 50 for carol' });

        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        assert.equal(run.pendingApproval, undefined);
        const log = await readLog(toolgate, run.id);
        assert.equal(ofType(log, 'approval_required').length, 0);
        const callId = callIdOf(log, 'po1');
        const results = ofType(log, 'tool_result');
        assert.equal(results.length, 1);
        assert.equal(results[0]?.data.toolCallId, callId);
        assert.equal(results[0]?.data.ok, false);
        assert.equal(results[0]?.data.error?.code, 'outcome_unknown');
        assert.match(results[0]?.data.error?.message ?? '', TIMED_OUT);

        assert.equal(mock.requests.length, 2);
        const told = toolMessage(mock.requests[1], 'po1');
        assert.match(told, /^Error \(outcome_unknown\)/);
        assert.match(told, /MAY HAVE EXECUTED/);
        assert.match(told, /do not call it again/);
        assert.equal(run.output, 'Finished after 1 attempt(s).');

        const stats = await waitForVenue(toolgate, (s) => (s.executed['placeOrder'] ?? 0) >= 1);
        assert.equal(stats.received['placeOrder'], 1, 'never retried');
        assert.equal(stats.executed['placeOrder'], 1, 'it did happen, late');
        assert.equal((await userOrders(toolgate, USER)).length, 1);
      } finally {
        await toolgate.close();
        await mock.close();
      }
    },
  );

  it(
    'cancelling a run while a write is in flight ends it cancelled, the call recorded as outcome_unknown',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const mock = await startMockOpenAI({
        responses: [
          { toolCalls: [{ id: 'po1', name: 'placeOrder', arguments: JSON.stringify(ORDER) }] },
          { text: 'never asked' },
        ],
      });
      const toolgate = toolgateFor({
        mock,
        servers: { [SERVER]: stdioExchange('--delay', 'placeOrder=2000') },
        tools: { [`${SERVER}/placeOrder`]: { approval: 'never', timeoutMs: 10_000 } },
      });
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      try {
        await registerUser(toolgate, USER);
        const run = await toolgate.run({
          input: 'Buy 1 MWh at 50 for carol',
          signal: controller.signal,
          onEvent: (event) => {
            // Well after the request left (tool_call is committed just before it is sent), well before the venue
            // answers.
            if (event.type === 'tool_call' && event.data.name === 'placeOrder')
              timer = setTimeout(() => controller.abort(), 400);
          },
        });

        assert.equal(run.status, 'cancelled', JSON.stringify(run.error));
        const log = await readLog(toolgate, run.id);
        const callId = callIdOf(log, 'po1');
        assert.equal(log.at(-1)?.type, 'run_cancelled');
        assert.equal(ofType(log, 'approval_required').length, 0, 'a cancelled run asks nobody');
        const result = ofType(log, 'tool_result')
          .filter((e) => e.data.toolCallId === callId)
          .at(-1);
        assert.equal(result?.data.ok, false);
        assert.equal(result?.data.error?.code, 'outcome_unknown');
        assert.match(result?.data.error?.message ?? '', /cancelled while placeOrder was in flight/);
        assert.equal(mock.remaining(), 1, 'the model was not called again');

        // The venue finishes the call anyway; the ended run's log does not move.
        const stats = await waitForVenue(toolgate, (s) => (s.executed['placeOrder'] ?? 0) >= 1);
        assert.equal(stats.executed['placeOrder'], 1);
        assert.equal(
          (await userOrders(toolgate, USER)).length,
          1,
          'which is why the outcome is "unknown", not "cancelled"',
        );
        const later = await readLog(toolgate, run.id);
        assert.equal(later.length, log.length, 'nothing is appended after run_cancelled');
        assert.equal((await toolgate.store.getRun(run.id))?.status, 'cancelled');
      } finally {
        clearTimeout(timer);
        await toolgate.close();
        await mock.close();
      }
    },
  );

  it(
    'a read that times out is an ordinary failed call (tool_timeout): the run goes on without asking anyone',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const mock = await startMockOpenAI({
        responses: [
          { toolCalls: [{ id: 'ob1', name: 'getOrderBook', arguments: '{}' }] },
          { text: 'The book is slow today.' },
        ],
      });
      const toolgate = toolgateFor({
        mock,
        servers: { [SERVER]: stdioExchange('--delay', `getOrderBook=${VENUE_DELAY_MS}`) },
        tools: { [`${SERVER}/getOrderBook`]: { timeoutMs: SHORT_TIMEOUT_MS } },
      });
      try {
        const run = await toolgate.run({ input: 'How is the book?' });

        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        assert.equal(run.output, 'The book is slow today.');
        const log = await readLog(toolgate, run.id);
        assert.equal(ofType(log, 'approval_required').length, 0);
        const result = ofType(log, 'tool_result').find((e) => e.data.toolCallId === callIdOf(log, 'ob1'));
        assert.equal(result?.data.ok, false);
        assert.equal(result?.data.error?.code, 'tool_timeout');
        const told = toolMessage(mock.requests[1], 'ob1');
        assert.match(told, /^Error \(tool_timeout\)/);
        assert.match(told, TIMED_OUT);
        assert.equal(mock.remaining(), 0);

        const stats = await venueStats(toolgate);
        assert.equal(stats.received['getOrderBook'], 1);
      } finally {
        await toolgate.close();
        await mock.close();
      }
    },
  );

  it(
    'a write to a venue that cannot be reached certainly did not happen: tool_unavailable, nobody is asked',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const statePath = join(dir, 'unreachable.json');
      const port = await freePort();
      let venue = await startHttpExchange(['--state', statePath], port);
      const mock = await startMockOpenAI({
        responses: [
          { toolCalls: [{ id: 'po1', name: 'placeOrder', arguments: JSON.stringify(ORDER) }] },
          { text: 'The exchange is down.' },
        ],
      });
      const toolgate = toolgateFor({
        mock,
        servers: { [SERVER]: { url: venue.url } },
        tools: { [`${SERVER}/placeOrder`]: { approval: 'never' } },
      });
      try {
        // Lists the tools (cached for the run) and saves carol in the state file; then the venue goes away.
        await registerUser(toolgate, USER);
        await venue.stop();

        const run = await toolgate.run({ input: 'Buy 1 MWh at 50 for carol' });

        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        const log = await readLog(toolgate, run.id);
        assert.equal(ofType(log, 'approval_required').length, 0);
        const result = ofType(log, 'tool_result').find((e) => e.data.toolCallId === callIdOf(log, 'po1'));
        assert.equal(result?.data.ok, false);
        assert.equal(result?.data.error?.code, 'tool_unavailable', JSON.stringify(result?.data.error));
        assert.match(toolMessage(mock.requests[1], 'po1'), /^Error \(tool_unavailable\)/);
        assert.equal(mock.remaining(), 0);

        // The venue, back from its state file on the same address, knows carol and no order of hers.
        venue = await startHttpExchange(['--state', statePath], port);
        assert.deepEqual(await userOrders(toolgate, USER), []);
      } finally {
        await toolgate.close();
        await mock.close();
        await venue.stop();
      }
    },
  );

  it(
    'a write whose connection is lost after it was sent is an unknown outcome: a person decides',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const statePath = join(dir, 'lost.json');
      const mock = await startMockOpenAI({ handler: retryingTrader });
      const toolgate = toolgateFor({
        mock,
        servers: { [SERVER]: stdioExchange('--exit-on', 'placeOrder', '--state', statePath) },
        tools: { [`${SERVER}/placeOrder`]: { approval: 'never' } },
      });
      try {
        await registerUser(toolgate, USER);
        let run = await toolgate.run({ input: 'Buy 1 MWh at 50 for carol' });

        assert.equal(run.status, 'waiting_approval', JSON.stringify(run.error));
        assert.equal(run.pendingApproval?.reason, 'outcome_unknown');
        assert.match(run.pendingApproval?.detail ?? '', /connection was lost/);
        const log = await readLog(toolgate, run.id);
        const callId = callIdOf(log, 'po1');
        assert.equal(run.pendingApproval?.toolCallId, callId);
        assert.equal(ofType(log, 'tool_result').length, 0);
        assert.equal(mock.requests.length, 1, 'no retry by the model');

        // The server is restarted from its state file on the next call: this venue died before executing.
        assert.deepEqual(await userOrders(toolgate, USER), []);
        run = await toolgate.submitInput(run.id, {
          type: 'approval',
          toolCallId: callId,
          decision: 'reject',
          reason: 'not on the venue; I will place it by hand',
        });
        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        assert.match(toolMessage(mock.requests[1], 'po1'), /rejected.*not on the venue/);
        assert.deepEqual(await userOrders(toolgate, USER), []);
      } finally {
        await toolgate.close();
        await mock.close();
      }
    },
  );
});
