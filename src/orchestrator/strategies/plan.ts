import { DEFAULT_MAX_REPLANS } from '../../core/index.ts';
import { finishCalls } from './finish-calls.ts';
import { makePlan } from './make-plan.ts';
import { runPlanSteps } from './plan-steps.ts';
import { safePoint } from './reflection.ts';
import type { PlanState, Strategy, StrategyContext, StrategyOutcome } from './strategy.ts';

/**
 * Plan-and-Solve: the model writes the whole plan first; the gate checks
 * every step before any runs (plan_created); a plan that needs approval is
 * approved once (or per step); steps run in order, reads next to each other
 * together; a failed step leads to a new plan from the evidence so far
 * (plan_revised, bounded); after the steps the model answers, or plans the
 * next steps the same way. Every pass starts from the log.
 */
export const plan: Strategy = {
  name: 'plan',
  startStatus: 'planning',
  run: (ctx) => planLoop(ctx),
};

export async function planLoop(ctx: StrategyContext): Promise<StrategyOutcome> {
  const maxReplans = ctx.settings.plan?.maxReplans ?? DEFAULT_MAX_REPLANS;
  for (;;) {
    const state = ctx.state;
    if (state.turn !== undefined) {
      const outcome =
        state.plan !== undefined && state.turn.step === state.plan.step
          ? await runPlanSteps(ctx)
          : await finishCalls(ctx);
      if (outcome !== undefined) return outcome;
      continue;
    }
    const point = await safePoint(ctx);
    if (point === 'reflected') continue;
    if (point !== 'go') return point;
    const current = state.plan;
    if (current === undefined) {
      await makePlan(ctx);
      continue;
    }
    if (state.pendingReplan !== undefined) {
      await makePlan(ctx, { reason: state.pendingReplan, revise: true });
      continue;
    }
    if (current.status === 'failed' && state.replans < maxReplans) {
      await makePlan(ctx, { reason: failureOf(current), revise: true });
      continue;
    }
    // A plan with no tool step and an answer: that answer is the run's.
    if (current.callIds.length === 0 && current.finalAnswer !== undefined)
      return { kind: 'completed', output: current.finalAnswer };
    // The steps have run (or cannot be re-planned any more): the model answers, or plans what is still missing.
    const next = await makePlan(ctx, { after: current, exhausted: current.status === 'failed' });
    if (next !== undefined) return next;
  }
}

/** Why the plan failed: its failed steps' errors, for the re-planning prompt. */
function failureOf(current: PlanState): string {
  return current.failures.length === 0 ? 'a step failed' : current.failures.slice(0, 5).join('; ');
}
