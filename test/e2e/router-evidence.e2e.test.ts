// The loop closes: the auto strategy reads an eval report (router.evalResults)
// and prefers, for the request's intent class, the strategy that passed best
// within the run's budget; writing a new report changes routing at once.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Toolgate } from '../../src/app/toolgate.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import type { ToolgateConfig } from '../../src/config/config-schema.ts';
import { ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER } from '../support/processes.ts';

const report = (rows: { intent: string; strategy: string; passRate: number; avgCostUsd: number; runs: number }[]) =>
  JSON.stringify({ suite: 's', results: [], summary: [], byIntent: rows });

describe('auto routing by eval results', () => {
  let mock: MockOpenAI;
  let dir: string;
  const open: Toolgate[] = [];
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-router-'));
  });
  after(async () => {
    await Promise.all(open.map((t) => t.close()));
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function toolgate(config: Partial<ToolgateConfig>): Toolgate {
    const settings = resolveSettings(
      {
        model: 'openai:m',
        providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
        servers: { px: { command: process.execPath, args: [POWER_EXCHANGE_SERVER] } },
        strategy: 'auto',
        stream: false,
        ...config,
      },
      {},
      {},
    );
    const t = new Toolgate({ settings, cwd: dir });
    open.push(t);
    return t;
  }

  it('prefers the best-passing strategy for the intent, within budget, and follows a new report', async () => {
    const file = join(dir, 'results.json');
    writeFileSync(
      file,
      report([
        { intent: 'lookup', strategy: 'react', passRate: 0.5, avgCostUsd: 0.001, runs: 4 },
        { intent: 'lookup', strategy: 'plan', passRate: 1, avgCostUsd: 0.002, runs: 4 },
        { intent: 'lookup', strategy: 'reflect', passRate: 1, avgCostUsd: 0.5, runs: 4 },
      ]),
    );
    const t = toolgate({ router: { evalResults: 'results.json' }, guard: { maxCostUsd: 0.1 } });
    mock.enqueue(
      { text: JSON.stringify({ steps: [{ tool: 'getOrderBook', arguments: {} }] }) },
      { text: '{"final_answer": "deep book"}' },
    );
    const first = await t.run({ input: 'Show me the order book' });
    assert.equal(first.status, 'completed', JSON.stringify(first.error));
    const routed = ofType(await t.store.readEvents(first.id), 'intent_routed')[0]?.data;
    assert.equal(routed?.route, 'plan', 'plan passed more lookups than react; reflect is over the budget');
    assert.equal(routed?.evidence?.intent, 'lookup');
    assert.equal(routed?.evidence?.source, file);
    assert.deepEqual(
      routed?.evidence?.compared.map((c) => c.strategy),
      ['react', 'plan'],
    );
    assert.equal(
      routed?.reason,
      'planned first instead of ReAct (a lookup with getOrderBook): for ' +
        'lookup requests the eval results favour plan (100% of 4 runs passed)',
    );

    writeFileSync(
      file,
      report([
        { intent: 'lookup', strategy: 'react', passRate: 0.9, avgCostUsd: 0.001, runs: 10 },
        { intent: 'lookup', strategy: 'plan', passRate: 0.6, avgCostUsd: 0.002, runs: 10 },
      ]),
    );
    // A new report may land within the file system's timestamp resolution: make the change visible.
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    mock.enqueue({ toolCalls: [{ id: 'b', name: 'getOrderBook', arguments: '{}' }] }, { text: 'deep book' });
    const second = await t.run({ input: 'Show me the order book' });
    assert.equal(second.status, 'completed', JSON.stringify(second.error));
    const rerouted = ofType(await t.store.readEvents(second.id), 'intent_routed')[0]?.data;
    assert.equal(rerouted?.route, 'react');
    assert.equal(rerouted?.evidence?.passRate, 0.9);
    assert.equal(
      rerouted?.reason,
      'ReAct: a lookup with getOrderBook; for lookup requests the eval results favour react (90% of 10 runs passed)',
    );
  });

  it(
    'a missing or malformed report routes as without one (with a ' +
      'warning); a kind of request it does not cover keeps its route',
    async () => {
      const t = toolgate({ router: { evalResults: 'nope.json' } });
      mock.enqueue({ toolCalls: [{ id: 'b', name: 'getOrderBook', arguments: '{}' }] }, { text: 'ok' });
      const run = await t.run({ input: 'Show me the order book' });
      const routed = ofType(await t.store.readEvents(run.id), 'intent_routed')[0]?.data;
      assert.equal(routed?.route, 'react');
      assert.equal(routed?.evidence, undefined);

      writeFileSync(
        join(dir, 'change-only.json'),
        report([{ intent: 'change', strategy: 'react', passRate: 1, avgCostUsd: 0, runs: 2 }]),
      );
      const u = toolgate({ router: { evalResults: 'change-only.json' } });
      mock.enqueue({ toolCalls: [{ id: 'c', name: 'getOrderBook', arguments: '{}' }] }, { text: 'ok' });
      const other = await u.run({ input: 'Show me the order book' });
      assert.equal(ofType(await u.store.readEvents(other.id), 'intent_routed')[0]?.data.evidence, undefined);
    },
  );
});
