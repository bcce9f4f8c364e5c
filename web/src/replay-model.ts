// Where a run comes from, as the console shows it: a fork of another run (run_forked,
// metadata.forkOf), or a stored replay with its decision diff (replay_compared,
// metadata.replayOf). Pure, like run-model.ts.
import type { JsonObject, JsonValue } from '../../src/core/json.ts';
import type { ReplayCall, ReplayCallChange, ReplayDiff } from '../../src/core/replay.ts';

export interface ForkOrigin {
  runId: string;
  afterEventId: number;
  /** What the fork changed of the original's settings. */
  settings?: JsonObject;
}

/** One side of a diff line: the call as the original or the replay saw it. */
export interface ReplaySide {
  tool: string;
  step: number;
  decision: string;
  outcome: string;
  arguments?: JsonObject;
  /** The policy rule that decided, with its `when:` condition. */
  rule?: string;
  reason?: string;
}

export interface ReplayRow {
  kind: ReplayCallChange['kind'];
  before?: ReplaySide;
  after?: ReplaySide;
  changes: string[];
}

export interface ReplayView {
  of: string;
  rows: ReplayRow[];
  answer: ReplayDiff['answer'];
  status: ReplayDiff['status'];
  changed: boolean;
  model: ReplayDiff['model'];
  divergedAtStep?: number;
}

/** How a gate decision reads in the console (call cards and a replay's diff). */
export const DECISION_TEXT: Record<string, string> = {
  allowed: 'allowed',
  denied: 'denied',
  approval_required: 'needs approval',
  dry_run: 'dry run',
  invalid: 'invalid arguments',
  not_found: 'no such tool',
};

const OUTCOME_TEXT: Record<ReplayCall['outcome'], string> = {
  executed: 'executed',
  recorded_result: 'recorded result',
  would_run: 'would run',
  read_live: 'read live',
  not_run: 'not run',
};

/** A replay's diff as the panel shows it: each call side by side, in words. */
export function replayView(diff: ReplayDiff): ReplayView {
  return {
    of: diff.of,
    rows: diff.calls.map((change) => ({
      kind: change.kind,
      ...(change.before === undefined ? {} : { before: side(change.before) }),
      ...(change.after === undefined ? {} : { after: side(change.after) }),
      changes: change.changes,
    })),
    answer: diff.answer,
    status: diff.status,
    changed: diff.changed,
    model: diff.model,
    ...(diff.divergedAtStep === undefined ? {} : { divergedAtStep: diff.divergedAtStep }),
  };
}

function side(call: ReplayCall): ReplaySide {
  const when = call.condition === undefined ? '' : ` when ${call.condition}`;
  const rule = call.policyRule === undefined && when === '' ? undefined : `${call.policyRule ?? ''}${when}`.trim();
  return {
    tool: call.name,
    step: call.step,
    decision: DECISION_TEXT[call.decision] ?? call.decision,
    outcome: OUTCOME_TEXT[call.outcome] ?? call.outcome,
    ...(call.arguments === undefined ? {} : { arguments: call.arguments }),
    ...(rule === undefined ? {} : { rule }),
    ...(call.reason === undefined ? {} : { reason: call.reason }),
  };
}

/** `metadata.forkOf` of a run, when it is the shape a fork writes. */
export function forkOfMetadata(metadata: JsonObject | undefined): ForkOrigin | undefined {
  const value = metadata?.['forkOf'];
  if (!isObject(value)) return undefined;
  const { runId, afterEventId } = value;
  return typeof runId === 'string' && typeof afterEventId === 'number' ? { runId, afterEventId } : undefined;
}

/** `metadata.replayOf` of a run: the run it replays. */
export function replayOfMetadata(metadata: JsonObject | undefined): string | undefined {
  const value = metadata?.['replayOf'];
  return typeof value === 'string' ? value : undefined;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
