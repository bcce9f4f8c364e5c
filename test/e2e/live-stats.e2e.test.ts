// GET /v1/stats and the live gauges of a real `toolgate serve` on SQLite: a tenant's key sees its own tenant only
// (another tenant's name is refused), filters narrow the rows, bad parameters are 400, /metrics has the live gauges,
// the client's getStats reads the same, and a restarted server reads its window back from the store.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolgateApiError, ToolgateClient } from '../../src/client/index.ts';
import type { Run, StatsSnapshot } from '../../src/core/index.ts';
import { startServe, type StartedProcess } from '../support/processes.ts';

const ACME = 'acme-key-0123456789';
const GLOBEX = 'globex-key-0123456789';
const OPS = 'ops-key-0123456789';

describe('live statistics (toolgate serve)', () => {
  let dir: string;
  let server: StartedProcess & { url: string };
  const api = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    });
  const stats = async (query: string, key: string): Promise<StatsSnapshot> => {
    const response = await api(`/v1/stats${query}`, key);
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as StatsSnapshot;
  };
  const run = async (input: string, key: string): Promise<void> => {
    const created = (await (
      await api('/v1/runs', key, { method: 'POST', body: JSON.stringify({ input }) })
    ).json()) as Run;
    for (let i = 0; i < 200; i++) {
      const got = (await (await api(`/v1/runs/${created.id}`, key)).json()) as Run;
      if (got.status === 'completed') return;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.fail(`run ${created.id} did not complete`);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-live-stats-'));
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify({ turns: [{ text: 'done', usage: { promptTokens: 1000, completionTokens: 100 } }] }),
    );
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: scripted:./script.json
prices:
  "scripted:./script.json": { inputPerMTok: 2, outputPerMTok: 10 }
stats: { windowMinutes: 30, refreshMs: 200 }
tenants:
  acme: { apiKeys: ["${ACME}"] }
  globex: { apiKeys: ["${GLOBEX}"] }
  ops: { apiKeys: ["${OPS}"] }
server: { store: "sqlite:./runs.db" }
`,
    );
    server = await startServe({ cwd: dir });
    await run('first', ACME);
    await run('second', ACME);
    await run('third', GLOBEX);
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('scopes a tenant key to its tenant, filters, and refuses bad parameters', async () => {
    const acme = await stats('', ACME);
    assert.equal(acme.windowMs, 30 * 60_000);
    assert.equal(acme.bucketMs, 30_000);
    assert.deepEqual(
      acme.rows.map((r) => [r.tenant, r.intent, r.strategy, r.model, r.runs.completed]),
      [['acme', '-', 'react', 'scripted:./script.json', 2]],
    );
    assert.equal(acme.totals.completionRate, 1);
    assert.equal(acme.totals.costUsd, (2 * (1000 * 2 + 100 * 10)) / 1e6);
    assert.deepEqual(acme.totals.tokens, { input: 2000, output: 200 });
    assert.equal(acme.totals.series.completed.at(-1), 2);
    assert.equal((await stats('?tenant=acme', ACME)).totals.runs.completed, 2);
    assert.equal((await stats('', GLOBEX)).totals.runs.completed, 1);
    assert.equal((await stats('?strategy=plan', ACME)).rows.length, 0);
    assert.equal((await stats('?model=scripted%3A.%2Fscript.json', ACME)).rows.length, 1);

    const foreign = await api('/v1/stats?tenant=globex', ACME);
    assert.equal(foreign.status, 403);
    assert.match(((await foreign.json()) as { error: { message: string } }).error.message, /tenant "acme"/);
    for (const query of ['?tenants=acme', `?model=${'x'.repeat(201)}`, '?intent=', '?strategy=a&strategy=b']) {
      const bad = await api(`/v1/stats${query}`, ACME);
      assert.equal(bad.status, 400, query);
      assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'usage');
    }
  });

  it('reads the same through the client', async () => {
    const client = new ToolgateClient({ url: server.url, apiKey: GLOBEX });
    const snapshot = await client.getStats({ strategy: 'react' });
    assert.deepEqual(
      snapshot.rows.map((r) => [r.tenant, r.runs.completed]),
      [['globex', 1]],
    );
    await assert.rejects(client.getStats({ tenant: 'acme' }), (error) => {
      assert.ok(error instanceof ToolgateApiError);
      assert.equal(error.status, 403);
      return true;
    });
  });

  it('exports the live gauges on /metrics', async () => {
    const text = await (await api('/metrics', OPS)).text();
    const labels = 'intent="-",strategy="react",model="scripted:./script.json"';
    assert.match(text, new RegExp(`toolgate_live_runs\\{tenant="acme",${escape(labels)},outcome="completed"\\} 2`));
    assert.match(text, new RegExp(`toolgate_live_runs\\{tenant="globex",${escape(labels)},outcome="failed"\\} 0`));
    assert.match(text, new RegExp(`toolgate_live_completion_ratio\\{tenant="acme",${escape(labels)}\\} 1`));
    assert.match(text, new RegExp(`toolgate_live_cost_usd\\{tenant="acme",${escape(labels)}\\} 0.006`));
    assert.match(text, /toolgate_live_model_latency_p95_seconds\{tenant="acme"[^}]*\} \d/);
    assert.match(text, /# TYPE toolgate_live_tool_latency_p95_seconds gauge/);
  });

  it('reads its window back from the store after a restart', async () => {
    await server.stop();
    server = await startServe({ cwd: dir });
    const restarted = await stats('', ACME);
    assert.equal(restarted.totals.runs.completed, 2);
    assert.equal(restarted.totals.runs.started, 2);
    assert.equal((await stats('', GLOBEX)).totals.runs.completed, 1);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
