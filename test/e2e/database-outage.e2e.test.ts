// The database drops under running toolgate processes: two `toolgate serve` and a
// `toolgate gateway` on one PostgreSQL database. Their connections are killed
// over and over (pg_terminate_backend, as a restart, a failover or a pooler
// does), or the database cannot be reached at all for a while (a TCP proxy the
// test controls stops listening). Every process stays up, /readyz says 503
// while the database is gone and 200 when it is back, requests get a 503 that
// names the database, runs wait with their work (in place for up to a lease,
// then paused and tried again with backoff), and every run completes once it
// is back — with no event lost or repeated, and no order placed twice nor left
// to a person as an unknown outcome. Real processes throughout: the
// power-exchange example over Streamable HTTP (its own counts are the witness
// of what was executed) and the mock OpenAI server.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Run } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { priceOf, runNumberOf, writeTradingConfig } from '../support/trading-config.ts';
import { connectHttp, startGateway } from '../support/gateway.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { adminQuery, createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';
import {
  POWER_EXCHANGE_SERVER,
  startProcess,
  startServe,
  stopProcess,
  type StartedProcess,
} from '../support/processes.ts';
import {
  TERMINAL,
  assertWellFormedLog,
  createRun,
  getRun,
  pollUntil,
  readEvents,
  readiness,
} from '../support/runs-api.ts';
import { startTcpProxy, throughProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const USER = 'bob';
const SYMBOL = 'DE-BASE-D+1';
/**
 * Each run: a read, one order at the run's own price, the answer; every answer after `latencyMs`, the first one
 * (the read) after `firstTurnMs` when given.
 */
function modelFor(latencyMs: number, firstTurnMs = latencyMs): (request: RecordedRequest) => MockResponse {
  return (request) => {
    const n = runNumberOf(request);
    if (n === undefined)
      return {
        status: 400,
        body: { error: { message: 'unexpected prompt', type: 'invalid_request_error', param: null, code: null } },
      };
    const turn = (request.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
    const answer: MockResponse =
      turn === 0
        ? { toolCalls: [{ id: `read${n}`, name: 'getMarketMetrics', arguments: '{}' }] }
        : turn === 1
          ? {
              toolCalls: [
                {
                  id: `write${n}`,
                  name: 'placeOrder',
                  arguments: JSON.stringify({ userId: USER, side: 'BUY', price: priceOf(n), qty: 0.1, symbol: SYMBOL }),
                },
              ],
            }
          : { text: `done ${n}` };
    return { delayMs: turn === 0 ? firstTurnMs : latencyMs, then: answer };
  };
}

interface Exchange extends StartedProcess {
  url: string;
}

describe(
  'the PostgreSQL database drops under running toolgate processes',
  { timeout: 240_000, skip: postgresSkip() },
  () => {
    const dirs: string[] = [];
    const databases: string[] = [];
    const children: ChildProcess[] = [];
    const mocks: MockOpenAI[] = [];
    const proxies: TcpProxy[] = [];
    const clients: Client[] = [];
    const track = (child: ChildProcess): void => void children.push(child);

    after(async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
      await Promise.allSettled(children.map((child) => stopProcess(child)));
      await Promise.allSettled([...mocks.map((m) => m.close()), ...proxies.map((p) => p.close())]);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      for (const name of databases) await dropDatabase(name);
    });

    /** A directory with its exchange and toolgate.yaml, a fresh database and a mock model. */
    async function setUp(options: {
      name: string;
      latencyMs: number;
      /** The first answer's latency (default latencyMs). */
      firstTurnMs?: number;
      leaseMs: number;
      placeOrderDelayMs?: number;
    }): Promise<{ dir: string; db: string; dbName: string; exchange: Exchange; mock: MockOpenAI }> {
      const dir = mkdtempSync(join(tmpdir(), `toolgate-outage-${options.name}-`));
      dirs.push(dir);
      const mock = await startMockOpenAI({ handler: modelFor(options.latencyMs, options.firstTurnMs) });
      mocks.push(mock);
      const started = await startProcess({
        command: process.execPath,
        args: [
          POWER_EXCHANGE_SERVER,
          '--http',
          '0',
          '--state',
          join(dir, 'exchange.json'),
          ...(options.placeOrderDelayMs === undefined ? [] : ['--delay', `placeOrder=${options.placeOrderDelayMs}`]),
        ],
        ready: /listening on (http:\/\/\S+)/,
        onSpawn: track,
      });
      const exchange: Exchange = { ...started, url: started.match[1] ?? '' };
      writeTradingConfig(dir, {
        modelUrl: mock.url,
        exchangeUrl: exchange.url,
        approval: 'never',
        server: { leaseMs: options.leaseMs, shutdownGraceMs: 0 },
      });
      const db = await createDatabase(`toolgate_outage_${options.name}`, databases);
      return { dir, db, dbName: databases.at(-1) ?? '', exchange, mock };
    }

    /** A TCP proxy to the database of `db`, and the URL through it. */
    async function proxied(db: string): Promise<{ proxy: TcpProxy; viaProxy: string }> {
      const target = new URL(db);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      proxies.push(proxy);
      return { proxy, viaProxy: throughProxy(db, proxy) };
    }

    /** Exits of the processes under test, as they happen: none may exit. */
    function watchExits(processes: Record<string, StartedProcess>): () => string[] {
      const exits: string[] = [];
      for (const [name, started] of Object.entries(processes)) {
        started.child.once('exit', (code, signal) =>
          exits.push(`${name} exited (${code ?? signal}); output:\n${started.output().slice(-3000)}`),
        );
      }
      return () => exits;
    }

    it(
      'pg_terminate_backend of every connection, again and again, while runs are in flight on two serve ' +
        'processes and gateway calls go on: nobody exits, every run completes, no order is placed twice',
      async () => {
        const { dir, db, dbName, exchange } = await setUp({
          name: 'terminate',
          latencyMs: 60,
          // Every run waits on its first answer long enough for several kills to fall while all of them are in flight.
          firstTurnMs: 800,
          leaseMs: 3000,
        });
        const [a, b] = await Promise.all([
          startServe({ cwd: dir, args: ['--store', db], onSpawn: track }),
          startServe({ cwd: dir, args: ['--store', db], onSpawn: track }),
        ]);
        const gateway = await startGateway({ config: join(dir, 'toolgate.yaml'), store: db, cwd: dir });
        track(gateway.child);
        const exits = watchExits({ A: a, B: b, gateway });
        const { client } = await connectHttp(gateway);
        clients.push(client);

        const runs: { n: number; id: string; url: string }[] = [];
        for (let n = 1; n <= 12; n++) {
          const url = n % 2 === 0 ? a.url : b.url;
          runs.push({ n, id: (await createRun(url, `trade ${n}`)).id, url });
        }
        // Gateway calls go on through the storm; some may fail while their connection is killed.
        const storm = new AbortController();
        const gatewayCalls = (async () => {
          while (!storm.signal.aborted)
            await client
              .callTool({ name: 'getMarketMetrics', arguments: {} }, { signal: storm.signal })
              .catch(() => undefined);
        })();
        // Kill every connection of the database at each poll until every run has ended (at most twelve times).
        let kills = 0;
        try {
          await pollUntil(
            async () =>
              (await Promise.all(runs.map(({ id, url }) => getRun(url, id)))).every(
                (run) => TERMINAL.has(run.status) || run.status === 'waiting_approval',
              ),
            'every run to end or wait',
            {
              timeoutMs: 90_000,
              everyMs: 100,
              onPoll: async () => {
                if (kills >= 12) return;
                kills += 1;
                await adminQuery(
                  'SELECT pg_terminate_backend(pid) FROM pg_stat_activity ' +
                    'WHERE datname = $1 AND pid <> pg_backend_pid()',
                  [dbName],
                );
              },
            },
          );
        } finally {
          storm.abort();
          await gatewayCalls;
        }
        assert.ok(kills >= 3, `the connections were killed ${kills} times while runs were in flight`);
        assert.deepEqual(exits(), [], 'every process stayed up');

        await assertOrdersOnce(runs, exchange);
        // The gateway session goes on as well: a call after the storm is recorded and answered.
        const after = await client.callTool({ name: 'getMarketMetrics', arguments: {} });
        assert.notEqual(after.isError, true, JSON.stringify(after.content));
        assert.equal((await readiness(a.url)).status, 200);
        assert.equal((await readiness(gateway.url)).status, 200);
        assert.deepEqual(exits(), []);
      },
    );

    it(
      'the database unreachable for a while, within a lease (connections cut, new ones refused): /readyz ' +
        ('503 then 200, requests 503 naming the database, runs wait in place with ' +
          'their answers and complete, the gateway refuses a write it cannot record'),
      async () => {
        const { dir, db, exchange, mock } = await setUp({ name: 'proxy', latencyMs: 400, leaseMs: 8000 });
        const { proxy, viaProxy } = await proxied(db);
        const a = await startServe({ cwd: dir, args: ['--store', viaProxy], onSpawn: track });
        const gateway = await startGateway({ config: join(dir, 'toolgate.yaml'), store: viaProxy, cwd: dir });
        track(gateway.child);
        const exits = watchExits({ A: a, gateway });
        const { client } = await connectHttp(gateway);
        clients.push(client);
        assert.notEqual(
          (await client.callTool({ name: 'getMarketMetrics', arguments: {} })).isError,
          true,
          'the gateway session works before the outage',
        );

        const runs: { n: number; id: string; url: string }[] = [];
        for (let n = 101; n <= 104; n++) runs.push({ n, id: (await createRun(a.url, `trade ${n}`)).id, url: a.url });
        // Every run is waiting for its first answer when the database goes away: the answers come during the outage.
        await pollUntil(
          async () => mock.requests.filter((r) => (runNumberOf(r) ?? 0) > 100).length >= 4,
          'the four runs asking the model',
        );
        await proxy.cut();

        for (const server of [a, gateway]) {
          await pollUntil(async () => (await readiness(server.url)).status === 503, '/readyz to answer 503');
          const { body } = await readiness(server.url);
          assert.match(
            body.reason ?? '',
            new RegExp(
              String.raw`PostgreSQL store postgres:\/\/.*: could not list runs: .*ECONNREFUSED.*; nothing` +
                String.raw` accepts connections at 127\.0\.0\.1:\d+: check that PostgreSQL is running there`,
            ),
          );
        }
        // /metrics still answers, saying the store is down (it is looked at during an outage).
        const scrape = async (): Promise<string> => {
          const response = await fetch(`${a.url}/metrics`);
          const text = await response.text();
          assert.equal(response.status, 200, text);
          return text;
        };
        assert.match(await scrape(), /^toolgate_store_up 0$/m);
        const refused = await fetch(`${a.url}/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ input: 'trade 199' }),
        });
        assert.equal(refused.status, 503);
        assert.equal(refused.headers.get('retry-after'), '1');
        const refusal = (await refused.json()) as { error: { code: string; message: string } };
        assert.equal(refusal.error.code, 'store_unavailable');
        assert.match(
          refusal.error.message,
          new RegExp(
            String.raw`^PostgreSQL store postgres:\/\/[^ ]+: could not create (a` +
              String.raw`nd claim )?a run: .*check that PostgreSQL is running there`,
          ),
        );

        // A write through the gateway cannot be recorded: it is refused before it reaches the exchange.
        const placedBefore = (await venueStats(exchange.url)).received['placeOrder'] ?? 0;
        const write = { userId: USER, side: 'BUY', price: priceOf(150), qty: 0.1, symbol: SYMBOL };
        const during = await client.callTool({ name: 'placeOrder', arguments: write }).then(
          (result) => JSON.stringify(result.content),
          (error: unknown) => String(error),
        );
        assert.match(during, /PostgreSQL store .*could not/);
        assert.equal(
          (await venueStats(exchange.url)).received['placeOrder'] ?? 0,
          placedBefore,
          'the exchange never saw the unrecorded write',
        );

        // The runs' answers arrive and cannot be stored: each run says so, and waits with its answer.
        // (Refused if its write opened a new connection; lost if it went on one the cut dropped.)
        for (const { id } of runs) {
          await pollUntil(
            // The run's own line: "live statistics of run <id>: PostgreSQL store …" is another one.
            async () => a.output().includes(`run ${id}: PostgreSQL store`) && a.output().includes(`to run ${id}:`),
            `run ${id} to say it waits for the store`,
          );
          assert.match(
            a.output(),
            new RegExp(
              `run ${id}: PostgreSQL store [^ ]+: could not append events to run ${id}: [^;]+; [^;]*check ` +
                (`that PostgreSQL is (running|up)[^;]*(; the next operation ` +
                  `opens a new connection)?; the run waits for the store`),
            ),
          );
        }
        assert.deepEqual(exits(), [], 'every process stayed up while the database was gone');

        await proxy.restore();
        for (const server of [a, gateway])
          await pollUntil(async () => (await readiness(server.url)).status === 200, '/readyz to answer 200 again', {
            timeoutMs: 20_000,
          });
        await pollUntil(
          async () => /^toolgate_store_up 1$/m.test(await scrape()),
          '/metrics to say the store is up again',
        );
        await pollUntil(
          async () =>
            (await Promise.all(runs.map(({ id, url }) => getRun(url, id)))).every((run) => TERMINAL.has(run.status)),
          'every run to end',
          { timeoutMs: 60_000 },
        );
        await assertOrdersOnce(runs, exchange);
        for (const { n, id } of runs) {
          assert.equal((await getRun(a.url, id)).status, 'completed');
          assert.equal(
            mock.requests.filter((r) => runNumberOf(r) === n).length,
            3,
            `run ${n}: three model requests, the answer that waited was not asked for again`,
          );
        }
        assert.ok(!a.output().includes('paused, the run store is unavailable'), 'no run had to be paused');
        // The session goes on: the same write now goes through, once.
        const placed = await client.callTool({ name: 'placeOrder', arguments: write });
        assert.notEqual(placed.isError, true, JSON.stringify(placed.content));
        assert.equal(
          (await userOrders(exchange.url)).filter((o) => o.price === write.price).length,
          1,
          'the gateway write placed once, after the outage',
        );
        assert.deepEqual(exits(), []);
      },
    );

    it(
      'the database unreachable for longer than a lease: runs wait in place for a lease, then ' +
        'pause and are tried again with backoff (never in a tight loop), and complete once it is back',
      async () => {
        const { dir, db, exchange, mock } = await setUp({ name: 'long', latencyMs: 300, leaseMs: 1500 });
        const { proxy, viaProxy } = await proxied(db);
        const a = await startServe({ cwd: dir, args: ['--store', viaProxy], onSpawn: track });
        const exits = watchExits({ A: a });
        const runs: { n: number; id: string; url: string }[] = [];
        for (let n = 201; n <= 203; n++) runs.push({ n, id: (await createRun(a.url, `trade ${n}`)).id, url: a.url });
        await pollUntil(
          async () => mock.requests.filter((r) => (runNumberOf(r) ?? 0) > 200).length >= 3,
          'the three runs asking the model',
        );
        await proxy.cut();
        const cutAt = Date.now();

        const paused = (id: string): number =>
          a
            .output()
            .split('\n')
            .filter((line) => line.includes(`run ${id} paused, the run store is unavailable`)).length;
        await pollUntil(async () => runs.every(({ id }) => paused(id) >= 3), 'every run paused and tried again twice', {
          timeoutMs: 20_000,
        });
        const outageMs = Date.now() - cutAt;
        for (const { id } of runs) {
          assert.ok(a.output().includes(`run ${id}: PostgreSQL store`), `run ${id} waited in place first`);
          // Waits of 250 ms doubling up to 5 s, after a lease in place: a handful of tries, where a tight loop makes
          // thousands.
          assert.ok(paused(id) <= 2 + Math.ceil(outageMs / 125), `run ${id}: ${paused(id)} tries in ${outageMs} ms`);
          assert.match(
            a.output(),
            new RegExp(
              `run ${id} paused, the run store is unavailable: PostgreSQL store ` +
                `[^ ]+: could not [^;]+; [^;]*check that PostgreSQL is (running|up)`,
            ),
          );
        }
        assert.deepEqual(exits(), [], 'the process stayed up');

        await proxy.restore();
        await pollUntil(async () => (await readiness(a.url)).status === 200, '/readyz to answer 200 again', {
          timeoutMs: 20_000,
        });
        await pollUntil(
          async () =>
            (await Promise.all(runs.map(({ id, url }) => getRun(url, id)))).every((run) => TERMINAL.has(run.status)),
          'every run to end',
          { timeoutMs: 60_000 },
        );
        await assertOrdersOnce(runs, exchange);
        for (const { id } of runs) assert.equal((await getRun(a.url, id)).status, 'completed');
        assert.deepEqual(exits(), []);
      },
    );

    it(
      'a gateway write in flight when the database goes away: the client is ' +
        'told it may have executed, never that it failed, and it is not sent again',
      async () => {
        const { dir, db, exchange } = await setUp({
          name: 'inflight',
          latencyMs: 0,
          leaseMs: 8000,
          placeOrderDelayMs: 1500,
        });
        const { proxy, viaProxy } = await proxied(db);
        const gateway = await startGateway({ config: join(dir, 'toolgate.yaml'), store: viaProxy, cwd: dir });
        track(gateway.child);
        const exits = watchExits({ gateway });
        const { client } = await connectHttp(gateway);
        clients.push(client);
        const write = { userId: USER, side: 'BUY', price: priceOf(170), qty: 0.1, symbol: SYMBOL };
        const answer = client.callTool({ name: 'placeOrder', arguments: write });
        // The call is recorded and at the exchange (which takes 1.5 s): the database goes away before its result comes
        // back.
        await pollUntil(
          async () => ((await venueStats(exchange.url)).received['placeOrder'] ?? 0) === 1,
          'the order to reach the exchange',
        );
        await proxy.cut();
        const result = await answer;
        assert.equal(result.isError, true);
        const text = JSON.stringify(result.content);
        assert.match(
          text,
          new RegExp(
            String.raw`placeOrder was sent, but its result could not be recorded \(PostgreSQL store .*could` +
              String.raw` not append events to run .*\)\. It MAY HAVE EXECUTED: check before calling it again`,
          ),
        );
        await proxy.restore();
        await pollUntil(async () => (await readiness(gateway.url)).status === 200, '/readyz to answer 200 again', {
          timeoutMs: 20_000,
        });
        const stats = await venueStats(exchange.url);
        assert.equal(stats.executed['placeOrder'], 1, 'executed once');
        assert.equal((await userOrders(exchange.url)).filter((o) => o.price === write.price).length, 1);
        assert.deepEqual(exits(), []);
      },
    );

    /**
     * Each run completed, its log intact, its order placed once (never twice) and its call and result recorded once.
     */
    async function assertOrdersOnce(runs: { n: number; id: string; url: string }[], exchange: Exchange): Promise<void> {
      const orders = await userOrders(exchange.url);
      for (const { n, id, url } of runs) {
        const run: Run = await getRun(url, id);
        const events = await readEvents(url, id);
        const label = `run ${n}`;
        assertWellFormedLog(label, events);
        assert.equal(
          run.status,
          'completed',
          `${label}: ${run.status} ${JSON.stringify(run.error ?? run.pendingApproval ?? null)}`,
        );
        assert.equal(run.output, `done ${n}`);
        assert.equal(orders.filter((o) => o.price === priceOf(n)).length, 1, `${label}: its order placed once`);
        assert.equal(
          ofType(events, 'tool_call').filter((e) => e.data.name === 'placeOrder').length,
          1,
          `${label}: one recorded call`,
        );
        assert.equal(
          ofType(events, 'tool_result').filter((e) => e.data.name === 'placeOrder').length,
          1,
          `${label}: one recorded result`,
        );
        assert.equal(
          ofType(events, 'approval_required').length,
          0,
          `${label}: nobody had to be asked about an unknown outcome`,
        );
      }
    }
  },
);

interface VenueStats {
  received: Record<string, number>;
  executed: Record<string, number>;
}

async function withExchange<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'outage-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

async function venueStats(url: string): Promise<VenueStats> {
  return withExchange(
    url,
    async (client) =>
      (await client.callTool({ name: 'getServerStats', arguments: {} })).structuredContent as unknown as VenueStats,
  );
}

async function userOrders(url: string): Promise<{ price: number }[]> {
  return withExchange(url, async (client) => {
    const result = await client.callTool({ name: 'getUserOrders', arguments: { userId: USER, status: 'all' } });
    return (result.structuredContent as { orders: { price: number }[] }).orders;
  });
}
