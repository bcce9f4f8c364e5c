import { draft, type EventDraft, type JsonValue, type RunEventDataMap, type ToolResult } from '../../core/index.ts';
import type { Decision } from '../../gate/index.ts';
import type { AppendOptions } from '../log/transition.ts';

/**
 * How long a read's call, or a result held back, may wait to be committed with what follows before it is committed on
 * its own.
 */
export const READ_COMMIT_DELAY_MS = 20;

/** Held back: committed with the next append, or on its own after READ_COMMIT_DELAY_MS (see RunWriter). */
export const HOLD_BACK: AppendOptions = Object.freeze({ defer: true, flushAfterMs: READ_COMMIT_DELAY_MS });

/** A Decision that has a gate_decision event: every kind but not_found and marked_done. */
export type AuditedDecision = Exclude<Decision, { kind: 'not_found' | 'marked_done' }>;

/** What recording a call's events needs: its step, the run's append and redaction, the guard's latency limit. */
export interface RecordContext {
  step: number;
  /**
   * Appends to the run's log (and keeps the loop's view of it current); `options` may defer a read's call (see
   * AppendOptions).
   */
  append: (drafts: EventDraft[], patch?: undefined, options?: AppendOptions) => Promise<unknown>;
  redact: (value: JsonValue) => JsonValue;
  /** The guard's maxToolLatencyMs: a slower result is recorded `slow`. */
  maxToolLatencyMs?: number | undefined;
}

/** The call an event is about. */
export interface CallRef {
  id: string;
  name: string;
}

/**
 * The call's gate_decision event, redacted. Never appended alone except for a
 * call that waits for a person: it goes in one append with the tool_call or
 * tool_result that follows it (fewer writes, one atomic step).
 */
export function auditEvent(ctx: RecordContext, call: CallRef, decision: AuditedDecision): EventDraft {
  const { policy, issues, hook, condition, reason } = decision;
  const data: RunEventDataMap['gate_decision'] = {
    step: ctx.step,
    toolCallId: call.id,
    name: call.name,
    effect: policy.effect,
    decision: decision.kind,
    normalisations: decision.normalisations.map((n) => ({
      path: n.path,
      from: ctx.redact(n.from),
      rule: n.rule,
      ...(n.to === undefined ? {} : { to: ctx.redact(n.to) }),
    })),
    injected: decision.injected.map((i) => ({ key: i.key, overridden: i.overridden })),
    ...(policy.policyRule === undefined ? {} : { policyRule: policy.policyRule }),
    ...(reason === undefined ? {} : { reason }),
    ...(issues === undefined
      ? {}
      : { issues: issues.map((i) => ({ code: i.code, path: i.path, message: i.message })) }),
    ...(hook === undefined ? {} : { hook }),
    ...(condition === undefined ? {} : { condition }),
  };
  return draft('gate_decision', data);
}

/** A call's one result, as recordResult appends it. */
export interface ResultRecord {
  result: ToolResult;
  /** When the call's handling began (performance.now()): its latency is measured from there. Default: now. */
  started?: number;
  /** Events that go in the same append, before the tool_result (the call's gate_decision). */
  before?: EventDraft[];
  dryRun?: boolean;
  untrusted?: boolean;
  markedDone?: boolean;
  /**
   * Held back (HOLD_BACK): for a result that can be had again after a
   * crash (a read's, or one for a call that ran nothing). A write's result is
   * committed at once.
   */
  hold?: boolean;
}

/** Appends the call's one tool_result (with its latency since `started`); returns the result. */
export async function recordResult(ctx: RecordContext, call: CallRef, record: ResultRecord): Promise<ToolResult> {
  const { result } = record;
  const started = record.started ?? performance.now();
  const latencyMs = Math.round((performance.now() - started) * 100) / 100;
  const slow = ctx.maxToolLatencyMs !== undefined && latencyMs > ctx.maxToolLatencyMs;
  const data: RunEventDataMap['tool_result'] = {
    step: ctx.step,
    toolCallId: call.id,
    name: call.name,
    ok: result.ok,
    content: result.content,
    latencyMs,
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(record.dryRun === true ? { dryRun: true } : {}),
    ...(record.untrusted === true ? { untrusted: true } : {}),
    ...(record.markedDone === true ? { markedDone: true } : {}),
    ...(slow ? { slow: true } : {}),
    ...(result.truncated === undefined ? {} : { truncated: result.truncated }),
  };
  await ctx.append(
    [...(record.before ?? []), draft('tool_result', data)],
    undefined,
    record.hold === true ? HOLD_BACK : undefined,
  );
  return result;
}
