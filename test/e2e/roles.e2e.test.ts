// Policies by role against a real `toolgate serve` (SQLite file, mock model, the power-exchange MCP server with a
// state file): two API keys of one tenant, one holding role trader and one viewer. Only traders see and may approve
// placeOrder (tenants.acme.roles, tenants.acme.approvers).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolgateClient } from '../../src/client/index.ts';
import type { Run, RunStatus } from '../../src/core/index.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { startServe, type StartedProcess } from '../support/processes.ts';
import { mockTradingYaml } from '../support/trading-config.ts';

const TRADER_KEY = 'acme-trader-key-0123456789';
const VIEWER_KEY = 'acme-viewer-key-0123456789';

/** Each run orders the quantity its input names (MWh): one placeOrder, then an answer. */
function modelFor(request: RecordedRequest): {
  text: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
} {
  const messages = request.body.messages as { role: string; content: string }[];
  if (messages.some((m) => m.role === 'tool')) return { text: 'Done.' };
  const qty = Number(messages.findLast((m) => m.role === 'user')?.content ?? '1');
  const args = { userId: 'alice', side: 'BUY', price: 50.01, qty, symbol: 'DE-BASE-D+1' };
  return { text: 'Placing it.', toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: JSON.stringify(args) }] };
}

describe('policies by role against toolgate serve', { timeout: 60_000 }, () => {
  let mock: MockOpenAI;
  let dir: string;
  let server: StartedProcess & { url: string };
  let trader: ToolgateClient;
  let viewer: ToolgateClient;

  before(async () => {
    mock = await startMockOpenAI({ handler: modelFor });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-roles-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `${mockTradingYaml({ modelUrl: mock.url, stateFile: join(dir, 'venue.json') })}tools:
  "power-exchange/placeOrder": { approval: required }
tenants:
  acme:
    apiKeys:
      - { key: "${TRADER_KEY}", userId: alice, roles: [trader] }
      - { key: "${VIEWER_KEY}", userId: alice, roles: [viewer] }
    allow: ["power-exchange/get*"]
    roles:
      trader: { allow: ["power-exchange/placeOrder"] }
    approvers:
      "power-exchange/placeOrder": [trader]
server:
  store: sqlite:./data/runs.db
`,
    );
    server = await startServe({ cwd: dir });
    trader = new ToolgateClient({ url: server.url, apiKey: TRADER_KEY });
    viewer = new ToolgateClient({ url: server.url, apiKey: VIEWER_KEY });
  });
  after(async () => {
    await server?.stop();
    await mock?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function settle(runId: string, statuses: readonly RunStatus[]): Promise<Run> {
    for (let i = 0; ; i++) {
      const run = await trader.getRun(runId);
      if (statuses.includes(run.status)) return run;
      if (i > 400) assert.fail(`run ${runId} is ${run.status}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Orders of `qty` MWh at the venue (50.01 EUR/MWh: none of its seeded orders has that price). */
  function ordersOf(qty: number): number {
    const state = JSON.parse(readFileSync(join(dir, 'venue.json'), 'utf8')) as {
      exchange: { orders: { qtyLots: number; priceCents: number }[] };
    };
    return state.exchange.orders.filter((o) => o.qtyLots === qty * 10 && o.priceCents === 5001).length;
  }

  const post = (path: string, key: string, body: unknown): Promise<Response> =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });

  it("shows each key's roles, and lists placeOrder only to the trader", async () => {
    assert.deepEqual((await viewer.getSession()).roles, ['viewer']);
    const names = async (client: ToolgateClient) => (await client.listTools()).tools.map((t) => t.name).sort();
    assert.ok((await names(trader)).includes('placeOrder'));
    const seen = await names(viewer);
    assert.ok(seen.length > 0 && seen.every((name) => name.startsWith('get')), seen.join(', '));
  });

  it("denies the viewer's run the call, with a reason naming the role that may", async () => {
    const run = await settle((await viewer.createRun({ input: '2' })).id, ['completed', 'failed']);
    assert.equal(run.settings?.roles?.join(), 'viewer', 'the run records its caller roles');
    const decision = (await viewer.readEvents(run.id)).find(
      (e) => e.type === 'gate_decision' && e.data.name === 'placeOrder',
    );
    assert.ok(decision?.type === 'gate_decision');
    assert.equal(decision.data.decision, 'denied');
    assert.match(JSON.stringify(decision.data), /a caller with role trader may call it/);
    assert.equal(ordersOf(2), 0);
  });

  it("refuses the viewer's approve (403, nothing written); the trader's places exactly one order", async () => {
    const run = await settle((await trader.createRun({ input: '3' })).id, ['waiting_approval']);
    const toolCallId = run.pendingApproval?.toolCallId ?? assert.fail('no pending call');
    const before = (await trader.readEvents(run.id)).length;
    const approve = { type: 'approval', toolCallId, decision: 'approve' };

    const refused = await post(`/v1/runs/${run.id}/input`, VIEWER_KEY, approve);
    assert.equal(refused.status, 403);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'forbidden');
    assert.equal(
      body.error.message,
      'only role trader may decide approvals of power-exchange/placeOrder (tenants.acme.approvers); you hold: viewer',
    );
    const forged = await post(`/v1/runs/${run.id}/input`, VIEWER_KEY, { ...approve, source: { via: 'link' } });
    assert.equal(forged.status, 400, 'a client cannot claim a decision source');
    assert.equal((await trader.readEvents(run.id)).length, before, 'nothing was written');
    assert.equal((await trader.getRun(run.id)).status, 'waiting_approval');
    assert.equal(ordersOf(3), 0);

    const approved = await post(`/v1/runs/${run.id}/input`, TRADER_KEY, approve);
    assert.equal(approved.status, 202);
    await settle(run.id, ['completed']);
    assert.equal(ordersOf(3), 1, 'exactly one order at the venue');
    const input = (await trader.readEvents(run.id)).flatMap((e) =>
      e.type === 'input_received' && e.data.input.type === 'approval' ? [e.data.input] : [],
    );
    assert.deepEqual(input[0]?.source, { via: 'api', roles: ['trader'] });
  });
});
