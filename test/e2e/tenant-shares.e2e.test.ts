// No tenant starves the others, on real processes: a `toolgate gateway` gives
// each tenant and each API key a share of its sessions (both MCP eras); two
// gateways on one PostgreSQL count sessions and rate limits together; and a
// `toolgate serve` flooded by one tenant still accepts another's run.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connectHttp, startGateway, textOf, type RunningGateway } from '../support/gateway.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';
import { POWER_EXCHANGE_SERVER, startServe, type StartedProcess } from '../support/processes.ts';

const ACME_1 = 'acme-key-one-123456';
const ACME_2 = 'acme-key-two-123456';
const GLOBEX = 'globex-key-123456';
const READ = { name: 'getOrderBook', arguments: { symbol: 'DE-BASE-D+1' } };

function gatewayConfig(gateway: string): string {
  return `
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
tenants:
  acme:
    apiKeys: ["${ACME_1}", "${ACME_2}"]
  globex:
    apiKeys: ["${GLOBEX}"]
gateway:
${gateway}
`;
}

/** A 2025-era initialize, sent by hand to read the status and the message of a refusal. */
async function initialize(gateway: RunningGateway, key: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'by-hand', version: '1' } },
    }),
  });
  return { status: response.status, text: await response.text() };
}

describe('gateway sessions: each tenant and each key has a share', () => {
  let dir: string;
  let gateway: RunningGateway;
  const clients: Client[] = [];
  const connect = async (key: string, options: Parameters<typeof connectHttp>[1] = {}) => {
    const connected = await connectHttp(gateway, { key, ...options });
    clients.push(connected.client);
    return connected;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-shares-'));
    writeFileSync(join(dir, 'toolgate.yaml'), gatewayConfig('  maxSessionsPerTenant: 3\n  maxSessionsPerKey: 2'));
    gateway = await startGateway({
      config: join(dir, 'toolgate.yaml'),
      store: `sqlite:${join(dir, 'runs.db')}`,
      cwd: dir,
    });
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'one key fills its share, then the tenant its own, in both eras; ' +
      'the other tenant still opens a session; an ended one frees its place',
    async () => {
      const first = await connect(ACME_1);
      await connect(ACME_1);
      const third = await initialize(gateway, ACME_1);
      assert.equal(third.status, 429, third.text);
      assert.match(
        third.text,
        new RegExp(
          String.raw`this API key has 2 open gateway sessions, its share \(gateway.maxSessi` +
            String.raw`onsPerKey 2; other keys of tenant \\"acme\\" may still open sessions\)`,
        ),
      );

      // The tenant's other key: one more session (2026-07-28, stateless: a session per toolgate-session header), then
      // the
      // tenant is full.
      const { client: modern } = await connect(ACME_2, { era: 'auto', headers: { 'toolgate-session': 'one' } });
      assert.ok((await modern.listTools()).tools.length > 0);
      const { client: over } = await connect(ACME_2, { era: 'auto', headers: { 'toolgate-session': 'two' } });
      await assert.rejects(
        over.listTools(),
        /tenant "acme" has 3 open gateway sessions, its share \(gateway.maxSessionsPerTenant 3\)/,
      );
      const refused = await initialize(gateway, ACME_2);
      assert.equal(refused.status, 429);
      assert.match(refused.text, /gateway.maxSessionsPerTenant 3/);

      const { client: globex } = await connect(GLOBEX);
      assert.match(textOf(await globex.callTool(READ)), /order book/i, "acme's sessions took nothing of globex's");

      // The session ends as the client ends it; its place is given back as its run completes.
      await first.transport.terminateSession();
      const deadline = Date.now() + 10_000;
      for (;;) {
        const listed = await over.listTools().then(
          (result) => result.tools.length,
          (error: unknown) =>
            Date.now() > deadline
              ? Promise.reject(error instanceof Error ? error : new Error(String(error)))
              : undefined,
        );
        if (listed !== undefined) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  );
});

describe('two gateways on one PostgreSQL count sessions and rate limits together', { skip: postgresSkip() }, () => {
  const databases: string[] = [];
  let dir: string;
  let gateways: RunningGateway[] = [];
  const clients: Client[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-shares-pg-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      gatewayConfig('  maxSessionsPerTenant: 2\n  rateLimits:\n    tenant: { calls: 3, perSeconds: 60 }'),
    );
    const store = await createDatabase('toolgate_shares', databases);
    gateways = await Promise.all(
      [1, 2].map(() => startGateway({ config: join(dir, 'toolgate.yaml'), store, cwd: dir })),
    );
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.all(gateways.map((g) => g.stop()));
    for (const name of databases) await dropDatabase(name);
    rmSync(dir, { recursive: true, force: true });
  });

  it("a tenant's rate limit is reached across both instances", async () => {
    const [one, two] = gateways;
    assert.ok(one !== undefined && two !== undefined);
    const { client: atOne } = await connectHttp(one, { key: ACME_1 });
    const { client: atTwo } = await connectHttp(two, { key: ACME_2 });
    clients.push(atOne, atTwo);
    for (const client of [atOne, atOne, atTwo]) assert.notEqual((await client.callTool(READ)).isError, true);
    const limited = await atTwo.callTool(READ);
    assert.equal(limited.isError, true, 'the fourth call of 3 per 60 s, made at the other instance');
    assert.match(textOf(limited), /rate limit: tenant "acme" may make 3 calls per 60 s; retry in \d+ s/);
  });

  it("a tenant's share of sessions is reached across both instances", async () => {
    const [one] = gateways;
    assert.ok(one !== undefined);
    // The test before left one acme session open at each instance.
    const third = await initialize(one, ACME_2);
    assert.equal(third.status, 429, 'one session at each instance: the share of 2 is full');
    assert.match(
      third.text,
      /tenant \\"acme\\" has 2 open gateway sessions, its share \(gateway.maxSessionsPerTenant 2\)/,
    );
    assert.equal((await initialize(one, GLOBEX)).status, 200, 'globex has a share of its own');
  });
});

describe('the runs queue: one tenant’s flood does not push others into 429 (toolgate serve)', () => {
  let mock: MockOpenAI;
  let dir: string;
  let server: StartedProcess & { url: string };
  const post = (key: string, input: string) =>
    fetch(`${server.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ input }),
    });

  before(async () => {
    // Every model answer takes long: the first run holds the one slot, the rest wait in the queue.
    mock = await startMockOpenAI({ handler: () => ({ delayMs: 60_000, then: { text: 'late' } }) });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-queue-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: openai:mock
providers:
  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }
tenants:
  acme: { apiKeys: ["${ACME_1}"] }
  globex: { apiKeys: ["${GLOBEX}"] }
server:
  store: sqlite:./runs.db
  concurrency: 1
  queueLimit: 4
  shutdownGraceMs: 0
`,
    );
    server = await startServe({ cwd: dir });
  });
  after(async () => {
    await server?.stop();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'the flooding tenant is refused once its share of the ' +
      'queue is full, naming it; the other tenant’s run is accepted',
    async () => {
      const statuses: number[] = [];
      let refusal: Response | undefined;
      for (let i = 0; i < 8 && refusal === undefined; i++) {
        const response = await post(ACME_1, `flood ${i}`);
        statuses.push(response.status);
        if (response.status === 429) refusal = response;
      }
      assert.deepEqual(
        statuses,
        [201, 201, 201, 429],
        'one run in the slot, two waiting: acme’s share of a queue of 4 between two tenants',
      );
      assert.ok(refusal !== undefined);
      assert.ok(Number(refusal.headers.get('retry-after')) >= 1);
      const body = (await refusal.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'overloaded');
      assert.match(
        body.error.message,
        new RegExp(
          String.raw`tenant "acme" has 2 runs waiting for a slot, its share of the qu` +
            String.raw`eue \(server.queueLimitPerTenant 2; other tenants still get in\)`,
        ),
      );
      const globex = await post(GLOBEX, 'one run');
      assert.equal(globex.status, 201, await globex.text());
    },
  );
});
