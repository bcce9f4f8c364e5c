// Tool servers fail one at a time: a real `toolgate serve` with three real MCP
// servers, one of which is not there at start-up. The others serve runs; the
// missing one is reported (log, /readyz, /v1/tools, run_started) and retried
// in the background until it answers, then its tools come back.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Run, RunEvent, ToolSourceHealth } from '../../src/core/index.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type RecordedRequest,
  type MockResponse,
} from '../support/mock-openai-server.ts';
import {
  EVERYTHING_SERVER,
  POWER_EXCHANGE_SERVER,
  freePort,
  runCli,
  startProcess,
  startServe,
  type StartedProcess,
} from '../support/processes.ts';

const PAGINATED_SERVER = fileURLToPath(new URL('../fixtures/mcp/paginated-server.ts', import.meta.url));

interface ToolsBody {
  tools: { name: string; available: boolean; origin: { server: string } }[];
  servers: ToolSourceHealth[];
}

function modelFor(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string }[];
  const turn = messages.filter((m) => m.role === 'assistant').length;
  return turn === 0
    ? { toolCalls: [{ id: 'm1', name: 'getMarketMetrics', arguments: '{}' }] }
    : { text: 'The market is calm.' };
}

/** Polls until `check` holds (the background retry has its own pace); fails with the last value after `attempts`. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, attempts = 200): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < attempts; i++) {
    last = await read();
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`condition never held; last value: ${JSON.stringify(last).slice(-3000)}`);
}

describe('tool servers fail one at a time (toolgate serve, three MCP servers)', () => {
  let mock: MockOpenAI;
  let dir: string;
  let serve: StartedProcess & { url: string };
  let everything: StartedProcess | undefined;
  let port: number;
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${serve.url}${path}`);
    return { status: response.status, body: (await response.json()) as T };
  };

  before(async () => {
    mock = await startMockOpenAI({ handler: modelFor });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-tool-servers-'));
    port = await freePort();
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: openai:mock
providers:
  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }
servers:
  exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
  pages:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(PAGINATED_SERVER)}]
  everything:
    url: http://127.0.0.1:${port}/mcp
server:
  store: sqlite:./runs.db
  toolRetryMaxDelayMs: 300
`,
    );
    serve = await startServe({ cwd: dir });
  });
  after(async () => {
    await serve?.stop();
    await everything?.stop();
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'starts with two of three: the missing server is ' + 'logged with its cause, /readyz and /v1/tools report it',
    async () => {
      // The servers are connected before the port opens, so the banner already knows.
      // The summary is the banner's second line: wait for it rather than read the output once.
      await eventually(
        async () => serve.output(),
        (out) => /tools: 2 of 3 servers up, \d+ tools \(everything down: see \/readyz\)/.test(out),
      );
      assert.match(
        serve.output(),
        new RegExp(`tool server \\\\?"everything\\\\?" is down: .*ECONNREFUSED 127\\.0\\.0\\.1:${port}`),
      );

      const ready = await get<{ status: string; servers: ToolSourceHealth[] }>('/readyz');
      assert.equal(ready.status, 200, 'two servers up: ready');
      const byName = new Map(ready.body.servers.map((s) => [s.name, s]));
      assert.deepEqual([...byName.keys()], ['exchange', 'pages', 'everything']);
      assert.equal(byName.get('exchange')?.state, 'up');
      assert.equal(byName.get('pages')?.tools, 8);
      assert.equal(byName.get('everything')?.state, 'down');
      assert.match(byName.get('everything')?.error ?? '', new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
      assert.ok((byName.get('everything')?.failures ?? 0) >= 1);

      const tools = await get<ToolsBody>('/v1/tools');
      assert.equal(tools.status, 200);
      const servers = new Set(tools.body.tools.map((t) => t.origin.server));
      assert.deepEqual([...servers].sort(), ['exchange', 'pages']);
      assert.ok(tools.body.tools.every((t) => t.available));
      assert.equal(tools.body.servers.find((s) => s.name === 'everything')?.state, 'down');
    },
  );

  it('a run goes on with the others and its run_started says what was missing', async () => {
    const response = await fetch(`${serve.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'How is the market?' }),
    });
    const created = (await response.json()) as Run;
    assert.equal(response.status, 201);
    const run = await eventually(
      async () => (await get<Run>(`/v1/runs/${created.id}`)).body,
      (r) => r.status === 'completed' || r.status === 'failed',
    );
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const { events } = (await get<{ events: RunEvent[] }>(`/v1/runs/${created.id}/events?format=json`)).body;
    const started = events.find((e) => e.type === 'run_started');
    assert.ok(started?.type === 'run_started');
    assert.deepEqual(
      started.data.unavailable?.map((u) => u.server),
      ['everything'],
    );
    assert.match(started.data.unavailable?.[0]?.reason ?? '', /ECONNREFUSED/);
    assert.ok(started.data.tools.includes('getMarketMetrics') && started.data.tools.includes('tool_7'));
    const result = events.find((e) => e.type === 'tool_result');
    assert.ok(result?.type === 'tool_result' && result.data.ok, 'the call to a server that is up went through');
  });

  it('the missing server comes up: the background retry connects it and its tools become available', async () => {
    everything = await startProcess({
      command: process.execPath,
      args: [EVERYTHING_SERVER, 'streamableHttp'],
      env: { PORT: String(port) },
      ready: /listening on port/i,
    });
    const ready = await eventually(
      () => get<{ servers: ToolSourceHealth[] }>('/readyz'),
      (r) => r.body.servers.find((s) => s.name === 'everything')?.state === 'up',
    );
    assert.ok((ready.body.servers.find((s) => s.name === 'everything')?.tools ?? 0) >= 10);
    const tools = await get<ToolsBody>('/v1/tools');
    assert.ok(tools.body.tools.some((t) => t.name === 'get-sum' && t.origin.server === 'everything' && t.available));
    assert.ok(
      tools.body.tools.some((t) => t.name === 'getMarketMetrics'),
      'the other servers\u2019 tools are still there',
    );
    await eventually(
      async () => serve.output(),
      (out) => /tool server \\?"everything\\?" is back \(\d+ tools\)/.test(out),
    );
  });

  it('toolgate tools lists what it could reach and names the server that failed, with its cause', async () => {
    const closed = await freePort();
    const config = join(dir, 'tools.yaml');
    writeFileSync(
      config,
      `servers:
  pages:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(PAGINATED_SERVER)}]
  gone:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(join(dir, 'no-such-server.js'))}]
  closed:
    url: http://127.0.0.1:${closed}/mcp
`,
    );
    const result = await runCli(['tools', '--config', config], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^pages \(8 tools\)/m);
    assert.match(result.stdout, /tool_7/);
    assert.match(result.stderr, /could not reach "gone": .*Cannot find module '.*no-such-server\.js'/);
    assert.match(result.stderr, new RegExp(`could not reach "closed": .*ECONNREFUSED 127\\.0\\.0\\.1:${closed}`));
    assert.match(result.stderr, /listed 1 of 3 servers/);
  });
});
