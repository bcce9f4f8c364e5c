import type { JsonObject } from '../../core/index.ts';
import { finishCalls } from './finish-calls.ts';
import { safePoint } from './reflection.ts';
import type { FinishOptions, PlanState, StrategyContext, StrategyOutcome } from './strategy.ts';

/**
 * The plan's steps that have no result yet, in order: reads next to each
 * other together, each write alone; after a failed step the rest are skipped.
 * Returns the outcome when the run stops (waits, or a return-direct tool answered).
 */
export async function runPlanSteps(ctx: StrategyContext): Promise<StrategyOutcome | undefined> {
  const current = ctx.state.plan;
  const turn = ctx.state.turn;
  if (current === undefined || turn === undefined) return undefined;
  let approval: FinishOptions['approval'];
  const needs = current.steps.flatMap((s) =>
    s.decision === 'approval_required' && s.toolCallId !== undefined ? [s.toolCallId] : [],
  );
  if (current.approval === 'plan' && needs.length > 0) {
    const decision = ctx.state.decisions.get(current.planId);
    if (decision === undefined) {
      if (!ctx.state.asked.has(current.planId))
        await ctx.askPlanApproval({ planId: current.planId, step: current.step, arguments: planArguments(current) });
      return { kind: 'waiting' };
    }
    if (decision.decision === 'reject') {
      const by = decision.userId === undefined ? '' : ` by ${decision.userId}`;
      const why = `the plan was rejected${by}: ${decision.reason ?? 'no reason given'}`;
      await ctx.skip(current.callIds, 'rejected', why);
      return undefined;
    }
    approval = { decision, calls: new Set(needs) };
  }
  await ctx.record([], { to: 'executing', reason: `running plan ${current.planId}` });
  for (const batch of batches(current)) {
    const open = batch.filter((id) => !turn.results.has(id));
    if (open.length === 0) continue;
    if (ctx.state.plan?.status === 'failed') {
      await ctx.skip(current.callIds, 'skipped', 'not run: an earlier step of the plan failed');
      return undefined;
    }
    const point = await safePoint(ctx);
    if (point !== 'go' && point !== 'reflected') return point;
    if (ctx.state.pendingReplan !== undefined) {
      // The critique, or the guard (conflicting evidence), wants another approach: the rest of this plan does not run.
      await ctx.skip(current.callIds, 'skipped', `not run: re-planning (${ctx.state.pendingReplan})`);
      return undefined;
    }
    if (point === 'reflected') await ctx.record([], { to: 'executing', reason: `running plan ${current.planId}` });
    const stop = await finishCalls(ctx, { only: open, ...(approval === undefined ? {} : { approval }) });
    if (stop !== undefined) return stop;
  }
  return undefined;
}

/** The call ids in running order: consecutive reads together, each write alone. */
function batches(current: Pick<PlanState, 'steps'>): string[][] {
  const out: string[][] = [];
  let reads: string[] = [];
  for (const step of current.steps) {
    if (step.kind !== 'tool' || step.toolCallId === undefined) continue;
    if (step.effect === 'read') {
      reads.push(step.toolCallId);
      continue;
    }
    if (reads.length > 0) out.push(reads);
    reads = [];
    out.push([step.toolCallId]);
  }
  if (reads.length > 0) out.push(reads);
  return out;
}

/** What a person approving the plan sees: its steps, in order. */
function planArguments(current: PlanState): JsonObject {
  return {
    planId: current.planId,
    steps: current.steps.map((s) =>
      s.kind === 'tool'
        ? {
            step: s.index + 1,
            tool: s.name ?? '',
            arguments: s.arguments ?? {},
            effect: s.effect ?? 'write',
            ...(s.decision === 'approval_required' ? { needsApproval: true } : {}),
          }
        : { step: s.index + 1, thought: s.text ?? '' },
    ),
  };
}
