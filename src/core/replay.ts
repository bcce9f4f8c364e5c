import type { GateDecisionKind } from './gate-decision-kind.ts';
import type { JsonObject } from './json.ts';
import type { RunStatus } from './run-status.ts';

/** What became of a call in a run or its replay. */
export type ReplayCallOutcome =
  /** The original run executed it (its recorded result is what the tool said). */
  | 'executed'
  /** The replay gave it the original's recorded result (same tool, same normalised arguments). */
  | 'recorded_result'
  /** The replay would have run it (allowed now) but has no recorded result for it: it was not executed. */
  | 'would_run'
  /** A read the replay ran for real (`--allow-reads`). */
  | 'read_live'
  /** The gate did not let it run (denied, invalid, waiting for a person, dry run). */
  | 'not_run';

/** One call as a run (or its replay) saw it: the gate's decision and the arguments it would run with. */
export interface ReplayCall {
  toolCallId: string;
  name: string;
  step: number;
  /** The gate's decision; `not_found`: a tool the run does not have. */
  decision: GateDecisionKind | 'not_found';
  /** Normalised arguments, injected values in place (redacted as recorded). */
  arguments?: JsonObject;
  /** Names of the injected arguments. */
  injected?: string[];
  policyRule?: string;
  /** The `when:` condition that decided, as written in the policy. */
  condition?: string;
  reason?: string;
  outcome: ReplayCallOutcome;
}

/**
 * One line of a decision diff: a call of the original matched with the replay's call at the same place
 * (`changed`/`same`), a call only the replay made (`added`: e.g. a parser setting recovered it), or one only the
 * original made (`missing`). `changes`: what differs, one readable line each ("decision: allowed → approval_required",
 * "arguments.qty: \"7,000\" → 7000").
 */
export interface ReplayCallChange {
  kind: 'same' | 'changed' | 'added' | 'missing';
  before?: ReplayCall;
  after?: ReplayCall;
  changes: string[];
}

/** What a configuration change would have done to one stored run (toolgate replay, policy test, the console). */
export interface ReplayDiff {
  /** The original run's id. */
  of: string;
  calls: ReplayCallChange[];
  answer: { before?: string; after?: string; changed: boolean };
  status: { before: RunStatus; after: RunStatus };
  /** Whether anything above differs. */
  changed: boolean;
  /** `recorded`: only recorded model turns were used; `live`: the configured model answered from `divergedAtStep`. */
  model: 'recorded' | 'live';
  divergedAtStep?: number;
}
