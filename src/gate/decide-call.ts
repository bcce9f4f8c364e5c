import type { Provenance } from '../core/events.ts';
import type { JsonObject } from '../core/json.ts';
import type { ToolErrorCode, ToolResult, ToolSpec } from '../core/tools.ts';
import type { Normalisation, ValidationIssue } from '../validation/index.ts';
import type { InjectedArgument } from './apply-injection.ts';
import type { ApprovalInput, CallFacts, HookVerdict, PreparedCall } from './call-facts.ts';
import { conditionInput } from './condition-input.ts';
import { decide } from './decide.ts';
import { evaluateConditions, type ConditionOutcome, type ConditionRecord } from './evaluate-conditions.ts';
import type { ResolvedToolPolicy } from './policy.ts';

/** Why a call waits for a person. */
export type ApprovalNeed = 'policy' | 'untrusted_output';

/** What beforeToolCall did, as the gate_decision event records it (an `allow` leaves no trace). */
export interface HookRecord {
  name: 'beforeToolCall';
  action: 'deny' | 'rewrite';
  reason?: string;
}

/** The error the model receives for a call that is not executed. */
export interface CallError {
  code: ToolErrorCode;
  message: string;
}

/** The part of a Decision that its gate_decision event records. */
export interface Audited {
  tool: ToolSpec;
  /** The tool's resolved policy: effect, policy rule, and for an allowed call its timeout, returnDirect, untrusted… */
  policy: ResolvedToolPolicy;
  normalisations: readonly Normalisation[];
  injected: readonly InjectedArgument[];
  issues?: readonly ValidationIssue[];
  hook?: HookRecord;
  /** The tool's conditional rule that decided: the deny that refused the call, or the approval it got. */
  condition?: ConditionRecord;
  reason?: string;
}

/**
 * The gate's one verdict on a call. The first five kinds are the
 * gate_decision kinds and are audited; `not_found` (no such tool) and
 * `marked_done` (a person confirmed an earlier call happened) record only
 * their tool_result, because there is no tool policy to audit.
 */
export type Decision =
  | (Audited & { kind: 'allowed'; arguments: JsonObject })
  | (Audited & { kind: 'dry_run'; arguments: JsonObject })
  | (Audited & { kind: 'approval_required'; arguments: JsonObject; approvalReason: ApprovalNeed })
  | (Audited & { kind: 'denied' | 'invalid'; error: CallError })
  | { kind: 'not_found'; error: CallError }
  | { kind: 'marked_done'; result: ToolResult };

/**
 * Decides one call, in a fixed order: a person's mark_done → unknown tool →
 * tool denied to the tenant → unusable arguments → a person's rejection →
 * the tool's conditions (a matching `deny`; the approval they choose) → the
 * policy (tenant allow, dry run, approval, taint; see decide) → the
 * beforeToolCall verdict. The hook comes last because it must see the
 * arguments that will actually run: the orchestrator runs it only when this
 * function, called without a hook verdict, says allowed or dry_run, then
 * calls it again with the verdict. Pure and total: never throws.
 */
export function decideCall(facts: CallFacts): Decision {
  const { name, lookup, approval } = facts;
  if (approval?.decision === 'mark_done') return { kind: 'marked_done', result: markedDone(name, approval) };
  if (lookup.kind === 'unknown') {
    const known = lookup.known.join(', ');
    return {
      kind: 'not_found',
      error: {
        code: 'tool_not_found',
        message: `there is no tool named "${name}"; available tools: ${known === '' ? '(none)' : known}`,
      },
    };
  }
  const { tool, policy } = lookup;
  if (lookup.kind === 'denied') {
    const message = `${name} is not available to you: ${lookup.reason}. Do not call it again.`;
    return {
      kind: 'denied',
      tool,
      policy,
      normalisations: [],
      injected: [],
      reason: lookup.reason,
      error: { code: 'denied', message },
    };
  }
  const prepared = facts.prepared;
  if (prepared === undefined) {
    // Fail closed: arguments nobody checked never run.
    const message = `the arguments for ${name} were not checked; it was not called`;
    return {
      kind: 'invalid',
      tool,
      policy,
      normalisations: [],
      injected: [],
      reason: message,
      error: { code: 'invalid_arguments', message },
    };
  }
  if (!prepared.ok) {
    const { decision: kind, code, message, normalisations, issues } = prepared;
    return {
      kind,
      tool,
      policy,
      normalisations,
      injected: [],
      reason: message,
      ...(issues === undefined ? {} : { issues }),
      error: { code, message },
    };
  }
  const audited: Audited = { tool, policy, normalisations: prepared.normalisations, injected: prepared.injected };

  if (approval?.decision === 'reject') {
    const why = approval.reason ?? 'no reason given';
    const message = `A person rejected this call to ${name}: ${why}. Do not retry it unchanged.`;
    return { kind: 'denied', ...audited, reason: `rejected by a person: ${why}`, error: { code: 'rejected', message } };
  }
  const conditions = conditionsOn(facts, prepared);
  // A tool the tenant may not call is denied for that reason (decide), before any condition's.
  if (conditions?.deny !== undefined && facts.allowed.allowed) {
    const { deny } = conditions;
    return {
      kind: 'denied',
      ...audited,
      condition: deny.record,
      reason: deny.reason,
      // The model is told the rule's reason only: an evaluation error is for the audit.
      error: { code: 'denied', message: `${name} was refused: ${deny.refusal}` },
    };
  }
  const verdict = decide({
    tool,
    exposedName: name,
    arguments: prepared.arguments,
    policy: conditions?.approval === undefined ? policy : { ...policy, approval: conditions.approval.mode },
    allowed: facts.allowed,
    dryRun: facts.dryRun,
    approvalGranted: approval !== undefined,
    tainted: facts.untrusted.length > 0,
  });
  if (verdict.kind === 'deny') {
    return {
      kind: 'denied',
      ...audited,
      reason: verdict.reason,
      error: { code: 'denied', message: `${name} is not available to you: ${verdict.reason}` },
    };
  }
  const decided = { ...audited, ...conditionNotes(conditions) };
  if (verdict.kind === 'approval_required') {
    const why =
      verdict.reason === 'untrusted_output'
        ? `a write after untrusted output (${describeProvenance(facts.untrusted)}) needs a person`
        : undefined;
    const reason = joinReasons(why, decided.reason);
    return {
      kind: 'approval_required',
      ...decided,
      arguments: prepared.arguments,
      approvalReason: verdict.reason,
      ...(reason === undefined ? {} : { reason }),
    };
  }

  const hooked = applyHook(facts.hook, prepared);
  if (hooked.kind === 'refused') {
    return {
      kind: 'denied',
      ...decided,
      hook: hooked.hook,
      reason: hooked.reason,
      error: { code: 'denied', message: `${name} was refused: ${hooked.reason}` },
    };
  }
  const withHook = {
    ...decided,
    ...(hooked.hook === undefined ? {} : { hook: hooked.hook }),
    arguments: hooked.arguments,
  };
  if (verdict.kind === 'dry_run') return { kind: 'dry_run', ...withHook };
  const reason = joinReasons(approval === undefined ? undefined : approvedBy(approval), decided.reason);
  return { kind: 'allowed', ...withHook, ...(reason === undefined ? {} : { reason }) };
}

/** The tool's conditional rules evaluated on the prepared call; undefined when it has none. */
function conditionsOn(facts: CallFacts, prepared: PreparedCall): ConditionOutcome | undefined {
  if (facts.lookup.kind !== 'visible') return undefined;
  const { conditions } = facts.lookup.policy;
  if (conditions === undefined || conditions.length === 0) return undefined;
  return evaluateConditions(
    conditions,
    conditionInput({ args: prepared.arguments, tool: facts.name, caller: facts.caller }),
  );
}

/** The approval a condition chose and the conditions that could not be evaluated, for the audit. */
function conditionNotes(outcome: ConditionOutcome | undefined): { condition?: ConditionRecord; reason?: string } {
  if (outcome === undefined) return {};
  const reason = joinReasons(outcome.approval?.reason, ...outcome.failures);
  return {
    ...(outcome.approval === undefined ? {} : { condition: outcome.approval.record }),
    ...(reason === undefined ? {} : { reason }),
  };
}

function joinReasons(...reasons: (string | undefined)[]): string | undefined {
  const given = reasons.filter((r): r is string => r !== undefined && r !== '');
  return given.length === 0 ? undefined : given.join('; ');
}

type Hooked =
  { kind: 'refused'; reason: string; hook: HookRecord } | { kind: 'run'; arguments: JsonObject; hook?: HookRecord };

function applyHook(hook: HookVerdict | undefined, prepared: PreparedCall): Hooked {
  if (hook?.action === 'deny')
    return {
      kind: 'refused',
      reason: hook.reason,
      hook: { name: 'beforeToolCall', action: 'deny', reason: hook.reason },
    };
  // Anything but deny or rewrite lets the call run as it is (a hook written in plain JavaScript may return anything).
  if (hook?.action !== 'rewrite') return { kind: 'run', arguments: prepared.arguments };
  if (hook.issues.length > 0) {
    // A hook's rewrite is held to the same schema as the model's arguments.
    const reason =
      `beforeToolCall rewrote the arguments into invalid ones: ` +
      `${hook.issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`;
    return { kind: 'refused', reason, hook: { name: 'beforeToolCall', action: 'rewrite', reason } };
  }
  return {
    kind: 'run',
    arguments: hook.arguments,
    hook: { name: 'beforeToolCall', action: 'rewrite', ...(hook.reason === undefined ? {} : { reason: hook.reason }) },
  };
}

function approvedBy(approval: ApprovalInput): string {
  return `approved by ${approval.userId ?? 'a person'}${approval.decision === 'edit' ? ' with edited arguments' : ''}`;
}

/**
 * A person saw that a call whose outcome was unknown did happen: that is its result, and it is never executed again.
 */
function markedDone(name: string, approval: ApprovalInput): ToolResult {
  const observed = approval.result;
  const seen =
    observed === undefined
      ? ''
      : ` What they observed: ${typeof observed === 'string' ? observed : JSON.stringify(observed)}`;
  const text =
    `${approval.userId ?? 'A person'} confirmed that this call ` +
    `to ${name} did happen; it was not executed again.${seen}`;
  return {
    ok: true,
    content: [{ type: 'text', text }],
    ...(observed === undefined ? {} : { structuredContent: observed }),
  };
}

function describeProvenance(list: readonly Provenance[]): string {
  const names = [...new Set(list.map((p) => p.name))];
  return `from ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`;
}
