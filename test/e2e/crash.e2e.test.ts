// Crash safety: `toolgate serve` is killed with SIGKILL at many points of runs
// that read and write through the power-exchange example (its own process, over
// Streamable HTTP, so its state outlives the crashes), restarted on the same
// database, and every run must end completed — or waiting for a person when a
// write was in flight — with no event lost or duplicated and no write repeated.
// The kills land at fixed times after the runs start, and the last one while a
// write is in flight for sure: a proxy holds the exchange's placeOrder until then.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Run, RunEvent } from '../../src/core/index.ts';
import { startHoldProxy, type HoldProxy } from '../support/hold-proxy.ts';
import { writeTradingConfig } from '../support/trading-config.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type RecordedRequest,
  type MockResponse,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, startProcess, startServe, type StartedProcess } from '../support/processes.ts';
import { collectSse } from '../support/sse-client.ts';

/** When each round's server is killed: ms after its runs were created, or once one of them has a write in flight. */
const KILLS: (number | 'mid-write')[] = [120, 260, 400, 550, 700, 900, 'mid-write'];
const RUNS_PER_ROUND = 3;
/**
 * A restarted server takes over a killed one's runs once their lease has expired:
 * a short lease keeps that wait short (no two servers ever run at once here).
 */
const LEASE_MS = 2000;

/** Each run: read, write (a distinct order), read, answer. */
function modelFor(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string }[];
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  const n = Number(/(\d+)$/.exec(prompt)?.[1] ?? '0');
  switch (messages.filter((m) => m.role === 'assistant').length) {
    case 0:
      return { toolCalls: [{ id: 'read1', name: 'getMarketMetrics', arguments: '{}' }] };
    case 1:
      return {
        toolCalls: [
          {
            id: 'write1',
            name: 'placeOrder',
            arguments: JSON.stringify({
              userId: 'bob',
              side: 'BUY',
              price: 10 + n / 10,
              qty: 0.1,
              symbol: 'DE-BASE-D+1',
            }),
          },
        ],
      };
    case 2:
      return { toolCalls: [{ id: 'read2', name: 'getUserWallet', arguments: '{"userId":"bob"}' }] };
    default:
      return { text: `done ${n}` };
  }
}

describe('crash safety e2e', { timeout: 240_000 }, () => {
  let mock: MockOpenAI;
  let dir: string;
  let exchange: StartedProcess & { match: RegExpMatchArray };
  let exchangeUrl: string;
  let proxy: HoldProxy;
  /** Whether the proxy holds placeOrder calls (from the last round's start until its kill). */
  let holding = false;

  before(async () => {
    mock = await startMockOpenAI({ handler: modelFor });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-crash-'));
    exchange = await startProcess({
      command: process.execPath,
      args: [
        POWER_EXCHANGE_SERVER,
        '--http',
        '0',
        '--state',
        join(dir, 'exchange.json'),
        '--delay',
        'placeOrder=250',
        '--delay',
        'getMarketMetrics=100',
      ],
      ready: /listening on (http:\/\/\S+)/,
    });
    exchangeUrl = exchange.match[1] ?? '';
    proxy = await startHoldProxy({ target: exchangeUrl, hold: (body) => holding && body.includes('"placeOrder"') });
    writeTradingConfig(dir, {
      modelUrl: mock.url,
      exchangeUrl: proxy.url,
      approval: 'never',
      server: { store: 'sqlite:./data/runs.db', shutdownGraceMs: 0, leaseMs: LEASE_MS },
    });
  });
  after(async () => {
    await proxy?.close();
    await exchange?.stop();
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'every run ends completed or waiting with outcome_unknown; ' +
      'no event lost or duplicated; no write executed twice',
    async () => {
      const created: string[] = [];
      let round = 0;
      for (const kill of KILLS) {
        holding = kill === 'mid-write';
        const serve = await startServe({ cwd: dir });
        for (let i = 0; i < RUNS_PER_ROUND; i++) {
          const response = await fetch(`${serve.url}/v1/runs`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ input: `trade ${round * RUNS_PER_ROUND + i}` }),
          });
          assert.equal(response.status, 201, await response.clone().text());
          created.push(((await response.json()) as Run).id);
        }
        if (kill === 'mid-write') {
          for (let i = 0; i < 400 && proxy.matched() === 0; i++) await new Promise((r) => setTimeout(r, 25));
          assert.ok(proxy.matched() > 0, 'a write was sent within 10 s');
        } else {
          await new Promise((r) => setTimeout(r, kill));
        }
        serve.child.kill('SIGKILL');
        await new Promise((r) => serve.child.once('exit', r));
        // What was held was on the wire when the server died: the exchange gets it now.
        proxy.release();
        round++;
      }

      // Restart on the same database and let recovery finish every run.
      const serve = await startServe({ cwd: dir });
      try {
        const runs = new Map<string, Run>();
        const settled = new Set(['completed', 'failed', 'cancelled', 'waiting_approval']);
        for (let i = 0; i < 600 && runs.size < created.length; i++) {
          // Every run's status in one request; a run is read whole once it has settled.
          const listed = (
            (await (await fetch(`${serve.url}/v1/runs?limit=100`)).json()) as { runs: { id: string; status: string }[] }
          ).runs;
          for (const { id, status } of listed) {
            if (runs.has(id) || !created.includes(id) || !settled.has(status)) continue;
            runs.set(id, (await (await fetch(`${serve.url}/v1/runs/${id}`)).json()) as Run);
          }
          if (runs.size < created.length) await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(runs.size, created.length, 'every run reached an end or a decision point');

        let placeOrderCalls = 0;
        let waitingUnknown = 0;
        for (const [id, run] of runs) {
          assert.ok(
            run.status === 'completed' ||
              (run.status === 'waiting_approval' && run.pendingApproval?.reason === 'outcome_unknown'),
            `${id}: ${run.status} ${JSON.stringify(run.error ?? run.pendingApproval)}`,
          );
          if (run.status === 'waiting_approval') {
            waitingUnknown++;
            assert.equal(run.pendingApproval?.name, 'placeOrder', 'only a write in flight needs a person');
          }
          const events = (
            (await (await fetch(`${serve.url}/v1/runs/${id}/events?format=json`)).json()) as { events: RunEvent[] }
          ).events;
          assert.deepEqual(
            events.map((e) => e.id),
            events.map((_, i) => i + 1),
            `${id}: ids 1..n, no gap, no duplicate`,
          );
          const writes = events.filter((e) => e.type === 'tool_call' && e.data.name === 'placeOrder');
          assert.ok(writes.length <= 1, `${id}: placeOrder was called ${writes.length} times`);
          placeOrderCalls += writes.length;
          const statuses = events.filter((e) => e.type === 'run_status').length;
          assert.ok(statuses >= 2, `${id}: status changes are events`);
          if (run.status === 'completed') {
            const sse = await collectSse(`${serve.url}/v1/runs/${id}/events`);
            assert.deepEqual(
              sse.map((m) => JSON.parse(m.data) as RunEvent),
              events,
              `${id}: SSE equals the log`,
            );
          }
        }

        const stats = await exchangeStats(exchangeUrl);
        assert.ok(
          (stats.received['placeOrder'] ?? 0) <= placeOrderCalls,
          `the exchange received ${stats.received['placeOrder']} orders for ${placeOrderCalls} committed calls`,
        );
        assert.equal(stats.deduplicated, 0, 'nothing was retried');

        // A person approves the uncertain writes: the idempotency key makes the exchange answer
        // from its record where the first attempt did execute, so nothing runs twice.
        const executedBefore = stats.executed['placeOrder'] ?? 0;
        for (const [id, run] of runs) {
          if (run.status !== 'waiting_approval' || run.pendingApproval === undefined) continue;
          const response = await fetch(`${serve.url}/v1/runs/${id}/input`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ type: 'approval', toolCallId: run.pendingApproval.toolCallId, decision: 'approve' }),
          });
          assert.equal(response.status, 202, await response.clone().text());
        }
        for (const id of created) {
          for (let i = 0; i < 200; i++) {
            const run = (await (await fetch(`${serve.url}/v1/runs/${id}`)).json()) as Run;
            if (run.status === 'completed') break;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        const final = await exchangeStats(exchangeUrl);
        assert.ok(
          (final.executed['placeOrder'] ?? 0) <= created.length,
          `at most one execution per run: ${final.executed['placeOrder']} for ${created.length} runs`,
        );
        assert.ok((final.executed['placeOrder'] ?? 0) >= executedBefore);
        assert.ok(waitingUnknown >= 1, 'at least one kill hit a write in flight');
        console.log(
          `crash test: ${created.length} runs, ${waitingUnknown} waited with outcome_unknown, ${placeOrderCalls} ` +
            (`placeOrder calls committed, exchange received ${stats.received['placeOrder']} ` +
              `executed ${final.executed['placeOrder']} deduplicated ${final.deduplicated}`),
        );
      } finally {
        await serve.stop();
      }
    },
  );
});

async function exchangeStats(
  url: string,
): Promise<{ received: Record<string, number>; executed: Record<string, number>; deduplicated: number }> {
  const client = new Client({ name: 'crash-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await client.callTool({ name: 'getServerStats', arguments: {} });
    return result.structuredContent as {
      received: Record<string, number>;
      executed: Record<string, number>;
      deduplicated: number;
    };
  } finally {
    await client.close();
  }
}
