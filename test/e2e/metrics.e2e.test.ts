// GET /metrics of a real `toolgate serve`: after a known set of runs (one that
// completes after a read, one that waits for approval, one whose call the
// tenant may not make, one the guard stops), the counters say exactly that —
// with bounded labels, never a run id — behind the API key; and on a port of
// their own with server.metricsPort.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Run } from '../../src/core/index.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, freePort, startServe, type StartedProcess } from '../support/processes.ts';

const KEY = 'acme-key-0123456789';
const USAGE = { promptTokens: 100, completionTokens: 10 };

function model(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string }[];
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  const answered = messages.some((m) => m.role === 'tool');
  const call = (name: string, args = '{}', id = name) => ({ id, name, arguments: args });
  if (answered) return { text: 'done', usage: USAGE };
  if (prompt === 'read') return { toolCalls: [call('getMarketMetrics')], usage: USAGE };
  if (prompt === 'order')
    return {
      toolCalls: [call('placeOrder', '{"userId":"bob","side":"BUY","price":90,"qty":1,"symbol":"DE-BASE-D+1"}')],
      usage: USAGE,
    };
  if (prompt === 'cancel') return { toolCalls: [call('cancelOrder', '{"orderId":"ord-1"}')], usage: USAGE };
  // "many": more calls in one turn than the guard allows.
  return {
    toolCalls: [
      call('getOrderBook', '{"depth":1}', 'a'),
      call('getOrderBook', '{"depth":2}', 'b'),
      call('getOrderBook', '{"depth":3}', 'c'),
    ],
    usage: USAGE,
  };
}

/** The value of one sample line, e.g. `toolgate_runs_total{status="completed",…}`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('metrics (toolgate serve)', () => {
  let mock: MockOpenAI;
  let dir: string;
  let server: StartedProcess & { url: string };
  const api = (path: string, init: RequestInit & { key?: string } = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: {
        'content-type': 'application/json',
        ...(init.key === '' ? {} : { authorization: `Bearer ${init.key ?? KEY}` }),
      },
    });
  const waitFor = async (id: string, statuses: string[]): Promise<Run> => {
    for (let i = 0; i < 300; i++) {
      const run = (await (await api(`/v1/runs/${id}`)).json()) as Run;
      if (statuses.includes(run.status)) return run;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`run ${id} did not reach ${statuses.join('|')}`);
  };
  const start = async (input: string, statuses: string[]): Promise<Run> => {
    const created = (await (await api('/v1/runs', { method: 'POST', body: JSON.stringify({ input }) })).json()) as Run;
    return waitFor(created.id, statuses);
  };

  before(async () => {
    mock = await startMockOpenAI({ handler: model });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-metrics-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: openai:mock
providers:
  openai: { baseUrl: "${mock.url}", apiKey: k, maxRetries: 0 }
prices:
  "openai:*": { inputPerMTok: 1000, outputPerMTok: 2000 }
guard: { maxToolCalls: 2 }
stream: false
tenants:
  acme:
    apiKeys: ["${KEY}"]
    deny: ["power-exchange/cancelOrder"]
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
server: { store: "sqlite:./runs.db" }
`,
    );
    server = await startServe({ cwd: dir });
  });
  after(async () => {
    await server.stop();
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'counts runs, tool calls by outcome, tokens and cost, ' + 'guard trips and waiting runs, with bounded labels',
    async () => {
      await start('read', ['completed']);
      const waiting = await start('order', ['waiting_approval']);
      await start('cancel', ['completed']);
      await start('many', ['failed']);
      const stream = new AbortController();
      const sse = await fetch(`${server.url}/v1/runs/${waiting.id}/events`, {
        headers: { authorization: `Bearer ${KEY}` },
        signal: stream.signal,
      });
      assert.equal(sse.status, 200);

      let text = '';
      const want: [string, Record<string, string>, number][] = [
        ['toolgate_runs_started_total', { strategy: 'react', tenant: 'acme' }, 4],
        ['toolgate_runs_total', { status: 'completed', strategy: 'react', tenant: 'acme' }, 2],
        ['toolgate_runs_total', { status: 'failed', strategy: 'react', tenant: 'acme' }, 1],
        ['toolgate_tool_calls_total', { tool: 'getMarketMetrics', effect: 'read', outcome: 'ok' }, 1],
        ['toolgate_tool_calls_total', { tool: 'placeOrder', effect: 'write', outcome: 'approval' }, 1],
        ['toolgate_tool_calls_total', { tool: 'cancelOrder', effect: 'write', outcome: 'denied' }, 1],
        ['toolgate_guard_trips_total', { code: 'budget_tool_calls', action: 'fail' }, 1],
        // read: 2 model calls, order: 1, cancel: 2, many: 1 — 100 tokens in and 10 out each.
        ['toolgate_model_call_duration_seconds_count', { model: 'openai:mock' }, 6],
        ['toolgate_tokens_total', { model: 'openai:mock', direction: 'input' }, 600],
        ['toolgate_tokens_total', { model: 'openai:mock', direction: 'output' }, 60],
        ['toolgate_cost_usd_total', { model: 'openai:mock' }, (600 * 1000 + 60 * 2000) / 1_000_000],
        ['toolgate_runs_waiting', { reason: 'approval' }, 1],
        ['toolgate_runs_waiting', { reason: 'escalated' }, 0],
        ['toolgate_tool_call_duration_seconds_count', { tool: 'getMarketMetrics' }, 1],
        ['toolgate_sse_subscribers', {}, 1],
      ];
      // The counters follow the runs' events as they are appended: give them a moment.
      for (let i = 0; i < 100; i++) {
        const response = await api('/metrics');
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
        text = await response.text();
        if (want.every(([name, labels, value]) => Math.abs((sample(text, name, labels) ?? NaN) - value) < 1e-9)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      stream.abort();
      for (const [name, labels, value] of want)
        assert.ok(
          Math.abs((sample(text, name, labels) ?? NaN) - value) < 1e-9,
          `${name}${JSON.stringify(labels)}: expected ${value}, got ${sample(text, name, labels)}`,
        );
      assert.ok((sample(text, 'toolgate_store_append_duration_seconds_count') ?? 0) > 0, 'store appends are timed');
      assert.ok((sample(text, 'toolgate_runs_waiting_oldest_seconds', { reason: 'approval' }) ?? -1) >= 0);
      assert.ok(
        text
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('#'))
          .every((l) => l.startsWith('toolgate_')),
        'every metric is named toolgate_*',
      );
      assert.doesNotMatch(text, /run_[0-9a-f]{24}|call_[0-9a-f]{24}/, 'no run or call id as a label');
      assert.equal((await api('/metrics', { key: '' })).status, 401, 'behind the API key');
    },
  );

  it('server.metricsPort serves them on a port of their own, without a key; the API port says where', async () => {
    const other = mkdtempSync(join(tmpdir(), 'toolgate-metrics-port-'));
    const port = await freePort();
    writeFileSync(
      join(other, 'toolgate.yaml'),
      `model: openai:mock\nproviders:\n  openai: { baseUrl: ` +
        `"${mock.url}", apiKey: k }\nserver: { metricsPort: ${port} }\n`,
    );
    const second = await startServe({ cwd: other });
    try {
      const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(scraped.status, 200);
      assert.match(await scraped.text(), /^# HELP toolgate_/m);
      assert.equal((await fetch(`http://127.0.0.1:${port}/v1/runs`)).status, 404, 'nothing else on that port');
      const onApi = await fetch(`${second.url}/metrics`);
      assert.equal(onApi.status, 404);
      assert.match(
        ((await onApi.json()) as { error: { message: string } }).error.message,
        new RegExp(`served on http://127\\.0\\.0\\.1:${port}/metrics`),
      );
    } finally {
      await second.stop();
      rmSync(other, { recursive: true, force: true });
    }
  });
});
