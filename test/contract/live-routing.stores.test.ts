// Routing that learns, the whole loop on SQLite and PostgreSQL: a real Toolgate with `strategy: auto`, the eval
// results as priors and `router.live` for one tenant. Runs end → their events feed toolgate.stats → the next run's
// liveEvidence → the bandit in intent_routed. When ReAct runs fail on lookups the router moves them to plan; when plan
// starts failing it moves them back. The numbers intent_routed names are the live figures of that moment and what the
// runs' logs say; a new instance on the same store, after a refresh, reads the same figures and routes the same way.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import type { LiveRouterEvidence, Message, ModelAdapter, RunEventDataMap, RunStore } from '../../src/core/index.ts';
import { Toolgate } from '../../src/app/toolgate.ts';
import { defineTool } from '../../src/tools/local/define-tool.ts';
import { LocalToolSource } from '../../src/tools/local/local-tool-source.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import { whenPostgres, withSchema } from './postgres-harness.ts';
import { ofType } from '../support/events.ts';

type Routed = RunEventDataMap['intent_routed'];
type Arm = 'react' | 'plan';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-live-routing-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const MODEL = 'mock:router';
/** The offline eval favoured ReAct for lookups a little: the priors Beta(4, 2) and Beta(3, 3). */
const PRIORS: Record<Arm, [number, number]> = { react: [4, 2], plan: [3, 3] };
const EVAL_RESULTS = join(dir, 'results.json');
writeFileSync(
  EVAL_RESULTS,
  JSON.stringify({
    byIntent: [
      { intent: 'lookup', strategy: 'react', passRate: 0.75, runs: 4, avgCostUsd: 0 },
      { intent: 'lookup', strategy: 'plan', passRate: 0.5, runs: 4, avgCostUsd: 0 },
    ],
  }),
);
/** A lookup by its signals (one tool named, nothing to change): ReAct, unless the evidence says otherwise. */
const LOOKUP = 'Show me the order book';
/** ReAct runs that keep calling the tool hit this limit; a plan (plan, one step, answer) stays well inside it. */
const MAX_STEPS = 4;
/** How a run of the failing strategy ends: ReAct at the step limit, a plan that cannot be read. */
const FAILS_WITH: Record<Arm, string> = { react: 'max_steps', plan: 'unparseable_tool_call' };
/**
 * A phase ends when the last STREAK runs took the new arm and the old one would win a draw with a chance under
 * MOVED (the first phase) or SETTLED (the second, before the other instance routes the same way); or fails after CAP.
 */
const STREAK = 3;
const MOVED = 0.05;
const SETTLED = 1e-4;
const CAP = 150;

const book = defineTool({
  name: 'getOrderBook',
  description: 'The order book of the day-ahead market',
  inputSchema: { type: 'object', properties: {} },
  effect: 'read',
  execute: () => 'bids 87.40, asks 87.90',
});

function textOf(message: Message | undefined): string {
  if (message === undefined || !('content' in message)) return '';
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
}

/**
 * A model that answers each kind of request as a model would (it reads the prompts, not `purpose`): the router's
 * question, a plan, the answer after a plan, a ReAct turn. `world.failing` says which way of working goes wrong: a
 * failing ReAct model never stops calling the tool (the run hits maxSteps); a failing plan model describes its plan in
 * words instead of JSON (the plan cannot be read, the run fails).
 */
function routerModel(world: { failing: Arm }): ModelAdapter {
  return {
    id: MODEL,
    async generate(request) {
      const usage = { promptTokens: 50, completionTokens: 10, totalTokens: 60 };
      const text = (t: string) => ({ text: t, toolCalls: [], usage, finishReason: 'stop' as const });
      const system = textOf(request.messages.find((m) => m.role === 'system'));
      const last = textOf(request.messages.at(-1));
      if (system.startsWith('You route requests')) return text('{"route": "react", "reason": "one lookup"}');
      if (last.includes('The plan has run') || last.includes('cannot be re-planned'))
        return text('{"final_answer": "bids 87.40, asks 87.90"}');
      if (last.includes('{"steps": [')) {
        if (world.failing === 'plan') return text('I would call getOrderBook and then read the spread.');
        return text(JSON.stringify({ steps: [{ tool: 'getOrderBook', arguments: {} }] }));
      }
      const hasResult = request.messages.some((m) => m.role === 'tool');
      if (hasResult && world.failing !== 'react') return text('bids 87.40, asks 87.90');
      const call = { id: `c${request.messages.length}`, name: 'getOrderBook', arguments: '{}' };
      return { text: '', toolCalls: [call], usage, finishReason: 'tool_calls' };
    },
  };
}

function toolgateOn(store: RunStore, world: { failing: Arm }): Toolgate {
  const settings = resolveSettings(
    {
      strategy: 'auto',
      router: { evalResults: EVAL_RESULTS },
      tenants: { acme: { router: { live: true } } },
      stats: { windowMinutes: 60 },
    },
    {},
    {},
  );
  return new Toolgate({
    settings: { ...settings, model: MODEL },
    store,
    model: routerModel(world),
    tools: [new LocalToolSource({ name: 'px', tools: [book] })],
    toolRetry: false,
  });
}

/** The live figures for lookups, as the bandit's arms list them. */
function lookupCounts(evidence: LiveRouterEvidence): Record<string, [number, number]> {
  const counts: Record<string, [number, number]> = {};
  for (const e of evidence.byIntent) if (e.intent === 'lookup') counts[e.strategy] = [e.completed, e.failed];
  return counts;
}

function armCounts(routed: Routed): Record<string, [number, number]> {
  return Object.fromEntries((routed.live?.arms ?? []).map((a) => [a.strategy, [a.completed, a.failed]]));
}

interface Outcome {
  routed: Routed;
  status: string;
  /** Why it failed (the run's error code). */
  code?: string;
  /** acme's live figures just before the run started. */
  before: LiveRouterEvidence;
}

/** One lookup run of a tenant, through the whole pipeline; returns once the statistics have taken its events in. */
async function lookup(toolgate: Toolgate, tenantId = 'acme'): Promise<Outcome> {
  const before = toolgate.stats.routerEvidence(tenantId);
  const run = await toolgate.run({ input: LOOKUP, tenantId, maxSteps: MAX_STEPS });
  await toolgate.stats.idle();
  const routed = ofType(await toolgate.store.readEvents(run.id), 'intent_routed')[0]?.data;
  assert.ok(routed !== undefined, `run ${run.id} was routed`);
  return { routed, status: run.status, before, ...(run.error === undefined ? {} : { code: run.error.code }) };
}

/** Per strategy, acme's lookups that completed and failed, from every run's log: what the live figures must say. */
async function countsFromLogs(store: RunStore): Promise<Record<string, [number, number]>> {
  const counts: Record<string, [number, number]> = {};
  let cursor: string | undefined;
  do {
    const page = await store.listRuns({ limit: 200, ...(cursor === undefined ? {} : { cursor }) });
    for (const run of page.runs) {
      const routed = ofType(await store.readEvents(run.id), 'intent_routed')[0]?.data;
      if (run.tenantId !== 'acme' || routed?.intent !== 'lookup') continue;
      if (run.status !== 'completed' && run.status !== 'failed') continue;
      const c = (counts[routed.route] ??= [0, 0]);
      c[run.status === 'completed' ? 0 : 1] += 1;
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return counts;
}

/** The chance that a draw from `from`'s posterior beats one from `to`'s (on a grid: exact enough here). */
function chanceOfReversal(counts: Record<string, [number, number]>, to: Arm, from: Arm): number {
  const GRID = 4000;
  const density = (arm: Arm): number[] => {
    const [completed, failed] = counts[arm] ?? [0, 0];
    const [a, b] = [PRIORS[arm][0] + completed, PRIORS[arm][1] + failed];
    const logs = Array.from({ length: GRID }, (_, i) => {
      const x = (i + 0.5) / GRID;
      return (a - 1) * Math.log(x) + (b - 1) * Math.log(1 - x);
    });
    const top = Math.max(...logs);
    const weights = logs.map((l) => Math.exp(l - top));
    const total = weights.reduce((sum, w) => sum + w, 0);
    return weights.map((w) => w / total);
  };
  const [winner, loser] = [density(to), density(from)];
  let below = 0;
  let chance = 0;
  for (let i = 0; i < GRID; i++) {
    chance += (loser[i] ?? 0) * below;
    below += winner[i] ?? 0;
  }
  return chance;
}

/** Lookups until the router has moved to `to` for good; every run's recorded figures checked against the live ones. */
async function until(toolgate: Toolgate, to: Arm, maxReversal: number): Promise<Outcome[]> {
  const from: Arm = to === 'plan' ? 'react' : 'plan';
  const outcomes: Outcome[] = [];
  for (let i = 0; i < CAP; i++) {
    const outcome = await lookup(toolgate);
    const { routed, status, before } = outcome;
    outcomes.push(outcome);
    assert.equal(routed.intent, 'lookup');
    assert.equal(routed.live?.rule, 'beta-bernoulli');
    assert.equal(routed.route, routed.live.chosen, 'the run went where the bandit chose');
    assert.deepEqual(
      routed.live?.arms.map((a) => [a.strategy, a.priorAlpha, a.priorBeta]),
      [
        ['react', ...PRIORS.react],
        ['plan', ...PRIORS.plan],
      ],
      'the arms: the route of the signals first, with the eval results as priors',
    );
    assert.deepEqual(armCounts(routed), { react: [0, 0], plan: [0, 0], ...lookupCounts(before) });
    assert.equal(status, routed.route === from ? 'failed' : 'completed', `a ${routed.route} run`);
    if (status === 'failed') assert.equal(outcome.code, FAILS_WITH[from]);
    const counts = lookupCounts(toolgate.stats.routerEvidence('acme'));
    const streak = outcomes.slice(-STREAK);
    if (streak.length === STREAK && streak.every((o) => o.routed.route === to))
      if (chanceOfReversal(counts, to, from) < maxReversal) return outcomes;
  }
  assert.fail(`the router did not move to ${to} in ${CAP} runs: ${JSON.stringify(outcomes.map((o) => o.routed))}`);
}

/** What the runs returned, per route: [completed, failed]. */
function countsOf(outcomes: readonly Outcome[]): Record<string, [number, number]> {
  const counts: Record<string, [number, number]> = {};
  for (const { routed, status } of outcomes) (counts[routed.route] ??= [0, 0])[status === 'completed' ? 0 : 1] += 1;
  return counts;
}

/** `reopen` gives the store to a new instance: after closing the old one (a restart), or beside it. */
async function checkLoop(store: RunStore, reopen: (old: Toolgate) => Promise<RunStore>): Promise<Toolgate> {
  const world: { failing: Arm } = { failing: 'react' };
  const toolgate = toolgateOn(store, world);
  // Nothing live yet: the eval results' favourite, ReAct, wins most draws; its runs fail.
  const first = await until(toolgate, 'plan', MOVED);
  assert.ok(
    first.some((o) => o.routed.route === 'react'),
    'ReAct was tried first and failed',
  );
  const moved = first.at(-1)?.routed;
  assert.equal(moved?.route, 'plan');
  assert.match(moved?.reason ?? '', /^planned first instead of ReAct \(a lookup with getOrderBook\): live outcomes/);
  const acmeBefore = toolgate.stats.routerEvidence('acme');
  assert.deepEqual(lookupCounts(acmeBefore), await countsFromLogs(store), 'live = the logs');

  // A tenant without router.live is routed as before, with no live figures; its runs are not acme's evidence (the
  // figures are recorded in acme's runs, which acme's callers read).
  const other = await lookup(toolgate, 'globex');
  assert.equal(other.routed.route, 'react');
  assert.equal(other.routed.live, undefined);
  assert.deepEqual(
    toolgate.stats.routerEvidence('acme'),
    acmeBefore,
    'another tenant\u2019s run is not acme\u2019s evidence',
  );
  // ReAct still fails at this point: globex's own evidence holds its one failed run.
  assert.deepEqual(lookupCounts(toolgate.stats.routerEvidence('globex')), { react: [0, 1] });

  // The outcomes change: plans fail now, ReAct succeeds; the router moves back.
  world.failing = 'plan';
  const second = await until(toolgate, 'react', SETTLED);
  assert.ok(
    second.some((o) => o.routed.route === 'plan' && o.status === 'failed'),
    'plan failed before the move',
  );
  assert.match(second.at(-1)?.routed.reason ?? '', /^ReAct: a lookup with getOrderBook; live outcomes favour react/);
  const evidence = toolgate.stats.routerEvidence('acme');
  const fromLogs = await countsFromLogs(store);
  assert.deepEqual(lookupCounts(evidence), fromLogs, 'live = the logs');
  assert.deepEqual(fromLogs, countsOf([...first, ...second]), 'the logs = what each run returned');

  // A new instance on the same store (a restart, or another process): the live figures come back from the log.
  const restarted = toolgateOn(await reopen(toolgate), world);
  await restarted.stats.refresh();
  assert.deepEqual(restarted.stats.routerEvidence('acme'), evidence, 'the same figures after a refresh');
  const probe = await lookup(restarted);
  assert.deepEqual(armCounts(probe.routed), lookupCounts(evidence));
  assert.equal(probe.routed.route, 'react');
  assert.equal(probe.status, 'completed');
  return restarted;
}

describe('routing that learns, on SQLite', () => {
  it('moves lookups to plan when ReAct fails, back when plan fails, and again after a restart', async () => {
    const path = join(dir, 'runs.db');
    const restarted = await checkLoop(await openSqliteRunStore({ path }), async (old) => {
      await old.close();
      return openSqliteRunStore({ path });
    });
    await restarted.close();
  });
});

await whenPostgres('routing that learns, on PostgreSQL', () => {
  describe('routing that learns, on PostgreSQL', () => {
    it('moves lookups to plan when ReAct fails, back when plan fails, and on a second instance', () =>
      withSchema(async (open) => {
        await checkLoop(await open(), () => open());
      }));
  });
});
