import { finishCalls } from './finish-calls.ts';
import { makePlan } from './make-plan.ts';
import { runPlanSteps } from './plan-steps.ts';
import { reflect, safePoint } from './reflection.ts';
import type { Strategy, StrategyContext, StrategyOutcome } from './strategy.ts';

/**
 * ReAct: ask the model, run the tools it asks for, give it the results, and
 * again — until it answers without a tool call. Every pass starts from the
 * log: an open turn (calls without results, after an approval or a restart)
 * is finished first. The guard's checkpoint comes before every model call.
 */
export const react: Strategy = {
  name: 'react',
  run: (ctx) => reactLoop(ctx, { reflect: false }),
};

/**
 * The ReAct loop. With `reflect`, a turn that went wrong (a failed call, only
 * empty results, a slow tool) is followed by a reflection whose verdict the
 * run follows; `replan` makes a plan (checked as a whole by the gate) from
 * the evidence so far, whose steps run before the loop goes on.
 */
export async function reactLoop(ctx: StrategyContext, options: { reflect: boolean }): Promise<StrategyOutcome> {
  for (;;) {
    const state = ctx.state;
    if (state.turn !== undefined) {
      if (state.plan !== undefined && state.turn.step === state.plan.step) {
        const stop = await runPlanSteps(ctx);
        if (stop !== undefined) return stop;
        continue;
      }
      const stop = await finishCalls(ctx);
      if (stop !== undefined) return stop;
    }
    const point = await safePoint(ctx);
    if (point === 'reflected') continue;
    if (point !== 'go') return point;
    if (options.reflect && state.reflectTrigger !== undefined) {
      const stop = await reflect(ctx, state.reflectTrigger);
      if (stop !== undefined) return stop;
      continue;
    }
    if (state.pendingReplan !== undefined) {
      const stop = await makePlan(ctx, { reason: state.pendingReplan, revise: state.plan !== undefined });
      if (stop !== undefined) return stop;
      continue;
    }
    if (state.status !== 'running') await ctx.record([], { to: 'running' });
    const turn = await ctx.modelTurn();
    if (turn.calls.length === 0) return { kind: 'completed', output: turn.content };
  }
}
