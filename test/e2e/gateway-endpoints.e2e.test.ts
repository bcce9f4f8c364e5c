// Virtual servers and results gated on every method, end to end: one
// `toolgate gateway` process in front of the power-exchange example and a
// server whose results carry a secret, reached by the official MCP SDK client
// at two endpoints (/mcp/trading, /mcp/ops) in both protocol eras.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { Run } from '../../src/core/index.ts';
import { api, connectHttp, runIdOf, startGateway, textOf, type RunningGateway } from '../support/gateway.ts';
import { POWER_EXCHANGE_SERVER } from '../support/processes.ts';

const VAULT_SERVER = fileURLToPath(new URL('../fixtures/mcp/vault-server.ts', import.meta.url));
const DESK = 'desk-key-123456';
const OPS = 'ops-key-1234567';
const AUDIT = 'audit-key-123456';
const OUTSIDER = 'outsider-key-123456';
const LIMIT = 12;

function config(): string {
  const node = JSON.stringify(process.execPath);
  return `
servers:
  px:
    command: ${node}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
  vault:
    command: ${node}
    args: [${JSON.stringify(VAULT_SERVER)}]
redact: [apiSecret]
tenants:
  desk: { apiKeys: [${DESK}] }
  ops: { apiKeys: [${OPS}] }
  audit: { apiKeys: [${AUDIT}] }
  outsider: { apiKeys: [${OUTSIDER}] }
gateway:
  maxResultBytes: 4096
  rateLimits:
    tenant: { calls: ${LIMIT}, perSeconds: 600 }
  endpoints:
    /mcp/trading:
      tools: ["px/*"]
      deny: ["px/cancelOrder"]
      tenants: [desk]
      instructions: "The trading desk's tools."
    /mcp/ops:
      tools: ["vault/*"]
      tenants: [desk, ops, audit]
`;
}

describe('toolgate gateway: virtual servers (gateway.endpoints) and results gated on every method', () => {
  let dir: string;
  let gateway: RunningGateway;
  const clients: Client[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-endpoints-'));
    const configFile = join(dir, 'toolgate.yaml');
    writeFileSync(configFile, config());
    gateway = await startGateway({ config: configFile, store: `sqlite:${join(dir, 'toolgate.db')}`, cwd: dir });
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function connect(options: Parameters<typeof connectHttp>[1]): Promise<Client> {
    const { client } = await connectHttp(gateway, options);
    clients.push(client);
    return client;
  }

  for (const era of ['legacy', 'auto'] as const) {
    it(`serves each endpoint its own tools and records the endpoint in the run (${era} era)`, async () => {
      const trading = await connect({ key: DESK, era, path: '/mcp/trading' });
      if (era === 'legacy') assert.equal(trading.getInstructions(), "The trading desk's tools.");
      const names = (await trading.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('getOrderBook'), names.join(', '));
      assert.ok(!names.includes('readAccount'), `vault's tool is not offered at /mcp/trading: ${names.join(', ')}`);
      assert.ok(!names.includes('cancelOrder'), 'denied at the endpoint');

      const outside = await trading.callTool({ name: 'readAccount', arguments: {} });
      assert.equal(outside.isError, true);
      assert.match(textOf(outside), /endpoint \/mcp\/trading does not offer it \(its tools: px\/\*\)/);
      const denied = await trading.callTool({ name: 'cancelOrder', arguments: { orderId: 'o-1' } });
      assert.match(textOf(denied), /endpoint \/mcp\/trading denies it \(rule "px\/cancelOrder"\)/);

      const ops = await connect({ key: DESK, era, path: '/mcp/ops' });
      const opsNames = (await ops.listTools()).tools.map((t) => t.name);
      assert.deepEqual(opsNames, ['readAccount']);
      // Resources follow the endpoint's servers: vault's only.
      const uris = (await ops.listResources()).resources.map((r) => r.uri).sort();
      assert.deepEqual(uris, ['vault://account', 'vault://big', 'vault://note']);

      const runId = runIdOf(outside);
      const opsRun = runIdOf(await ops.callTool({ name: 'readAccount', arguments: {} }));
      assert.notEqual(runId, opsRun, 'one session, one run, per endpoint');
      for (const [id, path] of [
        [runId, '/mcp/trading'],
        [opsRun, '/mcp/ops'],
      ] as const) {
        const { status, body } = await api<Run>(gateway, `/v1/runs/${id}`, { key: DESK });
        assert.equal(status, 200);
        assert.equal(body.settings?.gateway?.endpoint, path);
      }
    });
  }

  it('refuses a tenant the endpoint does not list with 403 naming the endpoint and who may', async () => {
    await assert.rejects(connect({ key: OUTSIDER, path: '/mcp/trading' }));
    const response = await fetch(`${gateway.url}/mcp/trading`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${OUTSIDER}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(response.status, 403);
    const body = (await response.json()) as { error: { message: string } };
    assert.match(body.error.message, /tenant "outsider" may not connect to endpoint \/mcp\/trading: only "desk" may/);
    const unknown = await fetch(`${gateway.url}/mcp/nowhere`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DESK}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(unknown.status, 404);
    assert.match(await unknown.text(), /no MCP endpoint at \/mcp\/nowhere.*\/mcp\/trading, \/mcp\/ops/);
  });

  it('plain /mcp still serves everything the tenant may use', async () => {
    const plain = await connect({ key: DESK });
    const names = (await plain.listTools()).tools.map((t) => t.name);
    for (const name of ['getOrderBook', 'cancelOrder', 'readAccount']) assert.ok(names.includes(name), name);
  });

  it('redacts the configured keys in tool results, resources and prompts, and cuts a large resource', async () => {
    const ops = await connect({ key: AUDIT, era: 'auto', path: '/mcp/ops' });
    const tool = await ops.callTool({ name: 'readAccount', arguments: {} });
    assert.deepEqual(tool.structuredContent, { account: 'acct-7', apiSecret: '[redacted]', limits: { daily: 5 } });
    assert.doesNotMatch(JSON.stringify(tool), /vault-secret-1/);

    const read = await ops.readResource({ uri: 'vault://account' });
    const [content] = read.contents;
    assert.ok(content !== undefined && 'text' in content);
    assert.deepEqual(JSON.parse(content.text), { account: 'acct-7', apiSecret: '[redacted]', limits: { daily: 5 } });
    assert.match(content.text, /\n {2}"account"/, 'the layout of the JSON is kept');
    // Prose is left as it is: a key in words cannot be told from words.
    const note = (await ops.readResource({ uri: 'vault://note' })).contents[0];
    assert.ok(note !== undefined && 'text' in note);
    assert.equal(note.text, 'apiSecret: in prose');

    const prompt = await ops.getPrompt({ name: 'account-prompt' });
    assert.doesNotMatch(JSON.stringify(prompt), /vault-secret-1/);
    assert.match(JSON.stringify(prompt.messages), /\[redacted\]/);

    const big = await ops.readResource({ uri: 'vault://big' });
    assert.ok(JSON.stringify(big.contents).length <= 4096, `cut to the limit (${JSON.stringify(big.contents).length})`);
    assert.deepEqual(big._meta?.['toolgate/truncated'], { bytes: 200_057, limit: 4096 });
    const last = big.contents.at(-1);
    assert.ok(last !== undefined && 'text' in last);
    assert.match(last.text, /the text was cut; the resource was 200057 bytes, over the gateway's limit of 4096/);
  });

  it('counts resources/list and prompts/get in the rate limit and names the limit when refused', async () => {
    const ops = await connect({ key: OPS, path: '/mcp/ops' });
    let served = 0;
    let refusal: unknown;
    for (let i = 0; i < LIMIT + 2 && refusal === undefined; i += 1) {
      try {
        if (i % 2 === 0) await ops.listResources();
        else await ops.getPrompt({ name: 'account-prompt' });
        served += 1;
      } catch (error) {
        refusal = error;
      }
    }
    assert.equal(served, LIMIT, 'every request that reaches a server counts, and no more');
    assert.ok(refusal instanceof Error);
    assert.match(
      refusal.message,
      new RegExp(`refused: rate limit: tenant "ops" may make ${LIMIT} calls per 600 s; retry in \\d+ s`),
    );
    // tools/list answers from toolgate's catalog: it does not count, and is not refused.
    assert.deepEqual(
      (await ops.listTools()).tools.map((t) => t.name),
      ['readAccount'],
    );
  });
});
