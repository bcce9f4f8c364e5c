// Gateway mode over stdio (as Claude Desktop or Cursor spawn it), the gateway's
// limits (approval timeout, rate limits, result size), and a gateway that dies
// with a session open: real processes, the official MCP SDK client, SQLite files.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/app/open-store.ts';
import type { Run } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import {
  api,
  connectHttp,
  connectStdio,
  eventually,
  runEvents,
  runIdOf,
  startGateway,
  textOf,
} from '../support/gateway.ts';
import { EVERYTHING_SERVER, POWER_EXCHANGE_SERVER, runCli } from '../support/processes.ts';

const KEY = 'acme-key-123456';
const ORDER = { side: 'BUY', price: 80, qty: 1, symbol: 'DE-BASE-D+1' };

function config(gateway: string, server = ''): string {
  const node = JSON.stringify(process.execPath);
  return `
servers:
  power-exchange:
    command: ${node}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
  everything:
    command: ${node}
    args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]
tools:
  "power-exchange/placeOrder":
    approval: required
    inject:
      userId: "{{user.id}}"
  "everything/trigger-long-running-operation":
    effect: read
    timeoutMs: 500
tenants:
  acme:
    apiKeys:
      - key: ${KEY}
        userId: alice
gateway:
${gateway}
${server}`;
}

describe('toolgate gateway', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-gateway-stdio-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'over stdio: acts for the configured identity, asks approval ' +
      'through elicitation, and completes the run when the client leaves',
    async () => {
      const file = join(dir, 'stdio.yaml');
      writeFileSync(file, config('  identity: { tenant: acme, user: bob }'));
      const store = `sqlite:${join(dir, 'stdio.db')}`;
      const asked: string[] = [];
      const { client, stderr } = await connectStdio(['--config', file, '--store', store, '--user', 'alice'], {
        cwd: dir,
        elicit: (request) => {
          asked.push(request.message);
          return { action: 'accept', content: { decision: 'approve' } };
        },
      });
      let runId: string;
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'getOrderBook') && tools.some((t) => t.name === 'echo'));
        const read = await client.callTool({ name: 'getOrderBook', arguments: { symbol: 'DE-BASE-D+1' } });
        assert.match(textOf(read), /order book/);
        const write = await client.callTool({ name: 'placeOrder', arguments: ORDER });
        assert.match(textOf(write), /Wallet of alice/, '--user overrides gateway.identity.user');
        assert.equal(asked.length, 1);
        runId = runIdOf(write);
        assert.match(stderr(), /toolgate gateway: MCP on stdio/);
      } finally {
        await client.close();
      }
      const opened = await openStore(store, { cwd: dir });
      try {
        const done = await eventually(
          async () => {
            const run = await opened.getRun(runId);
            return run?.status === 'completed' ? run : undefined;
          },
          15_000,
          'the stdio session run to complete',
        );
        assert.equal(done.tenantId, 'acme');
        assert.equal(done.userId, 'alice');
        assert.match(done.output ?? '', /the client closed stdin.*2 tool calls: 2 ok/);
        const log = await opened.readEvents(runId);
        assert.equal(ofType(log, 'input_received')[0]?.data.input.type, 'approval');
      } finally {
        await opened.close();
      }
    },
  );

  it('over stdio with --endpoint: serves that virtual server only, refuses a path it does not configure', async () => {
    const file = join(dir, 'endpoint.yaml');
    writeFileSync(
      file,
      config(
        [
          '  endpoints:',
          '    /mcp/trading:',
          '      tools: ["power-exchange/*"]',
          '      deny: ["power-exchange/cancelOrder"]',
          '      tenants: [acme]',
          '      instructions: "The trading desk."',
        ].join('\n'),
      ),
    );
    const store = `sqlite:${join(dir, 'endpoint.db')}`;
    const args = ['--config', file, '--store', store, '--tenant', 'acme'];
    const { client } = await connectStdio([...args, '--endpoint', '/mcp/trading'], { cwd: dir });
    let runId: string;
    try {
      assert.equal(client.getInstructions(), 'The trading desk.');
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('getOrderBook'), names.join(', '));
      assert.ok(!names.includes('echo') && !names.includes('cancelOrder'), names.join(', '));
      const read = await client.callTool({ name: 'getOrderBook', arguments: { symbol: 'DE-BASE-D+1' } });
      assert.match(textOf(read), /order book/);
      runId = runIdOf(read);
      const denied = await client.callTool({ name: 'cancelOrder', arguments: { orderId: 'x' } });
      assert.equal(denied.isError, true);
      assert.match(textOf(denied), /endpoint \/mcp\/trading denies it/);
    } finally {
      await client.close();
    }
    const opened = await openStore(store, { cwd: dir });
    try {
      const run = await opened.getRun(runId);
      assert.equal(run?.settings?.gateway?.endpoint, '/mcp/trading');
    } finally {
      await opened.close();
    }
    const unknown = await runCli(['gateway', '--stdio', ...args, '--endpoint', '/mcp/nowhere'], { cwd: dir });
    assert.notEqual(unknown.code, 0);
    assert.match(
      unknown.stderr,
      /--endpoint: no MCP endpoint at \/mcp\/nowhere.*\/mcp\/trading \(gateway\.endpoints\)/,
    );
    const anonymous = await runCli(
      ['gateway', '--stdio', '--config', file, '--store', store, '--endpoint', '/mcp/trading'],
      {
        cwd: dir,
      },
    );
    assert.notEqual(anonymous.code, 0);
    assert.match(anonymous.stderr, /set --tenant or gateway\.identity\.tenant/);
  });

  it(
    'refuses a held write when no decision comes in time, a call ' +
      'over its rate limit, and cuts a result over the size limit',
    async () => {
      const file = join(dir, 'limits.yaml');
      writeFileSync(
        file,
        config(
          [
            '  approvalTimeoutMs: 1500',
            '  sessionIdleMs: 1000',
            '  maxSessions: 2',
            '  maxResultBytes: 2048',
            '  rateLimits:',
            '    tenant: { calls: 8, perSeconds: 60 }',
            '    tools:',
            '      getOrderBook: { calls: 2, perSeconds: 60 }',
          ].join('\n'),
        ),
      );
      const gateway = await startGateway({ config: file, store: `sqlite:${join(dir, 'limits.db')}`, cwd: dir });
      try {
        const { client } = await connectHttp(gateway, { key: KEY });
        const initialize = () =>
          fetch(`${gateway.url}/mcp`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              authorization: `Bearer ${KEY}`,
            },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'extra', version: '1' } },
            }),
          });
        assert.equal((await initialize()).status, 200, 'a second session fits under gateway.maxSessions: 2');
        const third = await initialize();
        assert.equal(third.status, 503);
        assert.match(await third.text(), /open sessions, its limit \(gateway.maxSessions\)/);
        const started = Date.now();
        const held = await client.callTool({ name: 'placeOrder', arguments: ORDER }, { timeout: 30_000 });
        assert.equal(held.isError, true);
        assert.match(textOf(held), /placeOrder was not run: no decision came within 1500 ms/);
        assert.ok(Date.now() - started >= 1400, 'it waited for the timeout');
        const runId = runIdOf(held);
        const { body: run } = await api<Run>(gateway, `/v1/runs/${runId}`, { key: KEY });
        assert.equal(run.status, 'running');
        assert.equal(run.pendingApproval, undefined);

        for (let i = 0; i < 2; i++)
          assert.notEqual(
            (await client.callTool({ name: 'getOrderBook', arguments: { symbol: 'DE-BASE-D+1' } })).isError,
            true,
          );
        const limited = await client.callTool({ name: 'getOrderBook', arguments: { symbol: 'DE-BASE-D+1' } });
        assert.equal(limited.isError, true);
        assert.match(
          textOf(limited),
          new RegExp(
            String.raw`rate limit: getOrderBook \(rule "getOrderBook"\) for t` +
              String.raw`enant "acme" may make 2 calls per 60 s; retry in \d+ s`,
          ),
        );

        const slow = await client.callTool({
          name: 'trigger-long-running-operation',
          arguments: { duration: 5, steps: 5 },
        });
        assert.equal(slow.isError, true);
        assert.match(textOf(slow), /did not answer within 500 ms|timed out|timeout/i);

        const big = await client.callTool({ name: 'echo', arguments: { message: 'x'.repeat(10_000) } });
        assert.ok(
          new TextEncoder().encode(JSON.stringify(big.content)).length <= 2048,
          'the client gets at most the limit',
        );
        assert.match(
          textOf(big),
          /toolgate: the text was cut; the result was \d+ bytes, over the gateway's limit of 2048/,
        );
        // A resource is cut the same way: server-everything's structure.md is about 12 KB.
        const uri = 'demo://resource/static/document/structure.md';
        const document = await client.readResource({ uri });
        assert.ok(
          new TextEncoder().encode(JSON.stringify(document.contents)).length <= 2048,
          'the client gets at most the limit',
        );
        const [cutDocument, note] = document.contents as { uri: string; text?: string }[];
        assert.equal(cutDocument?.uri, uri);
        assert.ok(cutDocument?.text?.endsWith('…'));
        assert.match(
          note?.text ?? '',
          /^\[toolgate: the text was cut; the resource was \d+ bytes, over the gateway's limit of 2048\]$/,
        );
        assert.deepEqual(Object.keys((document._meta?.['toolgate/truncated'] ?? {}) as object), ['bytes', 'limit']);

        // Every call of the tenant counts too: placeOrder, two getOrderBook, the slow call, echo, the resource read,
        // then
        // these, until the ninth.
        let tenantLimited: string | undefined;
        for (let i = 0; i < 10 && tenantLimited === undefined; i++) {
          const echoed = await client.callTool({ name: 'echo', arguments: { message: `n${i}` } });
          if (echoed.isError === true) tenantLimited = textOf(echoed);
        }
        assert.match(tenantLimited ?? '', /^rate limit: tenant "acme" may make 8 calls per 60 s; retry in \d+ s/);

        const log = await runEvents(gateway, runId, KEY);
        const refusal = ofType(log, 'tool_result').find((e) => e.data.name === 'placeOrder');
        assert.equal(refusal?.data.error?.code, 'rejected');
        assert.equal(
          ofType(log, 'tool_result').find((e) => e.data.error?.code === 'rate_limited')?.data.name,
          'getOrderBook',
        );
        assert.equal(
          ofType(log, 'tool_result').find((e) => e.data.name === 'trigger-long-running-operation')?.data.error?.code,
          'tool_timeout',
        );
        const cut = ofType(log, 'tool_result').find((e) => e.data.name === 'echo');
        assert.equal(cut?.data.truncated?.limit, 2048);
        assert.ok((cut?.data.truncated?.bytes ?? 0) > 10_000);

        // A held call outlasting the idle time did not end the session (it was refused by the approval timeout above);
        // a session without requests for sessionIdleMs ends, and its 2025-era session id is gone.
        const idle = await eventually(
          async () => {
            const { body } = await api<Run>(gateway, `/v1/runs/${runId}`, { key: KEY });
            return body.status === 'completed' ? body : undefined;
          },
          10_000,
          'the idle session to end',
        );
        assert.match(idle.output ?? '', /no request for 1 s/);
        await assert.rejects(client.listTools(), /Session not found|404/);
        await client.close();
      } finally {
        await gateway.stop();
      }
    },
  );

  it(
    'a gateway that dies with a call held: the next gateway on ' +
      'the store ends the session as lost, and the call never runs',
    async () => {
      const file = join(dir, 'crash.yaml');
      writeFileSync(file, config('  approvalTimeoutMs: 600000', 'server:\n  leaseMs: 1000'));
      const store = `sqlite:${join(dir, 'crash.db')}`;
      const first = await startGateway({ config: file, store, cwd: dir });
      let runId: string;
      try {
        const { client } = await connectHttp(first, { key: KEY, name: 'doomed' });
        void client.callTool({ name: 'placeOrder', arguments: ORDER }, { timeout: 60_000 }).catch(() => undefined);
        const waiting = await eventually(async () => {
          const { body } = await api<{ runs: Run[] }>(first, '/v1/runs?status=waiting_approval', { key: KEY });
          return body.runs.find((r) => r.input.includes('doomed'));
        });
        runId = waiting.id;
      } finally {
        first.child.kill('SIGKILL');
        await first.stop();
      }
      // The lease (1 s) runs out; the next gateway finds the session and ends it.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const second = await startGateway({ config: file, store, cwd: dir });
      try {
        const ended = await eventually(
          async () => {
            const { body } = await api<Run>(second, `/v1/runs/${runId}`, { key: KEY });
            return body.status === 'failed' ? body : undefined;
          },
          15_000,
          'the lost session to be ended',
        );
        assert.equal(ended.error?.code, 'session_lost');
        const log = await runEvents(second, runId, KEY);
        assert.equal(ofType(log, 'tool_call').length, 0, 'the held write never ran');
        assert.equal(
          ofType(log, 'tool_result').find((e) => e.data.name === 'placeOrder')?.data.error?.code,
          'cancelled',
        );
      } finally {
        await second.stop();
      }
    },
  );
});
