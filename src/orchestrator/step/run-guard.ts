import {
  DEFAULT_MAX_CONFLICTS,
  DEFAULT_MAX_REPEATS,
  costOf,
  type GuardLimits,
  type RunSettings,
} from '../../core/index.ts';
import { activeTime, type ConversationState } from '../state/run-state.ts';
import type { GuardTrip } from '../strategies/strategy.ts';

/**
 * The runtime guard between steps: every limit is read from the run's stored
 * settings and every count from its log, so a limit holds across approvals,
 * restarts and processes. The first breach found wins, in this order: steps,
 * tokens, cost, time, loops, failures, tool latency (p95), conflicting evidence.
 */
export function checkGuard(state: ConversationState, settings: RunSettings, now = Date.now()): GuardTrip | undefined {
  const guard = settings.guard ?? {};
  const breach = (trip: Omit<GuardTrip, 'action'>): GuardTrip => ({ ...trip, action: guard.onBreach ?? 'fail' });
  if (state.step >= settings.maxSteps) {
    return breach({
      code: 'max_steps',
      limit: settings.maxSteps,
      value: state.step,
      message:
        `the run reached maxSteps (${settings.maxSteps}) without a final answer; the model kept calling tools. ` +
        'Raise maxSteps (per run, or --max-steps / config maxSteps) if the task needs more steps, ' +
        "or check the tools' answers for a loop",
    });
  }
  // Estimated counts (a model API that does not report usage) hold the budgets as reported ones do;
  // the message says which they are.
  const estimated = state.usage.estimated === true ? ' (estimated: the model API did not report them all)' : '';
  if (guard.maxTokens !== undefined && state.usage.totalTokens >= guard.maxTokens) {
    const used = state.usage.totalTokens;
    const message = `the run used ${used} tokens${estimated}, its budget is ${guard.maxTokens} (guard.maxTokens)`;
    return breach({ code: 'budget_tokens', limit: guard.maxTokens, value: used, message });
  }
  const cost = runCost(state, settings);
  if (guard.maxCostUsd !== undefined && cost !== undefined && cost >= guard.maxCostUsd) {
    const fromEstimates = estimated === '' ? '' : ' (from estimated tokens: the model API did not report them all)';
    return breach({
      code: 'budget_cost',
      limit: guard.maxCostUsd,
      value: round(cost),
      message:
        `the run cost $${round(cost)}${fromEstimates}, ` +
        `its budget is $${guard.maxCostUsd} (guard.maxCostUsd, at the prices in config prices)`,
    });
  }
  const elapsed = activeTime(state, now);
  if (guard.maxWallMs !== undefined && elapsed >= guard.maxWallMs) {
    const message =
      `the run has been working for ${Math.round(elapsed)} ms, its budget is ${guard.maxWallMs} ms ` +
      '(guard.maxWallMs; time waiting for a person does not count)';
    return breach({ code: 'budget_time', limit: guard.maxWallMs, value: Math.round(elapsed), message });
  }
  const loop = checkLoop(state, guard);
  if (loop !== undefined) return loop.action === 'warn' ? loop : { ...loop, action: guard.onBreach ?? 'fail' };
  const failures = guard.maxConsecutiveFailures;
  if (failures !== undefined && state.consecutiveFailures >= failures) {
    const message =
      `${state.consecutiveFailures} tool calls in a row failed or were too slow ` +
      `(guard.maxConsecutiveFailures: ${failures})`;
    return {
      ...breach({ code: 'tool_failures', limit: failures, value: state.consecutiveFailures, message }),
      ...(state.failuresReflected ? {} : { action: 'reflect' as const }),
    };
  }
  return checkLatency(state, guard) ?? checkConflicts(state, guard);
}

/** Tool calls a run makes before the p95 of their latencies is judged: fewer say little. */
export const P95_MIN_CALLS = 5;

/** The run's own tools are slow (p95 over the limit): it answers from what it has, whatever onBreach says. */
function checkLatency(state: ConversationState, guard: GuardLimits): GuardTrip | undefined {
  const max = guard.maxToolLatencyP95Ms;
  if (max === undefined || state.toolLatencies.length < P95_MIN_CALLS) return undefined;
  const p95 = percentile(state.toolLatencies, 0.95);
  if (p95 <= max) return undefined;
  return {
    code: 'tool_latency_p95',
    action: 'degrade',
    limit: max,
    value: Math.round(p95),
    message:
      `the 95th percentile of this run's ${state.toolLatencies.length} tool calls took ${Math.round(p95)} ms, ` +
      `over guard.maxToolLatencyP95Ms (${max} ms): answering from what is known, without more tools`,
  };
}

/** Results that contradict earlier ones: plan again from the evidence, once; then the configured breach. */
function checkConflicts(state: ConversationState, guard: GuardLimits): GuardTrip | undefined {
  const max = guard.maxConflicts ?? DEFAULT_MAX_CONFLICTS;
  if (max <= 0 || state.conflictsSincePlan < max) return undefined;
  const again = state.conflictsReplanned;
  return {
    code: 'conflicting_evidence',
    action: again ? (guard.onBreach ?? 'fail') : 'replan',
    limit: max,
    value: state.conflictsSincePlan,
    message:
      `${state.conflictsSincePlan} tool results contradicted earlier results of the same call ` +
      `(guard.maxConflicts: ${max})` +
      (again ? ', again after planning anew' : '; planning again from the evidence so far'),
  };
}

/** The nearest-rank percentile (a latency one of the calls really had). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] ?? 0;
}

/** Whether running `calls` more tool calls stays within maxToolCalls. */
export function checkToolBudget(state: ConversationState, settings: RunSettings, calls: number): GuardTrip | undefined {
  const guard = settings.guard ?? {};
  const max = guard.maxToolCalls;
  if (max === undefined || calls === 0 || state.toolCalls + calls <= max) return undefined;
  return {
    code: 'budget_tool_calls',
    action: guard.onBreach ?? 'fail',
    limit: max,
    value: state.toolCalls + calls,
    message:
      `the model asked for ${calls} more tool call${calls === 1 ? '' : 's'} after ${state.toolCalls}; ` +
      `the run's budget is ${max} (guard.maxToolCalls)`,
  };
}

function checkLoop(state: ConversationState, guard: GuardLimits): GuardTrip | undefined {
  const max = guard.maxRepeats ?? DEFAULT_MAX_REPEATS;
  if (max <= 0) return undefined;
  for (const { name, count, lastEventId } of state.callRepeats.values()) {
    if (count < max) continue;
    if (state.loopWarnedAt === undefined) {
      return {
        code: 'loop_detected',
        action: 'warn',
        tool: name,
        limit: max,
        value: count,
        message:
          `You have called ${name} with the same arguments ${count} times; its answer will not change. ` +
          'Use the results you already have, try something different, or answer.',
      };
    }
    if (lastEventId > state.loopWarnedAt) {
      const message =
        `the model called ${name} with the same arguments ${count} times, after being told once ` +
        `(guard.maxRepeats: ${max})`;
      return { code: 'loop_detected', action: 'fail', tool: name, limit: max, value: count, message };
    }
  }
  return undefined;
}

/** What the run cost so far in US dollars, when its model has a price. */
export function runCost(state: ConversationState, settings: RunSettings): number | undefined {
  const price = settings.price;
  if (price === undefined) return undefined;
  return costOf(state.usage, price);
}

function round(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}
