// Decision links against a real `toolgate serve` (SQLite file, mock model, the power-exchange MCP server with a
// state file): links are made with createDecisionLinks and the server's secret and URL, as a notification has them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDecisionLinks, type IssuedLinks } from '../../src/app/approvals/decision-links.ts';
import { ToolgateClient } from '../../src/client/index.ts';
import type { Run, RunStatus } from '../../src/core/index.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { startServe, type StartedProcess } from '../support/processes.ts';
import { mockTradingYaml } from '../support/trading-config.ts';

const KEY = 'acme-links-key-0123456789';
const SECRET = 'links-e2e-secret-0123456789abcdefghijkl';

/** Each run's input is the quantity it orders (MWh): one placeOrder, then an answer. */
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

describe('decision links against toolgate serve', { timeout: 60_000 }, () => {
  let mock: MockOpenAI;
  let dir: string;
  let server: StartedProcess & { url: string };
  let client: ToolgateClient;

  before(async () => {
    mock = await startMockOpenAI({ handler: modelFor });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-links-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `${mockTradingYaml({ modelUrl: mock.url, stateFile: join(dir, 'venue.json') })}tenants:
  acme:
    apiKeys: [{ key: "${KEY}", userId: alice }]
server:
  store: sqlite:./data/runs.db
approvals:
  linkSecret: env:LINK_SECRET
`,
    );
    server = await startServe({ cwd: dir, env: { LINK_SECRET: SECRET } });
    client = new ToolgateClient({ url: server.url, apiKey: KEY });
  });
  after(async () => {
    await server?.stop();
    await mock?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function settle(runId: string, statuses: readonly RunStatus[]): Promise<Run> {
    for (let i = 0; ; i++) {
      const run = await client.getRun(runId);
      if (statuses.includes(run.status)) return run;
      if (i > 400) assert.fail(`run ${runId} is ${run.status}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** A run waiting on its placeOrder of `qty` MWh, and links for it (made `agoMs` ago). */
  async function waiting(qty: number, agoMs = 0): Promise<{ run: Run; links: IssuedLinks }> {
    const run = await settle((await client.createRun({ input: String(qty) })).id, ['waiting_approval']);
    const pending = run.pendingApproval;
    assert.ok(pending !== undefined);
    const links = await createDecisionLinks({
      secret: SECRET,
      baseUrl: () => server.url,
      ttlMs: 60_000,
      now: () => Date.now() - agoMs,
    }).issue({ runId: run.id, toolCallId: pending.toolCallId, arguments: pending.arguments, target: 'desk' });
    return { run, links };
  }

  /** Orders of `qty` MWh placed by these runs at the venue (its state file). */
  function ordersOf(qty: number): number {
    const state = JSON.parse(readFileSync(join(dir, 'venue.json'), 'utf8')) as {
      exchange: { orders: { qtyLots: number; priceCents: number }[] };
    };
    // 50.01 EUR/MWh: none of the venue's seeded orders has that price.
    return state.exchange.orders.filter((o) => o.qtyLots === qty * 10 && o.priceCents === 5001).length;
  }

  const form = (reason?: string): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null' },
    body: new URLSearchParams(reason === undefined ? {} : { reason }).toString(),
  });

  it('GET shows the confirm page, deciding nothing; the form POST approves once; a second use is refused', async () => {
    const { run, links } = await waiting(1);
    const page = await fetch(links.approve);
    assert.equal(page.status, 200);
    assert.match(
      page.headers.get('content-security-policy') ?? '',
      /^default-src 'none'; style-src 'unsafe-inline'; form-action 'self'/,
    );
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const html = await page.text();
    assert.match(html, /<form method="post"/);
    assert.match(html, /placeOrder/);
    assert.match(html, /&#34;qty&#34;: 1,/);
    assert.equal((await client.getRun(run.id)).status, 'waiting_approval', 'GET decided nothing');

    const decided = await fetch(links.approve, form('looks right'));
    assert.equal(decided.status, 200, await decided.clone().text());
    assert.match(await decided.text(), /Approved/);
    const done = await settle(run.id, ['completed', 'failed']);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(ordersOf(1), 1, 'exactly one order at the venue');
    const input = (await client.readEvents(run.id)).flatMap((e) => (e.type === 'input_received' ? [e.data.input] : []));
    assert.deepEqual(input, [
      {
        type: 'approval',
        toolCallId: run.pendingApproval?.toolCallId,
        decision: 'approve',
        reason: 'looks right',
        source: { via: 'link', target: 'desk', linkId: links.linkIds[0] },
      },
    ]);

    const twice = await fetch(links.approve, { method: 'POST', headers: { accept: 'application/json' } });
    assert.equal(twice.status, 409);
    const body = (await twice.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'conflict');
    assert.match(body.error.message, /^this link was already used at /);
    const again = await fetch(links.approve, form());
    assert.equal(again.status, 409);
    assert.match(await again.text(), /already used/);
    assert.equal(ordersOf(1), 1, 'still one order');
  });

  it('a late link: 410 link_expired, and the run still waits', async () => {
    const { run, links } = await waiting(2, 120_000);
    const late = await fetch(links.approve, { method: 'POST', headers: { accept: 'application/json' } });
    assert.equal(late.status, 410);
    const body = (await late.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'link_expired');
    assert.match(body.error.message, new RegExp(`^this link expired at ${links.expiresAt.replace(/\./g, '\\.')}`));
    assert.equal((await fetch(links.reject)).status, 410, 'the page says so too');
    assert.equal((await client.getRun(run.id)).status, 'waiting_approval');
    await client.reject(run.id, { toolCallId: run.pendingApproval?.toolCallId ?? '' });
  });

  it('after an edit through the runs API, the old link is refused and says why', async () => {
    const { run, links } = await waiting(3);
    const toolCallId = run.pendingApproval?.toolCallId ?? '';
    const edited = { ...run.pendingApproval?.arguments, qty: 4 };
    await client.edit(run.id, { toolCallId, arguments: edited });
    const refused = await fetch(links.approve, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(refused.status, 409);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    assert.match(body.error.message, /^already decided: edit via api by alice at /);
    await settle(run.id, ['completed', 'failed']);
    assert.deepEqual([ordersOf(3), ordersOf(4)], [0, 1], 'the edited order ran, the link added none');
  });

  it("a bot's JSON POST rejects the call", async () => {
    const { run, links } = await waiting(5);
    const answer = await fetch(links.reject, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ reason: 'too big for today', actor: 'U123 (slack)' }),
    });
    assert.equal(answer.status, 200);
    const toolCallId = run.pendingApproval?.toolCallId ?? '';
    assert.deepEqual(await answer.json(), { runId: run.id, toolCallId, decision: 'reject', decided: true });
    await settle(run.id, ['completed', 'failed']);
    const input = (await client.readEvents(run.id)).flatMap((e) => (e.type === 'input_received' ? [e.data.input] : []));
    assert.deepEqual(input[0]?.type === 'approval' ? input[0].source : undefined, {
      via: 'chat',
      target: 'desk',
      linkId: links.linkIds[1],
      actor: 'U123 (slack)',
    });
    assert.equal(ordersOf(5), 0, 'no order was placed');
    const forged = await fetch(`${links.reject.slice(0, -4)}AAAA`, {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    assert.equal(forged.status, 404);
  });
});
