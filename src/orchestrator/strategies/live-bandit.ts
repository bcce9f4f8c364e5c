import type { Intent, LiveRouterEvidence, LiveRouting, RouterEvidence } from '../../core/index.ts';
import { seededDraws } from './seeded-draws.ts';

/** What the live router may choose: a strategy, or a plain answer (answer requests only). */
export type LiveArm = 'answer' | 'react' | 'plan' | 'reflect';
type Arm = LiveRouting['arms'][number];

/** The order arms are listed in after the route's own (a tie of draws goes to the earlier). */
const ARM_ORDER: readonly LiveArm[] = ['answer', 'react', 'plan', 'reflect'];

export interface LiveChoiceInput {
  intent: Intent;
  /** The arm the signals or the model chose: always a candidate. */
  own: LiveArm;
  live: LiveRouterEvidence;
  /** Eval results: their pass rates are the priors. */
  evidence?: RouterEvidence | undefined;
  /** guard.maxCostUsd: arms that cost more on average are left out. */
  budgetUsd?: number | undefined;
  /** The run id: the draws depend on it and on the arm only. */
  seed: string;
}

/**
 * Thompson sampling over a Beta-Bernoulli bandit per intent: each arm's prior comes from the eval results
 * (1 + passRate × runs passed, 1 + the rest failed) or is uniform, its posterior adds the live runs that completed
 * and failed, and the arm with the highest draw from its posterior wins. Arms over the budget are left out unless
 * all are (then the cheapest stays in).
 */
export function chooseLive(input: LiveChoiceInput): LiveRouting {
  const arms = armsFor(input).map((arm) => {
    const draws = seededDraws(`${input.seed}\u0000${arm.strategy}`);
    const sample = draws.beta(arm.priorAlpha + arm.completed, arm.priorBeta + arm.failed);
    return { ...arm, sample: round(sample, 4), exact: sample };
  });
  markOverBudget(arms, input.budgetUsd);
  let best = arms[0];
  for (const arm of arms)
    if (arm.overBudget !== true && (best === undefined || best.overBudget === true || arm.exact > best.exact))
      best = arm;
  return {
    rule: 'beta-bernoulli',
    windowMs: input.live.windowMs,
    arms: arms.map(({ exact: _exact, ...arm }) => arm),
    chosen: best?.strategy ?? input.own,
  };
}

/** The candidates with their priors and live counts: the route's own first, then those the evidence knows. */
function armsFor(input: LiveChoiceInput): Omit<Arm, 'sample'>[] {
  const allowed = (s: string): s is LiveArm =>
    ARM_ORDER.some((a) => a === s) && (s !== 'answer' || input.intent === 'answer');
  const known = new Set<LiveArm>([input.own]);
  const evalRows = (input.evidence?.byIntent ?? []).filter((e) => e.intent === input.intent);
  const liveRows = input.live.byIntent.filter((e) => e.intent === input.intent);
  for (const row of [...evalRows, ...liveRows]) if (allowed(row.strategy)) known.add(row.strategy);
  const ordered = [input.own, ...ARM_ORDER.filter((a) => a !== input.own && known.has(a))];
  return ordered.map((strategy) => {
    const prior = evalRows.find((e) => e.strategy === strategy && e.runs > 0);
    const rows = liveRows.filter((e) => e.strategy === strategy);
    const completed = rows.reduce((n, r) => n + r.completed, 0);
    const failed = rows.reduce((n, r) => n + r.failed, 0);
    const cost = liveCost(rows) ?? prior?.avgCostUsd;
    const passRate = clamp01(prior?.passRate ?? 0);
    return {
      strategy,
      priorAlpha: prior === undefined ? 1 : round(1 + passRate * prior.runs, 3),
      priorBeta: prior === undefined ? 1 : round(1 + (1 - passRate) * prior.runs, 3),
      completed,
      failed,
      ...(cost === undefined ? {} : { avgCostUsd: cost }),
    };
  });
}

/** The live average cost over the rows that have one, weighted by their runs. */
function liveCost(rows: LiveRouterEvidence['byIntent']): number | undefined {
  let runs = 0;
  let total = 0;
  for (const r of rows) {
    const n = r.completed + r.failed;
    if (r.avgCostUsd === undefined || n === 0) continue;
    runs += n;
    total += r.avgCostUsd * n;
  }
  return runs === 0 ? undefined : total / runs;
}

function markOverBudget(arms: Arm[], budget: number | undefined): void {
  if (budget === undefined) return;
  const over = arms.filter((a) => a.avgCostUsd !== undefined && a.avgCostUsd > budget);
  for (const arm of over) arm.overBudget = true;
  if (over.length < arms.length) return;
  // Every arm costs more than the budget: the cheapest is the least bad.
  const cheapest = [...over].sort((a, b) => (a.avgCostUsd ?? 0) - (b.avgCostUsd ?? 0))[0];
  if (cheapest !== undefined) delete cheapest.overBudget;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
