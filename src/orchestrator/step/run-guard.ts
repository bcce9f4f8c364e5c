import { DEFAULT_MAX_REPEATS, costOf, type GuardLimits, type RunSettings } from '../../core/index.ts';
import { activeTime, type ConversationState } from '../state/run-state.ts';
import type { GuardTrip } from '../strategies/strategy.ts';

/**
 * The runtime guard between steps: every limit is read from the run's stored
 * settings and every count from its log, so a limit holds across approvals,
 * restarts and processes. The first breach found wins, in this order: steps,
 * tokens, cost, time, loops, failures.
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
  return undefined;
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
