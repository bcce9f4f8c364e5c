import { INTENT_OF_ROUTE, type LiveRouting, type RouterEvidence, type RunEventDataMap } from '../../core/index.ts';
import { chooseLive, type LiveArm } from './live-bandit.ts';
import type { Route } from './route-signals.ts';
import type { StrategyContext } from './strategy.ts';

type Routed = RunEventDataMap['intent_routed'];

/**
 * What each route does, as the reason says it: the reason is read on its own
 * (`toolgate run`, the console, `runs events`), so it starts with what the
 * router did, then why.
 */
export const DOES: Record<Routed['route'], string> = {
  answer: 'answered without tools',
  react: 'ReAct',
  plan: 'planned first',
  reflect: 'ReAct with reflection',
};

/** A route chosen, before the eval results or live outcomes may change it: `why` says why, in a few words. */
export interface Chosen {
  route: Route;
  why: string;
  by: Routed['by'];
  signals: Routed['signals'];
}

const ROUTE_OF: Partial<Record<string, Routed['route']>> = { react: 'react', plan: 'plan', reflect: 'reflect' };

/**
 * The route, replaced by what the evidence says works best for this kind of request: with `router.live` and live
 * outcomes, the live bandit (eval results as its priors); else the eval results alone.
 */
export function withEvidence(ctx: StrategyContext, chosen: Chosen): Routed {
  const intent = INTENT_OF_ROUTE[chosen.route];
  const routed: Routed = {
    route: chosen.route,
    reason: `${DOES[chosen.route]}: ${chosen.why}`,
    intent,
    by: chosen.by,
    signals: chosen.signals,
  };
  const live = ctx.liveEvidence;
  if (ctx.settings.router?.live === true && live !== undefined) {
    const choice = chooseLive({
      intent,
      own: chosen.route,
      live,
      evidence: ctx.routerEvidence,
      budgetUsd: ctx.settings.guard?.maxCostUsd,
      seed: ctx.runId,
    });
    return withLive(routed, chosen, choice);
  }
  return withEvalResults(ctx, routed, chosen);
}

/** The bandit's choice, with a reason that gives the winner's posterior and draw, then the others'. */
function withLive(routed: Routed, chosen: Chosen, live: LiveRouting): Routed {
  const intent = INTENT_OF_ROUTE[chosen.route];
  const route: Routed['route'] = isLiveArm(live.chosen) ? live.chosen : chosen.route;
  const winner = live.arms.find((a) => a.strategy === live.chosen);
  const others = live.arms.filter((a) => a !== winner).map((a) => `${a.strategy} ${posterior(a)}`);
  const numbers = [winner === undefined ? undefined : posterior(winner), ...others].filter((x) => x !== undefined);
  const results =
    live.arms.length === 1
      ? `no other strategy has live outcomes for ${intent} requests yet (${numbers.join('; ')})`
      : `live outcomes favour ${live.chosen} for ${intent} requests (${numbers.join('; ')})`;
  return { ...routed, route, reason: reasonWith({ routed, chosen, route, results }), live };
}

/** The reason once evidence had its say: kept with the evidence added, or naming what it replaced and why. */
function reasonWith(o: { routed: Routed; chosen: Chosen; route: Routed['route']; results: string }): string {
  return o.route === o.chosen.route
    ? `${o.routed.reason}; ${o.results}`
    : `${DOES[o.route]} instead of ${DOES[o.chosen.route]} (${o.chosen.why}): ${o.results}`;
}

function posterior(arm: LiveRouting['arms'][number]): string {
  const beta = `Beta(${shown(arm.priorAlpha + arm.completed)}, ${shown(arm.priorBeta + arm.failed)})`;
  if (arm.overBudget === true) return `${beta} over the budget at $${arm.avgCostUsd ?? 0} a run`;
  return `${beta} drew ${arm.sample.toFixed(2)}`;
}

/** A posterior's parameter as people read it: 14.5, not 14.500000000000002. */
function shown(x: number): string {
  return String(Math.round(x * 100) / 100);
}

function isLiveArm(name: string): name is LiveArm {
  return name === 'answer' || ROUTE_OF[name] !== undefined;
}

/**
 * The route, replaced by what the eval results say works best for this kind
 * of request: the strategy with the highest pass rate among those within the
 * run's cost budget (the cheaper on a tie). Without results for the intent,
 * the route stands. The reason says which of the two decided, and what was
 * replaced.
 */
function withEvalResults(ctx: StrategyContext, routed: Routed, chosen: Chosen): Routed {
  const evidence: RouterEvidence | undefined = ctx.routerEvidence;
  if (evidence === undefined) return routed;
  const intent = INTENT_OF_ROUTE[chosen.route];
  const budget = ctx.settings.guard?.maxCostUsd;
  const candidates = evidence.byIntent.filter(
    (e) =>
      e.intent === intent &&
      e.runs > 0 &&
      ROUTE_OF[e.strategy] !== undefined &&
      (budget === undefined || e.avgCostUsd <= budget),
  );
  const best = [...candidates].sort((a, b) => b.passRate - a.passRate || a.avgCostUsd - b.avgCostUsd)[0];
  const route = best === undefined ? undefined : ROUTE_OF[best.strategy];
  if (best === undefined || route === undefined) return routed;
  const passed = `${Math.round(best.passRate * 100)}% of ${best.runs} runs passed`;
  const results = `for ${intent} requests the eval results favour ${best.strategy} (${passed})`;
  return {
    ...routed,
    route,
    reason: reasonWith({ routed, chosen, route, results }),
    evidence: {
      source: evidence.source,
      intent,
      strategy: best.strategy,
      passRate: best.passRate,
      avgCostUsd: best.avgCostUsd,
      runs: best.runs,
      compared: candidates.map((c) => ({ strategy: c.strategy, passRate: c.passRate, avgCostUsd: c.avgCostUsd })),
    },
  };
}
