// One owner per run: several `toolgate serve` processes share one SQLite file, or
// one PostgreSQL database (there, SSE streams are woken by LISTEN/NOTIFY).
// Each run is driven by at most one process at a time (a lease per run, renewed
// while the run is driven, checked on every append); an approval may reach any
// process; a process that starts or sweeps takes over only runs whose lease has
// expired. Everything here is a real process: two or three `toolgate serve`, the
// power-exchange example over Streamable HTTP (its own state, a delay on
// placeOrder) and the mock OpenAI server. The exchange's own records and the
// model's own request log are the witnesses: a second driver would place a
// second order or ask the model for a turn again. Where a write must still be in
// flight while another process starts, a proxy holds it until the test lets it
// through, so a slow start on a loaded machine cannot outrun it.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseSync } from 'node:sqlite';
import { after, afterEach, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import type { Run, RunEvent } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { priceOf, runNumberOf, writeTradingConfig } from '../support/trading-config.ts';
import { startHoldProxy, type HoldProxy } from '../support/hold-proxy.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import {
  POWER_EXCHANGE_SERVER,
  startProcess,
  startServe,
  stopProcess,
  type StartedProcess,
} from '../support/processes.ts';
import { collectSse } from '../support/sse-client.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';

const USER = 'bob';
const SYMBOL = 'DE-BASE-D+1';
/** Run numbers per test, so one mock model serves all three and its requests can be told apart. */
const FIRST_MANY = 1;
const MANY = 20;
const TAKEOVER_RUN = 101;
const LIVE_RUN = 201;
const FOLLOW_RUN = 301;
const IDEM_RUN = 401;
const CANCEL_RUN = 501;
/**
 * The lease of tests where no process dies: nothing waits for it to expire, and
 * renewed every third of it, only a stall of over 3 s on a loaded machine could
 * hand a live run to the other process (which would then ask the model again).
 */
const UNHURRIED_LEASE_MS = 5000;
/** How often each of the many runs is polled: twenty runs polled every 50 ms kept both servers busy answering. */
const MANY_POLL_MS = 200;

/** Each run: a read, one order at the run's own price, the answer. Three model requests per run. */
function modelFor(request: RecordedRequest): MockResponse {
  const n = runNumberOf(request);
  if (n === undefined)
    return {
      status: 400,
      body: { error: { message: 'unexpected prompt', type: 'invalid_request_error', param: null, code: null } },
    };
  const messages = request.body.messages as { role: string }[];
  switch (messages.filter((m) => m.role === 'assistant').length) {
    case 0:
      return { toolCalls: [{ id: `read${n}`, name: 'getMarketMetrics', arguments: '{}' }] };
    case 1:
      return {
        toolCalls: [
          {
            id: `write${n}`,
            name: 'placeOrder',
            arguments: JSON.stringify({ userId: USER, side: 'BUY', price: priceOf(n), qty: 0.1, symbol: SYMBOL }),
          },
        ],
      };
    default:
      return { text: `done ${n}` };
  }
}

interface Exchange extends StartedProcess {
  url: string;
}

interface VenueStats {
  received: Record<string, number>;
  executed: Record<string, number>;
  deduplicated: number;
}

interface OrderView {
  orderId: string;
  price: number;
  side: string;
  symbol: string;
}

const STORES = ['sqlite', 'postgres'] as const;

for (const kind of STORES) {
  describe(
    `several toolgate serve processes on one ${kind === 'sqlite' ? 'SQLite file' : 'PostgreSQL database'}`,
    { timeout: 240_000, skip: kind === 'postgres' ? postgresSkip() : false },
    () => {
      let mock: MockOpenAI;
      const dirs: string[] = [];
      /** Every child spawned, tracked from the moment it is spawned: one that never became ready is stopped too. */
      const children: ChildProcess[] = [];
      const track = (child: ChildProcess): void => void children.push(child);
      const proxies: HoldProxy[] = [];

      before(async () => {
        mock = await startMockOpenAI({ handler: modelFor });
      });
      /** PostgreSQL databases made for these tests, dropped at the end. */
      const databases: string[] = [];
      // A test's processes stop with it: idle servers would go on sweeping their store through the next tests.
      afterEach(async () => {
        await Promise.allSettled(children.splice(0).map((child) => stopProcess(child)));
        await Promise.allSettled(proxies.splice(0).map((proxy) => proxy.close()));
      });
      after(async () => {
        await mock?.close();
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
        for (const name of databases) await dropDatabase(name);
      });

      /**
       * A fresh directory with its own exchange (state file, delay on placeOrder) and a toolgate.yaml pointing at it;
       * with `holdWrites`, toolgate reaches the exchange through a proxy that holds every placeOrder until released.
       */
      async function setUp(options: {
        name: string;
        placeOrderDelayMs: number;
        approval: 'required' | 'never';
        leaseMs: number;
        ssePollMs?: number;
        holdWrites?: boolean;
      }): Promise<{ dir: string; db: string; exchange: Exchange; hold: HoldProxy | undefined }> {
        const dir = mkdtempSync(join(tmpdir(), `toolgate-multi-${options.name}-`));
        dirs.push(dir);
        const started = await startProcess({
          command: process.execPath,
          args: [
            POWER_EXCHANGE_SERVER,
            '--http',
            '0',
            '--state',
            join(dir, 'exchange.json'),
            '--delay',
            `placeOrder=${options.placeOrderDelayMs}`,
          ],
          ready: /listening on (http:\/\/\S+)/,
          onSpawn: track,
        });
        const exchange: Exchange = { ...started, url: started.match[1] ?? '' };
        const hold =
          options.holdWrites === true ? await startHoldProxy({ target: exchange.url, hold: isPlaceOrder }) : undefined;
        if (hold !== undefined) proxies.push(hold);
        writeTradingConfig(dir, {
          modelUrl: mock.url,
          exchangeUrl: hold?.url ?? exchange.url,
          approval: options.approval,
          server: { leaseMs: options.leaseMs, shutdownGraceMs: 0, ssePollMs: options.ssePollMs },
        });
        return {
          dir,
          db:
            kind === 'sqlite'
              ? `sqlite:${join(dir, 'runs.db')}`
              : await createDatabase(`toolgate_mi_${options.name}`, databases),
          exchange,
          hold,
        };
      }

      async function serve(dir: string, store: string): Promise<StartedProcess & { url: string }> {
        return startServe({ cwd: dir, args: ['--store', store], onSpawn: track });
      }

      it(
        '20 runs created on two processes, each approved ' + 'on the other one: every write happens exactly once',
        async () => {
          const { dir, db, exchange } = await setUp({
            name: 'approve',
            placeOrderDelayMs: 150,
            approval: 'required',
            leaseMs: UNHURRIED_LEASE_MS,
          });
          const [a, b] = await Promise.all([serve(dir, db), serve(dir, db)]);
          const urls = [a.url, b.url];
          const started = Date.now();

          // Ten runs on each process, alternating.
          const runs: { n: number; id: string; creator: number }[] = [];
          for (let i = 0; i < MANY; i++) {
            const n = FIRST_MANY + i;
            const creator = i % 2;
            const run = await createRun(urls[creator] ?? '', `trade ${n}`);
            runs.push({ n, id: run.id, creator });
          }

          // Each run stops for approval of its order; the decision goes to the process that did not create it.
          await forEachRun(runs, async ({ n, id, creator }, stop) => {
            const waiting = await waitForRun(
              urls,
              id,
              'waiting_approval',
              (run) => run.status === 'waiting_approval',
              30_000,
              { stop, everyMs: MANY_POLL_MS },
            );
            assert.equal(waiting.pendingApproval?.name, 'placeOrder', `run ${n}: the order waits for a person`);
            assert.equal(waiting.pendingApproval?.reason, 'policy', `run ${n}: because the rule says so`);
            const other = urls[1 - creator] ?? '';
            const response = await postInput(other, id, {
              type: 'approval',
              toolCallId: waiting.pendingApproval?.toolCallId,
              decision: 'approve',
            });
            assert.equal(
              response.status,
              202,
              `run ${n}: approval accepted by the other process: ${JSON.stringify(response.body)}`,
            );
            const answered = response.body as Run;
            assert.notEqual(
              answered.status,
              'waiting_approval',
              `run ${n}: the 202 already shows the decision recorded (status ${answered.status})`,
            );
            assert.equal(answered.pendingApproval, undefined, `run ${n}: nothing pending any more in the 202 answer`);
          });

          // Every run ends completed, whichever process drives it.
          await forEachRun(runs, ({ id }, stop) =>
            waitForRun(
              urls,
              id,
              'an end or a decision point',
              (run) => run.status !== 'running' && run.status !== 'queued',
              45_000,
              { stop, everyMs: MANY_POLL_MS },
            ),
          );
          for (const { n, id } of runs) {
            const run = await getRun(urls[n % 2] ?? '', id);
            assert.equal(
              run.status,
              'completed',
              `run ${n}: ${run.status} ${JSON.stringify(run.error ?? run.pendingApproval ?? null)}`,
            );
            assert.equal(run.output, `done ${n}`);
          }

          for (const { n, id, creator } of runs) {
            const events = await readEvents(urls[creator] ?? '', id);
            const label = `run ${n}`;
            assertWellFormedLog(label, events);
            assertEachTurnOnce(label, events);
            const terminal = events.filter(
              (e) => e.type === 'run_completed' || e.type === 'run_failed' || e.type === 'run_cancelled',
            );
            assert.deepEqual(
              terminal.map((e) => e.type),
              ['run_completed'],
              `${label}: exactly one terminal event`,
            );
            const calls = ofType(events, 'tool_call').filter((e) => e.data.name === 'placeOrder');
            const results = ofType(events, 'tool_result').filter((e) => e.data.name === 'placeOrder');
            assert.equal(calls.length, 1, `${label}: placeOrder called ${calls.length} times`);
            assert.equal(results.length, 1, `${label}: ${results.length} placeOrder results`);
            assert.equal(
              results[0]?.data.ok,
              true,
              `${label}: the order was placed: ${JSON.stringify(results[0]?.data.error)}`,
            );
            assert.equal(ofType(events, 'approval_required').length, 1, `${label}: one approval asked`);
            assert.equal(ofType(events, 'input_received').length, 1, `${label}: one decision recorded`);
            // The other process serves the same log, over SSE.
            const sse = await collectSse(`${urls[1 - creator]}/v1/runs/${id}/events`);
            assert.deepEqual(
              sse.map((m) => JSON.parse(m.data) as RunEvent),
              events,
              `${label}: both processes serve the same log`,
            );
          }

          // The exchange's own records: twenty orders, one per run's price.
          const expected = runs.map(({ n }) => priceOf(n)).sort((x, y) => x - y);
          const placed = (await userOrders(exchange.url))
            .filter((o) => expected.includes(o.price))
            .map((o) => o.price)
            .sort((x, y) => x - y);
          assert.deepEqual(placed, expected, 'exactly one order per run, none repeated');
          const stats = await venueStats(exchange.url);
          assert.equal(stats.received['placeOrder'], MANY, 'the exchange received one placeOrder per run');
          assert.equal(stats.executed['placeOrder'], MANY, 'and executed one per run');

          // A second driver would have asked the model for a turn again.
          const modelRequests = mock.requests.filter((r) => {
            const n = runNumberOf(r);
            return n !== undefined && n >= FIRST_MANY && n < FIRST_MANY + MANY;
          });
          assert.equal(
            modelRequests.length,
            3 * MANY,
            `the model answered ${modelRequests.length} requests for ${MANY} runs of three turns`,
          );
          for (const { n } of runs) {
            assert.equal(modelRequests.filter((r) => runNumberOf(r) === n).length, 3, `run ${n}: three model requests`);
          }
          console.log(`multi-instance: ${MANY} runs on 2 processes completed in ${Date.now() - started} ms`);
        },
      );

      it(
        'SIGKILL of the owner: the other process takes the run over ' +
          'only once the lease has expired, and the write stays single',
        async () => {
          const leaseMs = 1500;
          const n = TAKEOVER_RUN;
          const { dir, db, exchange, hold } = await setUp({
            name: 'takeover',
            placeOrderDelayMs: 0,
            approval: 'never',
            leaseMs,
            holdWrites: true,
          });
          assert.ok(hold !== undefined);
          const a = await serve(dir, db);
          const { id } = await createRun(a.url, `trade ${n}`);

          // The write is in flight: its tool_call is committed, and the proxy holds the request (the exchange has not
          // seen it).
          const inFlight = await waitForEvents(
            a.url,
            id,
            (events) => ofType(events, 'tool_call').some((e) => e.data.name === 'placeOrder'),
            20_000,
          );
          const call = ofType(inFlight, 'tool_call').find((e) => e.data.name === 'placeOrder');
          assert.ok(call !== undefined);
          await waitUntilAsync(async () => hold.matched() === 1, 'A to send the write', 20_000);
          const callSeenAt = Date.now();

          // B starts on the same store: A's lease is live, B must leave the run alone — at its start and at its sweeps
          // (every half lease).
          const b = await serve(dir, db);
          const bStartedAfter = Date.now() - callSeenAt;
          const beforeB = await getRun(b.url, id);
          assert.equal(
            beforeB.status,
            'running',
            `B took a run whose lease is live as soon as it started: ` +
              `${JSON.stringify(beforeB.pendingApproval ?? beforeB.error ?? null)}`,
          );
          await sleep(leaseMs);
          const stillA = await getRun(b.url, id);
          assert.equal(stillA.status, 'running', 'B did not take a run whose lease is live');
          assert.equal(stillA.lastEventId, beforeB.lastEventId, 'nothing was appended while A holds the lease');
          assert.equal(stillA.pendingApproval, undefined);
          const lastBeforeKill = stillA.lastEventId;

          const killedAt = Date.now();
          a.child.kill('SIGKILL');
          await new Promise((resolve) =>
            a.child.exitCode !== null || a.child.signalCode !== null
              ? resolve(undefined)
              : a.child.once('exit', resolve),
          );
          // A renews no more: the lease it left in the store is the one B must wait out.
          const lease = await leaseIn(db, id);
          assert.ok(lease !== undefined, 'A held the lease when it was killed');

          // B sweeps, finds the expired lease, and asks a person: the write may or may not have happened.
          // Taken over within the lease and five seconds of the kill.
          const deadline = leaseMs + 5000;
          const waiting = await waitForRun(
            [b.url],
            id,
            'B to take the run over after the kill (status waiting_approval)',
            (run) => run.status !== 'running' && run.status !== 'queued',
            deadline,
          );
          const noticedAfter = Date.now() - killedAt;
          assert.equal(
            waiting.status,
            'waiting_approval',
            `the run waits for a person: ${waiting.status} ${JSON.stringify(waiting.error ?? null)}`,
          );
          assert.equal(waiting.pendingApproval?.reason, 'outcome_unknown');
          assert.equal(waiting.pendingApproval?.name, 'placeOrder');
          assert.equal(waiting.pendingApproval?.toolCallId, call.data.toolCallId, 'the pending call is the one A sent');

          const events = await readEvents(b.url, id);
          const added = events.filter((e) => e.id > lastBeforeKill);
          for (const event of added) {
            assert.ok(
              Date.parse(event.time) >= killedAt,
              `event ${event.id} (${event.type}) was appended before A was killed: B acted while A held the lease`,
            );
          }
          const asked = ofType(added, 'approval_required');
          assert.equal(asked.length, 1, 'one approval_required after the takeover');
          assert.equal(asked[0]?.data.reason, 'outcome_unknown');
          const takeoverAfter = Date.parse(asked[0]?.time ?? '') - killedAt;
          for (const event of added) {
            assert.ok(
              Date.parse(event.time) >= lease.expiresAt,
              `event ${event.id} (${event.type}) was appended at ${event.time}, ` +
                `before A's lease expired (${new Date(lease.expiresAt).toISOString()})`,
            );
          }
          assert.ok(
            ofType(events, 'tool_result').every((e) => e.data.name !== 'placeOrder'),
            'no result for the write: its outcome is unknown',
          );

          // A's request reaches the exchange now, as one already on the wire when A died would: it executes once.
          assert.equal(
            (await venueStats(exchange.url)).received['placeOrder'] ?? 0,
            0,
            'the exchange had not seen the held write',
          );
          hold.release();
          const price = priceOf(n);
          await waitUntilAsync(
            async () => (await venueStats(exchange.url)).executed['placeOrder'] === 1,
            "A's write to execute at the exchange",
            20_000,
          );
          assert.equal(
            (await userOrders(exchange.url)).filter((o) => o.price === price).length,
            1,
            `one order at ${price} before the decision`,
          );

          // A person approves on B: the call is sent again under the same idempotency key, so the exchange does not
          // execute it twice.
          const response = await postInput(b.url, id, {
            type: 'approval',
            toolCallId: call.data.toolCallId,
            decision: 'approve',
          });
          assert.equal(response.status, 202, JSON.stringify(response.body));
          assert.notEqual((response.body as Run).status, 'waiting_approval');
          const done = await waitForRun(
            [b.url],
            id,
            'completed after the approval',
            (run) => run.status !== 'running' && run.status !== 'queued',
            30_000,
          );
          assert.equal(
            done.status,
            'completed',
            `${done.status} ${JSON.stringify(done.error ?? done.pendingApproval ?? null)}`,
          );
          assert.equal(done.output, `done ${n}`);

          const log = await readEvents(b.url, id);
          assertWellFormedLog('takeover run', log);
          assertEachTurnOnce('takeover run', log);
          assert.deepEqual(
            log
              .filter((e) => e.type === 'run_completed' || e.type === 'run_failed' || e.type === 'run_cancelled')
              .map((e) => e.type),
            ['run_completed'],
          );
          const calls = ofType(log, 'tool_call').filter((e) => e.data.name === 'placeOrder');
          assert.ok(
            calls.length >= 1 && calls.every((e) => e.data.toolCallId === call.data.toolCallId),
            'every placeOrder call is the one call, under one id (one idempotency key)',
          );
          const results = ofType(log, 'tool_result').filter((e) => e.data.name === 'placeOrder');
          assert.equal(results.length, 1, 'one result for the write');
          assert.equal(results[0]?.data.ok, true, JSON.stringify(results[0]?.data.error));

          const afterDecision = (await userOrders(exchange.url)).filter((o) => o.price === price);
          assert.equal(afterDecision.length, 1, `exactly one order at ${price}, whoever sent it`);
          const stats = await venueStats(exchange.url);
          assert.equal(
            stats.received['placeOrder'],
            2,
            'the exchange received the write twice: from A, and again from B after the approval',
          );
          assert.equal(
            stats.executed['placeOrder'],
            1,
            `the exchange executed placeOrder ${stats.executed['placeOrder']} times`,
          );
          // The two turns A logged are not asked again; B asks only for the answer.
          assert.equal(mock.requests.filter((r) => runNumberOf(r) === n).length, 3, 'three model requests for the run');
          console.log(
            `multi-instance: B up ${bStartedAfter} ms after the write began; noticed the dead owner ` +
              (`${noticedAfter} ms after SIGKILL (approval_required at +${takeoverAfter} ` +
                `ms, lease expired at +${lease.expiresAt - killedAt} ms, leaseMs ${leaseMs})`),
          );
        },
      );

      it(
        'a process that starts does not resume a run another process ' +
          'is driving, even through a write longer than the lease',
        async () => {
          const leaseMs = 2000;
          const n = LIVE_RUN;
          const { dir, db, exchange, hold } = await setUp({
            name: 'live',
            placeOrderDelayMs: 0,
            approval: 'never',
            leaseMs,
            holdWrites: true,
          });
          assert.ok(hold !== undefined);
          const a = await serve(dir, db);
          const { id } = await createRun(a.url, `trade ${n}`);
          await waitForEvents(
            a.url,
            id,
            (events) => ofType(events, 'tool_call').some((e) => e.data.name === 'placeOrder'),
            20_000,
          );
          await waitUntilAsync(async () => hold.matched() === 1, 'A to send the write', 20_000);
          const writeSentAt = Date.now();

          // B starts while the write is held, and sweeps (every half lease) while it lasts over two leases.
          const b = await serve(dir, db);
          const bReadyAt = Date.now();
          await sleep(Math.max(leaseMs, 2 * leaseMs - (bReadyAt - writeSentAt)));
          const midWrite = await getRun(b.url, id);
          assert.equal(
            midWrite.status,
            'running',
            `still running mid-write: ${JSON.stringify(midWrite.pendingApproval ?? midWrite.error ?? null)}`,
          );
          hold.release();

          const done = await waitForRun(
            [b.url, a.url],
            id,
            'completed',
            (run) => run.status !== 'running' && run.status !== 'queued',
            30_000,
          );
          assert.equal(
            done.status,
            'completed',
            `${done.status} ${JSON.stringify(done.error ?? done.pendingApproval ?? null)}`,
          );
          assert.equal(done.output, `done ${n}`);

          const events = await readEvents(b.url, id);
          assertWellFormedLog('live run', events);
          assertEachTurnOnce('live run', events);
          const call = ofType(events, 'tool_call').find((e) => e.data.name === 'placeOrder');
          const result = ofType(events, 'tool_result').find((e) => e.data.name === 'placeOrder');
          assert.ok(call !== undefined && result !== undefined);
          assert.ok(
            Date.parse(result.time) - Date.parse(call.time) > 2 * leaseMs,
            `the write lasted ${Date.parse(result.time) - Date.parse(call.time)} ms, over two leases (${leaseMs} ms)`,
          );
          assert.ok(
            Date.parse(result.time) > bReadyAt,
            'B was up while the write was still in flight (otherwise this test proves nothing)',
          );
          assert.equal(
            ofType(events, 'tool_call').filter((e) => e.data.name === 'placeOrder').length,
            1,
            'placeOrder called once',
          );
          assert.equal(ofType(events, 'tool_result').filter((e) => e.data.name === 'placeOrder').length, 1);
          assert.equal(
            ofType(events, 'approval_required').length,
            0,
            'nobody took the live write for an unknown outcome',
          );
          assert.deepEqual(
            events
              .filter((e) => e.type === 'run_completed' || e.type === 'run_failed' || e.type === 'run_cancelled')
              .map((e) => e.type),
            ['run_completed'],
          );
          assert.equal(
            ofType(events, 'run_status').filter((e) => e.data.to === 'running').length,
            1,
            'the run started once and was never resumed',
          );

          const orders = (await userOrders(exchange.url)).filter((o) => o.price === priceOf(n));
          assert.equal(orders.length, 1, `${orders.length} orders for the run`);
          const stats = await venueStats(exchange.url);
          assert.equal(stats.received['placeOrder'], 1, 'the exchange received placeOrder once');
          assert.equal(mock.requests.filter((r) => runNumberOf(r) === n).length, 3, 'three model requests for the run');
        },
      );

      it(
        'a run driven by A, followed live over SSE on B: the same ' +
          'events, in order, each once, as soon as they are written',
        async () => {
          // PostgreSQL: B's stream polls only once a minute, so only LISTEN/NOTIFY can bring A's events in time.
          const { dir, db } = await setUp({
            name: 'follow',
            placeOrderDelayMs: 1500,
            approval: 'never',
            leaseMs: 3000,
            ...(kind === 'postgres' ? { ssePollMs: 60_000 } : {}),
          });
          const [a, b] = await Promise.all([serve(dir, db), serve(dir, db)]);
          const { id } = await createRun(a.url, `trade ${FOLLOW_RUN}`);
          const started = Date.now();
          const followed = await collectSse(`${b.url}/v1/runs/${id}/events`);
          const tookMs = Date.now() - started;
          const log = await readEvents(a.url, id);
          assert.equal(log.at(-1)?.type, 'run_completed', 'the run ended');
          assert.deepEqual(
            followed.map((m) => JSON.parse(m.data) as RunEvent),
            log,
            'B streamed exactly the log A wrote',
          );
          assert.deepEqual(
            followed.map((m) => Number(m.id)),
            log.map((e) => e.id),
          );
          assert.ok(
            tookMs < 15_000,
            `B's stream ended ${tookMs} ms after the run began (the run itself takes about 2 s)`,
          );
        },
      );

      it(
        'a cancel posted to B ends a run A is driving, mid-write; on ' +
          'PostgreSQL at once (A is woken), not at its next lease renewal',
        async () => {
          // PostgreSQL: a long lease, so A's own heartbeat (every leaseMs/3 = 10 s) cannot be what finds the cancel.
          const leaseMs = kind === 'postgres' ? 30_000 : 6000;
          const { dir, db, exchange, hold } = await setUp({
            name: 'cancel',
            placeOrderDelayMs: 0,
            approval: 'never',
            leaseMs,
            holdWrites: true,
          });
          assert.ok(hold !== undefined);
          const [a, b] = await Promise.all([serve(dir, db), serve(dir, db)]);
          const { id } = await createRun(a.url, `trade ${CANCEL_RUN}`);
          await waitForEvents(
            a.url,
            id,
            (events) => ofType(events, 'tool_call').some((e) => e.data.name === 'placeOrder'),
            20_000,
          );
          // Mid-write: the proxy holds the write until the cancel is answered.
          await waitUntilAsync(async () => hold.matched() === 1, 'A to send the write', 20_000);
          const asked = Date.now();
          const response = await fetch(`${b.url}/v1/runs/${id}/cancel`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ reason: 'changed my mind' }),
          });
          const answered = Date.now() - asked;
          assert.equal(response.status, 202);
          const run = (await response.json()) as Run;
          assert.equal(run.status, 'cancelled', `B answered with the run ended by its owner (${run.status})`);
          if (kind === 'postgres')
            assert.ok(answered < 3000, `the cancel took ${answered} ms: A was not woken by the notification`);
          const events = await readEvents(a.url, id);
          assertWellFormedLog('cancelled run', events);
          const cancelled = ofType(events, 'run_cancelled');
          assert.equal(cancelled.length, 1);
          assert.equal(cancelled[0]?.data.reason, 'changed my mind');
          // The write A had sent reaches the exchange, as one on the wire would.
          hold.release();
          await waitUntilAsync(
            async () => ((await venueStats(exchange.url)).received['placeOrder'] ?? 0) >= 1,
            'the held write to reach the exchange',
            20_000,
          );
          assert.equal(hold.matched(), 1, 'the write was sent once, and not again');
          assert.equal(
            (await venueStats(exchange.url)).received['placeOrder'],
            1,
            'the exchange received the write once',
          );
        },
      );

      it('20 concurrent POSTs with one Idempotency-Key, spread over both processes, create one run', async () => {
        const { dir, db } = await setUp({ name: 'idem', placeOrderDelayMs: 0, approval: 'never', leaseMs: 3000 });
        const [a, b] = await Promise.all([serve(dir, db), serve(dir, db)]);
        const body = JSON.stringify({ input: `trade ${IDEM_RUN}` });
        const responses = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            fetch(`${(i % 2 === 0 ? a : b).url}/v1/runs`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'idempotency-key': 'one-key-two-servers' },
              body,
            }),
          ),
        );
        const runs = await Promise.all(responses.map(async (r) => (await r.json()) as Run));
        assert.equal(new Set(runs.map((r) => r.id)).size, 1, 'one run');
        assert.deepEqual(
          responses.map((r) => r.status).sort((x, y) => x - y),
          [...Array<number>(19).fill(200), 201],
        );
        const done = await waitForRun(
          [a.url, b.url],
          runs[0]?.id ?? '',
          'completed',
          (run) => run.status !== 'running' && run.status !== 'queued',
          30_000,
        );
        assert.equal(done.status, 'completed');
        assert.equal(mock.requests.filter((r) => runNumberOf(r) === IDEM_RUN).length, 3, 'driven once');
      });
    },
  );
}

/** A JSON-RPC call of the placeOrder tool (what the hold proxy holds back). */
function isPlaceOrder(body: string): boolean {
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { name?: unknown } };
    return message.method === 'tools/call' && message.params?.name === 'placeOrder';
  } catch {
    return false;
  }
}

/** Polls `check` every 25 ms until it holds; fails naming `what` after `timeoutMs`. */
async function waitUntilAsync(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * The run's lease as the store holds it (owner, expiry in ms since the epoch), read beside the processes that share it.
 */
async function leaseIn(db: string, runId: string): Promise<{ owner: string; expiresAt: number } | undefined> {
  if (db.startsWith('sqlite:')) {
    const file = new DatabaseSync(db.slice('sqlite:'.length), { readOnly: true });
    try {
      const row = file.prepare('SELECT lease_owner, lease_expires_at FROM runs WHERE id = ?').get(runId);
      return row?.['lease_owner'] == null
        ? undefined
        : { owner: String(row['lease_owner']), expiresAt: Number(row['lease_expires_at']) };
    } finally {
      file.close();
    }
  }
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const { rows } = await client.query<{ lease_owner: string | null; expires_ms: number | null }>(
      'SELECT lease_owner, floor(extract(epoch FROM lease_expires_at) ' +
        '* 1000)::float8 AS expires_ms FROM runs WHERE id = $1',
      [runId],
    );
    const row = rows[0];
    return row?.lease_owner == null ? undefined : { owner: row.lease_owner, expiresAt: Number(row.expires_ms) };
  } finally {
    await client.end();
  }
}

/** Ids 1..n without gap or duplicate, and the terminal event (if any) last. */
function assertWellFormedLog(label: string, events: RunEvent[]): void {
  assert.deepEqual(
    events.map((e) => e.id),
    events.map((_, i) => i + 1),
    `${label}: ids 1..n, no gap, no duplicate`,
  );
  const terminalAt = events.findIndex(
    (e) => e.type === 'run_completed' || e.type === 'run_failed' || e.type === 'run_cancelled',
  );
  if (terminalAt !== -1) assert.equal(terminalAt, events.length - 1, `${label}: nothing after the terminal event`);
}

/** A model turn is logged once: no (step, attempt) twice among assistant_message events. */
function assertEachTurnOnce(label: string, events: RunEvent[]): void {
  const turns = ofType(events, 'assistant_message').map((e) => `${e.data.step}/${e.data.attempt ?? 1}`);
  assert.deepEqual([...new Set(turns)], turns, `${label}: a model turn was logged twice: ${turns.join(', ')}`);
}

async function createRun(url: string, input: string): Promise<Run> {
  const response = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  const body = await response.text();
  assert.equal(response.status, 201, body);
  return JSON.parse(body) as Run;
}

async function getRun(url: string, id: string): Promise<Run> {
  const response = await fetch(`${url}/v1/runs/${id}`);
  const body = await response.text();
  assert.equal(response.status, 200, body);
  return JSON.parse(body) as Run;
}

async function readEvents(url: string, id: string): Promise<RunEvent[]> {
  const response = await fetch(`${url}/v1/runs/${id}/events?format=json`);
  const body = await response.text();
  assert.equal(response.status, 200, body);
  return (JSON.parse(body) as { events: RunEvent[] }).events;
}

async function postInput(
  url: string,
  id: string,
  input: Record<string, unknown>,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/v1/runs/${id}/input`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, body };
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Polls the run (on each of `urls` in turn, every `everyMs`) until `done` holds. Fails at once
 * when the run ended otherwise, or when `stop` is aborted (a sibling wait failed), and with the
 * last state seen after `timeoutMs`.
 */
async function waitForRun(
  urls: string[],
  id: string,
  what: string,
  done: (run: Run) => boolean,
  timeoutMs: number,
  options: { stop?: AbortSignal; everyMs?: number } = {},
): Promise<Run> {
  const until = Date.now() + timeoutMs;
  let last: Run | undefined;
  for (let i = 0; Date.now() < until; i++) {
    if (options.stop?.aborted === true)
      throw new Error(`run ${id}: stopped waiting (${what}) because another run failed`);
    last = await getRun(urls[i % urls.length] ?? '', id);
    if (done(last)) return last;
    if (TERMINAL.has(last.status)) break;
    await sleep(options.everyMs ?? 50);
  }
  assert.fail(
    `run ${id}: expected ${what} within ${timeoutMs} ms; last seen: ` +
      `${last?.status} ${JSON.stringify(last?.error ?? last?.pendingApproval ?? null)}`,
  );
}

/** Promise.all over `items`, telling the others to stop as soon as one fails. */
async function forEachRun<T, R>(items: T[], each: (item: T, stop: AbortSignal) => Promise<R>): Promise<R[]> {
  const controller = new AbortController();
  return Promise.all(
    items.map(async (item) => {
      try {
        return await each(item, controller.signal);
      } catch (error) {
        controller.abort();
        throw error;
      }
    }),
  );
}

async function waitForEvents(
  url: string,
  id: string,
  done: (events: RunEvent[]) => boolean,
  timeoutMs: number,
): Promise<RunEvent[]> {
  const until = Date.now() + timeoutMs;
  let last: RunEvent[] = [];
  while (Date.now() < until) {
    last = await readEvents(url, id);
    if (done(last)) return last;
    if (last.some((e) => e.type === 'run_completed' || e.type === 'run_failed' || e.type === 'run_cancelled')) break;
    await sleep(25);
  }
  const end = last.find((e) => e.type === 'run_completed' || e.type === 'run_failed' || e.type === 'run_cancelled');
  const why =
    end === undefined
      ? `did not come within ${timeoutMs} ms`
      : `never came: the run ended first (${end.type} ${JSON.stringify(end.data)})`;
  assert.fail(`run ${id}: the awaited event ${why}; log: ${last.map((e) => e.type).join(', ')}`);
}

async function withExchange<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'multi-instance-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** The exchange's own view of the user's orders (all statuses). */
async function userOrders(url: string): Promise<OrderView[]> {
  return withExchange(url, async (client) => {
    const result = await client.callTool({ name: 'getUserOrders', arguments: { userId: USER, status: 'all' } });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    return (result.structuredContent as { orders: OrderView[] }).orders;
  });
}

async function venueStats(url: string): Promise<VenueStats> {
  return withExchange(url, async (client) => {
    const result = await client.callTool({ name: 'getServerStats', arguments: {} });
    return result.structuredContent as unknown as VenueStats;
  });
}
