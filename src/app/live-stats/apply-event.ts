import { INTENT_OF_ROUTE, costOf, type RunEvent, type StatsKey } from '../../core/index.ts';
import { bump } from './stats-tally.ts';
import type { RunFacts } from './run-facts.ts';
import type { StatsWindow } from './stats-window.ts';

/** What the statistics keep of one run while it lives (and for a window after it ended). */
export interface RunState {
  /** The id of the last event applied: each event counts once, whoever appended it and however often it is seen. */
  lastId: number;
  facts: RunFacts;
  /** The row the run counts under now (an auto run moves to its route's row when it is routed). */
  key: StatsKey;
  /** Calls with a tool_call: their results ran (and have a latency worth counting). */
  executed: Set<string>;
  /** The run's cost so far, every event of it, in or out of the window. */
  costUsd: number;
  /** When its last event was (ms), and whether it ended. */
  lastTime: number;
  ended: boolean;
  /**
   * A fork's first events are copies of the original's (up to run_forked): counted once already, in the original,
   * so they only set the run's state here; the fork counts as started.
   */
  copying: boolean;
}

export function newRunState(facts: RunFacts): RunState {
  return {
    lastId: 0,
    facts,
    key: facts.key,
    executed: new Set(),
    costUsd: 0,
    lastTime: 0,
    ended: false,
    copying: facts.forked,
  };
}

/** The last event time parsed: events are stamped once per millisecond (isoNow), so most repeat the one before. */
let lastTimeText = '';
let lastTime = Number.NaN;

function timeOf(text: string): number {
  if (text !== lastTimeText) {
    lastTime = Date.parse(text);
    lastTimeText = text;
  }
  return lastTime;
}

/**
 * Counts one event of a run into the window (in the bucket of its own time; nothing when older than the window).
 * Returns true when the event ended the run.
 */
export function applyEvent(options: { event: RunEvent; run: RunState; window: StatsWindow; now: number }): boolean {
  const { event, run, window, now } = options;
  const time = timeOf(event.time);
  run.lastId = event.id;
  run.lastTime = Math.max(run.lastTime, time);
  if (run.facts.uncounted) return false;
  // The run's own figures (executed calls, cost) follow every event, so that a run's total is right at its end.
  if (event.type === 'tool_call') run.executed.add(event.data.toolCallId);
  const executed = event.type === 'tool_result' && run.executed.delete(event.data.toolCallId);
  if (event.type === 'run_forked') run.copying = false;
  let cost = 0;
  if (
    event.type === 'assistant_message' &&
    event.data.usage !== undefined &&
    run.facts.price !== undefined &&
    !run.copying
  )
    cost = costOf(event.data.usage, run.facts.price);
  run.costUsd += cost;
  if (event.type === 'intent_routed') {
    run.key = {
      ...run.key,
      intent: event.data.intent ?? INTENT_OF_ROUTE[event.data.route],
      strategy: event.data.route,
    };
  }
  const ends = event.type === 'run_completed' || event.type === 'run_failed' || event.type === 'run_cancelled';
  if (ends) run.ended = true;
  applyArms({ event, run, window, now, time, executed });
  // Only what adds something makes a row: an auto run's run_started (counted at its route) makes none.
  if (!counts(event, run, executed)) return ends;
  const tally = window.tally({ key: run.key, time, now });
  if (tally === undefined) return ends;
  switch (event.type) {
    case 'run_started':
    case 'intent_routed':
      tally.started += 1;
      break;
    case 'run_completed':
      tally.completed += 1;
      break;
    case 'run_failed':
      tally.failed += 1;
      bump(tally.failures, event.data.error.code);
      break;
    case 'run_cancelled':
      tally.cancelled += 1;
      break;
    case 'guard_tripped':
      bump(tally.guardTrips, event.data.code);
      break;
    case 'approval_required':
      tally.asked += 1;
      break;
    case 'input_received':
      tally.rejected += 1;
      break;
    case 'assistant_message':
      tally.steps += 1;
      tally.inputTokens += event.data.usage?.promptTokens ?? 0;
      tally.outputTokens += event.data.usage?.completionTokens ?? 0;
      tally.costUsd += cost;
      tally.model.add(event.data.latencyMs);
      break;
    case 'tool_result':
      tally.tool.add(event.data.latencyMs);
      break;
    default:
      break;
  }
  if (ends) tally.endedCostUsd += run.costUsd;
  return ends;
}

function counts(event: RunEvent, run: RunState, executed: boolean): boolean {
  if (run.copying && event.type !== 'run_started' && event.type !== 'intent_routed') return false;
  switch (event.type) {
    case 'run_started':
      return !run.facts.auto;
    case 'input_received':
      return event.data.input.type === 'approval' && event.data.input.decision === 'reject';
    case 'tool_result':
      return executed;
    case 'intent_routed':
    case 'run_completed':
    case 'run_failed':
    case 'run_cancelled':
    case 'guard_tripped':
    case 'approval_required':
    case 'assistant_message':
      return true;
    default:
      return false;
  }
}

/** The rollouts the run takes part in: its end (and cost) and its tool latencies, per arm. */
function applyArms(options: {
  event: RunEvent;
  run: RunState;
  window: StatsWindow;
  now: number;
  time: number;
  executed: boolean;
}): void {
  const { event, run, window, now, time } = options;
  if (run.facts.rollouts.length === 0) return;
  const ends = event.type === 'run_completed' || event.type === 'run_failed' || event.type === 'run_cancelled';
  if (!ends && !(event.type === 'tool_result' && options.executed)) return;
  for (const { name, arm } of run.facts.rollouts) {
    const tally = window.arm({ rollout: name, tenant: run.key.tenant, arm, time, now });
    if (tally === undefined) continue;
    if (event.type === 'tool_result') tally.tool.add(event.data.latencyMs);
    else if (event.type === 'run_completed') tally.completed += 1;
    else if (event.type === 'run_failed') tally.failed += 1;
    else tally.cancelled += 1;
    if (ends) tally.endedCostUsd += run.costUsd;
  }
}
