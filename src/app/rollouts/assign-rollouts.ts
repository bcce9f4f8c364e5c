import { createHash } from 'node:crypto';
import { DEFAULT_TODO_REMIND_AFTER, type RolloutArm, type RunSettings } from '../../core/index.ts';
import type { RolloutName, RolloutPlan, RolloutValue } from './rollout-plan.ts';

/** Who a new run is, as far as rollouts care. */
export interface RolloutContext {
  tenantId?: string | undefined;
  threadId?: string | undefined;
  /** Settings the request names itself (an explicit strategy, todo on or off): those rollouts leave the run alone. */
  named: ReadonlySet<RolloutName>;
}

/** A run's place in each rollout it takes part in, and the values its treated arms apply. */
export interface RolloutAssignment {
  arms: RolloutArm[];
  treated: RolloutValue[];
}

/**
 * Where a thread falls in a rollout, 0 to under 100: the first 32 bits of sha256(name + thread id), so every run of
 * a thread lands in the same arm (sticky), and each rollout splits threads independently of the others.
 */
export function rolloutBucket(name: string, threadId: string): number {
  const digest = createHash('sha256').update(name).update(threadId).digest();
  return (digest.readUInt32BE(0) / 2 ** 32) * 100;
}

/**
 * The arms of a new run: each rollout that is not rolled back, whose tenants include the run's (no list: every run)
 * and whose setting the request does not name, treats the run when its bucket is under `percent` (runs without a
 * thread: a random draw).
 */
export function assignRollouts(options: {
  plans: readonly RolloutPlan[];
  context: RolloutContext;
  isRolledBack: (plan: RolloutPlan) => boolean;
  random?: () => number;
}): RolloutAssignment {
  const { context } = options;
  const random = options.random ?? Math.random;
  const assignment: RolloutAssignment = { arms: [], treated: [] };
  for (const plan of options.plans) {
    if (options.isRolledBack(plan) || context.named.has(plan.name)) continue;
    if (plan.tenants !== undefined && (context.tenantId === undefined || !plan.tenants.includes(context.tenantId)))
      continue;
    const bucket = context.threadId === undefined ? random() * 100 : rolloutBucket(plan.name, context.threadId);
    const treated = bucket < plan.percent;
    assignment.arms.push({ name: plan.name, arm: treated ? 'treated' : 'control' });
    if (treated) assignment.treated.push(plan.apply);
  }
  return assignment;
}

/** The run's settings with the treated values applied (the rollouts it takes part in recorded). */
export function applyRollouts(settings: RunSettings, assignment: RolloutAssignment): RunSettings {
  if (assignment.arms.length === 0) return settings;
  const applied: RunSettings = { ...settings, rollouts: assignment.arms };
  for (const value of assignment.treated) {
    if (value.setting === 'router.live') applied.router = { live: value.value };
    else if (value.setting === 'strategy') applied.strategy = value.value;
    else if (value.setting === 'todo.enabled')
      applied.todo = {
        remindAfter: applied.todo?.remindAfter ?? DEFAULT_TODO_REMIND_AFTER,
        enabled: value.value,
      };
    else applied.guard = { ...applied.guard, [value.key]: value.value };
  }
  return applied;
}
