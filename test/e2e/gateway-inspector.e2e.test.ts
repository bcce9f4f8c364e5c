// `toolgate gateway` driven by an MCP client we did not write: the official MCP
// Inspector's CLI, over Streamable HTTP and over stdio. Every call it makes
// must pass the gate and be recorded, as with any other client.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { RunEvent } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import {
  POWER_EXCHANGE_SERVER,
  TOOLGATE_BIN,
  runProcess,
  startProcess,
  type StartedProcess,
} from '../support/processes.ts';

const INSPECTOR_BIN = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);
const API_KEY = 'acme-key-123456';
const AUTH = `Authorization: Bearer ${API_KEY}`;
const INSPECTOR_TIMEOUT_MS = 60_000;
/** The Inspector CLI's exit code when the tool answered with isError: true. */
const EXIT_TOOL_IS_ERROR = 5;

interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface ListedTool {
  name: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

interface CallResult {
  _meta?: Record<string, unknown>;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

describe('MCP Inspector CLI against toolgate gateway', () => {
  let dir: string;
  let home: string;
  let config: string;
  let gateway: StartedProcess;
  let baseUrl: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-inspector-'));
    // The Inspector keeps its catalog and storage under ~/.mcp-inspector: keep it inside this test's folder.
    home = join(dir, 'home');
    mkdirSync(home);
    config = join(dir, 'toolgate.yaml');
    writeFileSync(
      config,
      [
        'servers:',
        '  power-exchange:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]`,
        'tools:',
        '  "power-exchange/placeOrder":',
        '    approval: required',
        '    inject:',
        '      userId: "{{user.id}}"',
        'tenants:',
        '  acme:',
        '    apiKeys:',
        `      - key: ${API_KEY}`,
        '        userId: alice',
        '',
      ].join('\n'),
    );
    const started = await startProcess({
      command: process.execPath,
      args: [
        TOOLGATE_BIN,
        'gateway',
        '--config',
        config,
        '--port',
        '0',
        '--store',
        `sqlite:${join(dir, 'gateway.db')}`,
      ],
      env: { NO_COLOR: '1' },
      ready: /MCP at (http:\/\/\S+)\/mcp,/,
      timeoutMs: 30_000,
      cwd: dir,
    });
    gateway = started;
    baseUrl = started.match[1] ?? '';
  });

  after(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `mcp-inspector --cli …` with no stdin, its home in the test's folder, killed after a minute. */
  function inspector(args: string[]): Promise<InspectorRun> {
    return runProcess({
      args: [INSPECTOR_BIN, '--cli', ...args],
      cwd: dir,
      env: { ...process.env, HOME: home, NO_COLOR: '1', NO_PROXY: '127.0.0.1,localhost' },
      timeoutMs: INSPECTOR_TIMEOUT_MS,
    });
  }

  const overHttp = (...args: string[]) =>
    inspector([`${baseUrl}/mcp`, '--transport', 'http', '--header', AUTH, '--format', 'json', ...args]);
  const overStdio = (...args: string[]) =>
    inspector([
      ...args,
      '--format',
      'json',
      // After `--`, everything is the server's command line (its --config is not the Inspector's).
      '--',
      process.execPath,
      TOOLGATE_BIN,
      'gateway',
      '--stdio',
      '--config',
      config,
      '--tenant',
      'acme',
      '--user',
      'alice',
      '--store',
      `sqlite:${join(dir, 'stdio.db')}`,
    ]);

  function resultOf<T>(run: InspectorRun): T {
    const parsed = JSON.parse(run.stdout) as { result?: T };
    assert.ok(parsed.result !== undefined, `no result in ${run.stdout}\n${run.stderr}`);
    return parsed.result;
  }

  async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await fetch(`${baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    });
    const body = await res.text();
    assert.ok(res.ok, `${init.method ?? 'GET'} ${path}: ${res.status} ${body}`);
    return JSON.parse(body) as T;
  }

  const eventsOf = async (runId: string) =>
    (await api<{ events: RunEvent[] }>(`/v1/runs/${runId}/events?format=json`)).events;
  const runIdOf = (result: CallResult) => String(result._meta?.['toolgate/runId'] ?? '');

  function assertListing(tools: ListedTool[]): void {
    const names = tools.map((t) => t.name);
    for (const name of ['getOrderBook', 'placeOrder'])
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    const placeOrder = tools.find((t) => t.name === 'placeOrder');
    // userId is filled in by the gate from the caller's identity: a client never sees it.
    assert.doesNotMatch(JSON.stringify(placeOrder?.inputSchema), /userId/);
    assert.equal(tools.find((t) => t.name === 'getOrderBook')?.annotations?.readOnlyHint, true);
  }

  it('over HTTP: tools/list shows the gateway tools, with injected arguments hidden', async () => {
    const run = await overHttp('--method', 'tools/list');
    assert.equal(run.code, 0, run.stderr);
    assertListing(resultOf<{ tools: ListedTool[] }>(run).tools);
  });

  it('over HTTP: a read call and an invalid write pass the gate, and the runs API shows the decisions', async () => {
    const read = await overHttp(
      '--method',
      'tools/call',
      '--tool-name',
      'getOrderBook',
      '--tool-arg',
      'symbol=DE-BASE-D+1',
    );
    assert.equal(read.code, 0, read.stderr);
    const book = resultOf<CallResult>(read);
    assert.notEqual(book.isError, true);
    assert.match(book.content[0]?.text ?? '', /^DE-BASE-D\+1 order book, best 5 levels per side:\nASK .* EUR\/MWh/);
    assert.match(runIdOf(book), /^run_/);

    const invalid = await overHttp(
      '--method',
      'tools/call',
      '--tool-name',
      'placeOrder',
      '--tool-arg',
      'side=SIDEWAYS',
      'price=40',
      'qty=1',
      'symbol=DE-BASE-D+1',
    );
    assert.equal(invalid.code, EXIT_TOOL_IS_ERROR, invalid.stderr);
    const rejected = resultOf<CallResult>(invalid);
    assert.equal(rejected.isError, true);
    assert.match(
      rejected.content[0]?.text ?? '',
      /invalid:\n- side: must be one of "BUY", "SELL"; you sent "SIDEWAYS"/,
    );

    // Each Inspector invocation is its own MCP session, so its own run.
    const readLog = await eventsOf(runIdOf(book));
    assert.deepEqual(
      ofType(readLog, 'gate_decision').map((e) => [e.data.name, e.data.decision]),
      [['getOrderBook', 'allowed']],
    );
    assert.equal(ofType(readLog, 'tool_result')[0]?.data.ok, true);
    const invalidLog = await eventsOf(runIdOf(rejected));
    const decision = ofType(invalidLog, 'gate_decision')[0]?.data;
    assert.deepEqual([decision?.name, decision?.decision], ['placeOrder', 'invalid']);
    assert.deepEqual(
      decision?.issues?.map((i) => i.path),
      ['/side'],
    );
    assert.equal(ofType(invalidLog, 'tool_call').length, 0, 'an invalid call never reaches the server');
  });

  it(
    'over HTTP: a write that needs approval waits until it is ' +
      'approved over the runs API, then runs as the key’s user',
    async () => {
      // The Inspector CLI does not answer elicitations, so the call is held until a decision arrives over the runs API.
      const pending = overHttp(
        '--method',
        'tools/call',
        '--tool-name',
        'placeOrder',
        '--tool-arg',
        'side=BUY',
        'price=40',
        'qty=1',
        'symbol=DE-BASE-D+1',
      );
      const runId = await waitForApproval();
      const held = ofType(await eventsOf(runId), 'approval_required')[0]?.data;
      assert.equal(held?.name, 'placeOrder');
      assert.equal(held?.arguments['userId'], 'alice');
      await api(`/v1/runs/${runId}/input`, {
        method: 'POST',
        body: JSON.stringify({ type: 'approval', toolCallId: held?.toolCallId, decision: 'approve' }),
      });

      const done = await pending;
      assert.equal(done.code, 0, done.stderr);
      const placed = resultOf<CallResult>(done);
      assert.equal(runIdOf(placed), runId);
      assert.match(
        placed.content[0]?.text ?? '',
        /^Order ord-\d+ accepted: BUY 1\.0 MWh DE-BASE-D\+1 limit 40\.00 EUR\/MWh/,
      );
      assert.equal((placed.structuredContent?.['order'] as { userId?: string } | undefined)?.userId, 'alice');
      const decisions = ofType(await eventsOf(runId), 'gate_decision').map((e) => e.data.decision);
      assert.deepEqual(decisions, ['approval_required', 'allowed']);
    },
  );

  /** The id of the first gateway run that waits for approval (polled: the Inspector call runs meanwhile). */
  async function waitForApproval(): Promise<string> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const { runs } = await api<{ runs: { id: string }[] }>('/v1/runs?status=waiting_approval');
      if (runs[0] !== undefined) return runs[0].id;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no run waited for approval within 30 s; gateway output:\n${gateway.output()}`);
  }

  it('over stdio: the Inspector spawns `toolgate gateway --stdio`, lists the tools and calls a read tool', async () => {
    const list = await overStdio('--method', 'tools/list');
    assert.equal(list.code, 0, list.stderr);
    assertListing(resultOf<{ tools: ListedTool[] }>(list).tools);

    const read = await overStdio(
      '--method',
      'tools/call',
      '--tool-name',
      'getOrderBook',
      '--tool-arg',
      'symbol=DE-BASE-D+1',
    );
    assert.equal(read.code, 0, read.stderr);
    const book = resultOf<CallResult>(read);
    assert.match(book.content[0]?.text ?? '', /^DE-BASE-D\+1 order book/);
    assert.match(runIdOf(book), /^run_/);
    // The gateway's log lines and its "MCP on stdio" line go to stderr, never into the MCP stream.
    assert.match(read.stderr, /toolgate gateway: MCP on stdio/);
  });
});
