// Routing that learns, through the real engine: the auto strategy with router.live draws from the live outcomes it is
// given (RunEnvironment.liveEvidence) and follows them when they change; intent_routed records the numbers. Runs are
// kept in a real SQLite file; the model is scripted.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { LiveRouterEvidence, ModelResponse, RunSettings, RunStore, ToolSource } from '../core/index.ts';
import { openSqliteRunStore } from '../store/sqlite/open-sqlite-run-store.ts';
import { ofType } from '../../test/support/events.ts';
import { scriptedModel } from '../../test/support/scripted-model.ts';
import { settingsFrom } from './run-agent.ts';
import { RunEngine } from './run-engine.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-live-routing-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const book: ToolSource = {
  name: 'px',
  listTools: async () => [
    {
      name: 'getOrderBook',
      description: 'The order book',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      origin: { kind: 'mcp', server: 'px', tool: 'getOrderBook' },
    },
  ],
  callTool: async () => ({ ok: true, content: [{ type: 'text', text: 'bids 87.40, asks 87.90' }] }),
  close: async () => undefined,
};

const planReplies: Partial<ModelResponse>[] = [
  { text: JSON.stringify({ steps: [{ tool: 'getOrderBook', arguments: {} }] }) },
  { text: '{"final_answer": "deep book"}' },
];
const reactReplies: Partial<ModelResponse>[] = [
  { toolCalls: [{ id: 'b', name: 'getOrderBook', arguments: '{}' }] },
  { text: 'deep book' },
];

function lookups(react: [number, number], plan: [number, number]): LiveRouterEvidence {
  return {
    windowMs: 3_600_000,
    byIntent: [
      { intent: 'lookup', strategy: 'react', completed: react[0], failed: react[1], avgCostUsd: 0.001 },
      { intent: 'lookup', strategy: 'plan', completed: plan[0], failed: plan[1], avgCostUsd: 0.002 },
    ],
  };
}

async function routed(
  store: RunStore,
  options: { live: LiveRouterEvidence; replies: Partial<ModelResponse>[]; settings: Partial<RunSettings> },
) {
  const engine = new RunEngine({
    store,
    owner: 'test',
    leaseMs: 5000,
    environment: () =>
      Promise.resolve({ model: scriptedModel(options.replies), tools: book, liveEvidence: options.live }),
    fallbackSettings: settingsFrom({}),
  });
  const settings: RunSettings = { ...settingsFrom({ strategy: 'auto', stream: false }), ...options.settings };
  const { run } = await engine.start({ input: 'Show me the order book', model: 'fake:model', settings });
  const final = await engine.drive(run.id);
  assert.equal(final.status, 'completed', JSON.stringify(final.error));
  assert.equal(final.output, 'deep book');
  const data = ofType(await store.readEvents(run.id), 'intent_routed')[0]?.data;
  assert.ok(data !== undefined);
  return data;
}

describe('auto with router.live, through the engine', () => {
  it('follows the live outcomes, switches when they change, and records the evidence', async () => {
    const store = await openSqliteRunStore({ path: join(dir, 'runs.db') });
    const settings = { router: { live: true } };
    const first = await routed(store, { live: lookups([3, 11], [14, 2]), replies: planReplies, settings });
    assert.equal(first.route, 'plan');
    assert.equal(first.intent, 'lookup', 'the request is still a lookup: its outcome counts for plan on lookups');
    assert.equal(first.live?.chosen, 'plan');
    assert.deepEqual(
      first.live?.arms.map((a) => [a.strategy, a.priorAlpha + a.completed, a.priorBeta + a.failed]),
      [
        ['react', 4, 12],
        ['plan', 15, 3],
      ],
    );
    const expected =
      'planned first instead of ReAct (a lookup with getOrderBook): live outcomes favour plan for lookup requests ' +
      '(Beta(15, 3) drew 0.dd; react Beta(4, 12) drew 0.dd)';
    assert.equal(first.reason.replace(/0\.\d\d/g, '0.dd'), expected);

    const second = await routed(store, { live: lookups([14, 2], [3, 11]), replies: reactReplies, settings });
    assert.equal(second.route, 'react');
    assert.equal(second.live?.chosen, 'react');
    assert.match(second.reason, /^ReAct: a lookup with getOrderBook; live outcomes favour react for lookup requests/);
    await store.close();
  });

  it('without router.live the live outcomes are not read: the route stands, its intent is recorded', async () => {
    const store = await openSqliteRunStore({ path: join(dir, 'off.db') });
    const data = await routed(store, { live: lookups([0, 20], [20, 0]), replies: reactReplies, settings: {} });
    assert.equal(data.route, 'react');
    assert.equal(data.intent, 'lookup');
    assert.equal(data.live, undefined);
    await store.close();
  });
});
