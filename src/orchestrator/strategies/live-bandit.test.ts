import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LiveRouterEvidence, RouterEvidence } from '../../core/index.ts';
import { chooseLive, type LiveChoiceInput } from './live-bandit.ts';
import { seededDraws } from './seeded-draws.ts';

type Row = LiveRouterEvidence['byIntent'][number];
const live = (rows: Row[]): LiveRouterEvidence => ({ windowMs: 3_600_000, byIntent: rows });
const lookup = (strategy: Row['strategy'], completed: number, failed: number, avgCostUsd?: number): Row => ({
  intent: 'lookup',
  strategy,
  completed,
  failed,
  ...(avgCostUsd === undefined ? {} : { avgCostUsd }),
});
const input = (rows: Row[], extra: Partial<LiveChoiceInput> = {}): LiveChoiceInput => ({
  intent: 'lookup',
  own: 'react',
  live: live(rows),
  seed: 'run_1',
  ...extra,
});
const wins = (rows: Row[], strategy: string, extra: Partial<LiveChoiceInput> = {}): number => {
  let n = 0;
  for (let i = 0; i < 1000; i++) if (chooseLive(input(rows, { ...extra, seed: `run_${i}` })).chosen === strategy) n++;
  return n;
};

describe('live bandit (router.live)', () => {
  it('draws the same for the same run and arm, and differently for other runs', () => {
    const rows = [lookup('react', 4, 4), lookup('plan', 4, 4)];
    assert.deepEqual(chooseLive(input(rows)), chooseLive(input(rows)));
    const samples = new Set(
      Array.from({ length: 20 }, (_, i) => chooseLive(input(rows, { seed: `r${i}` })).arms[0]?.sample),
    );
    assert.ok(samples.size > 15, 'other seeds, other draws');
  });

  it('Beta draws have the mean they should (Marsaglia-Tsang, shapes below and above 1)', () => {
    const draws = seededDraws('mean');
    for (const [a, b] of [
      [15, 3],
      [0.5, 0.5],
      [2, 8],
    ] as const) {
      let sum = 0;
      for (let i = 0; i < 4000; i++) sum += draws.beta(a, b);
      assert.ok(Math.abs(sum / 4000 - a / (a + b)) < 0.02, `Beta(${a}, ${b}) mean ${sum / 4000}`);
    }
  });

  it('a clearly better arm wins in at least 95% of 1000 runs, and the choice flips when the outcomes do', () => {
    const planBetter = [lookup('react', 3, 11), lookup('plan', 14, 2)];
    assert.ok(wins(planBetter, 'plan') >= 950, `plan won ${wins(planBetter, 'plan')} of 1000`);
    const reactBetter = [lookup('react', 14, 2), lookup('plan', 3, 11)];
    assert.ok(wins(reactBetter, 'react') >= 950, `react won ${wins(reactBetter, 'react')} of 1000`);
    // One run, one seed: its choice follows the outcomes.
    assert.equal(chooseLive(input(planBetter, { seed: 'run_x' })).chosen, 'plan');
    assert.equal(chooseLive(input(reactBetter, { seed: 'run_x' })).chosen, 'react');
  });

  it('records each arm: priors, live counts, the draw from Beta(prior + outcomes)', () => {
    const routing = chooseLive(input([lookup('plan', 14, 2, 0.002), lookup('react', 3, 11)]));
    assert.equal(routing.rule, 'beta-bernoulli');
    assert.equal(routing.windowMs, 3_600_000);
    assert.deepEqual(
      routing.arms.map(({ sample: _s, ...arm }) => arm),
      [
        { strategy: 'react', priorAlpha: 1, priorBeta: 1, completed: 3, failed: 11 },
        { strategy: 'plan', priorAlpha: 1, priorBeta: 1, completed: 14, failed: 2, avgCostUsd: 0.002 },
      ],
      "the route's own arm first",
    );
    for (const arm of routing.arms) assert.ok(arm.sample > 0 && arm.sample < 1);
  });

  it('takes its priors from the eval results: 1 + passRate x runs, 1 + the rest', () => {
    const evidence: RouterEvidence = {
      source: 'results.json',
      byIntent: [
        { intent: 'lookup', strategy: 'reflect', passRate: 0.9, avgCostUsd: 0.001, runs: 40 },
        { intent: 'lookup', strategy: 'react', passRate: 0.25, avgCostUsd: 0.001, runs: 40 },
        { intent: 'change', strategy: 'plan', passRate: 1, avgCostUsd: 0.001, runs: 40 },
      ],
    };
    const routing = chooseLive(input([], { evidence }));
    assert.deepEqual(
      routing.arms.map((a) => [a.strategy, a.priorAlpha, a.priorBeta]),
      [
        ['react', 11, 31],
        ['reflect', 37, 5],
      ],
      'plan is known for change requests only',
    );
    assert.ok(wins([], 'reflect', { evidence }) >= 950, 'without live outcomes the eval results decide');
    // Live outcomes outweigh the prior once there are enough of them.
    const rows = [lookup('reflect', 2, 60), lookup('react', 60, 2)];
    assert.ok(wins(rows, 'react', { evidence }) >= 950);
  });

  it('leaves out arms over the budget (live cost first, else eval cost); all over: the cheapest', () => {
    const rows = [lookup('react', 2, 10, 0.001), lookup('plan', 20, 0, 0.5)];
    const routing = chooseLive(input(rows, { budgetUsd: 0.1 }));
    assert.equal(routing.chosen, 'react');
    assert.equal(routing.arms.find((a) => a.strategy === 'plan')?.overBudget, true);
    assert.equal(routing.arms.find((a) => a.strategy === 'react')?.overBudget, undefined);
    const allOver = chooseLive(input([lookup('react', 0, 9, 0.3), lookup('plan', 9, 0, 0.6)], { budgetUsd: 0.1 }));
    assert.equal(allOver.chosen, 'react', 'the cheaper of two over the budget');
    const evidence: RouterEvidence = {
      source: 'r.json',
      byIntent: [{ intent: 'lookup', strategy: 'plan', passRate: 1, avgCostUsd: 0.9, runs: 50 }],
    };
    assert.equal(chooseLive(input([], { evidence, budgetUsd: 0.1 })).chosen, 'react', 'eval cost when no live cost');
  });

  it('offers a plain answer for answer requests only', () => {
    const rows: Row[] = [
      { intent: 'answer', strategy: 'react', completed: 1, failed: 5 },
      { intent: 'lookup', strategy: 'answer', completed: 9, failed: 0 },
    ];
    const answer = chooseLive({ ...input(rows), intent: 'answer', own: 'answer' });
    assert.deepEqual(
      answer.arms.map((a) => a.strategy),
      ['answer', 'react'],
    );
    assert.deepEqual(
      chooseLive(input(rows)).arms.map((a) => a.strategy),
      ['react'],
    );
  });
});
