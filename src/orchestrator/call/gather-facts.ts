import type { GateDecisionKind, JsonObject, JsonValue, ParsedToolCall } from '../../core/index.ts';
import {
  approvalView,
  decideCall,
  EMPTY_POLICY,
  isToolAllowed,
  type CallFacts,
  type InjectionContext,
  type ToolEffect,
} from '../../gate/index.ts';
import type { Validator } from '../../validation/index.ts';
import { prepareCall } from './prepare-call.ts';
import type { ApprovalDecision } from '../state/run-state.ts';
import type { ToolCatalog } from './tool-catalog.ts';
import { injectionContext, type ToolCallContext } from './tool-call-context.ts';

/** Everything the gate needs to know about the call, as data. */
export function gatherFacts(
  ctx: ToolCallContext,
  call: ParsedToolCall,
  approval: ApprovalDecision | undefined,
): CallFacts {
  const caller = injectionContext(ctx);
  const common = { name: call.name, approval, dryRun: ctx.dryRun, untrusted: ctx.untrusted ?? [], caller };
  const entry = ctx.catalog.visible.get(call.name);
  if (entry === undefined) {
    const denied = ctx.catalog.denied.get(call.name);
    if (denied !== undefined) {
      return {
        ...common,
        lookup: { kind: 'denied', tool: denied.entry.tool, policy: denied.entry.policy, reason: denied.reason },
        allowed: { allowed: false, reason: denied.reason },
      };
    }
    return {
      ...common,
      lookup: { kind: 'unknown', known: [...ctx.catalog.visible.keys()] },
      allowed: { allowed: false },
    };
  }
  // A person's edit replaces the model's arguments and goes through the same preparation.
  const source =
    approval?.decision === 'edit' && approval.arguments !== undefined ? { input: approval.arguments } : call;
  const prepared =
    approval?.decision === 'mark_done'
      ? undefined
      : prepareCall({ entry, source, validator: ctx.validator, injection: caller });
  return {
    ...common,
    lookup: { kind: 'visible', tool: entry.tool, policy: entry.policy },
    prepared,
    allowed:
      entry.client === true
        ? { allowed: true }
        : isToolAllowed(ctx.policy ?? EMPTY_POLICY, { tenantId: ctx.tenantId, roles: ctx.roles }, entry.tool),
  };
}

/** What the gate would decide for a call, without running it or recording anything (a plan is checked with this). */
export interface CallPreview {
  decision: GateDecisionKind | 'not_found';
  effect?: ToolEffect;
  /** The arguments it would run with, as a person is shown them, when they could be prepared. */
  arguments?: JsonObject;
  /** Why it cannot run (invalid, denied, unknown tool). */
  message?: string;
}

/** The gate's verdict on a call, as data: no hook is asked, nothing is executed or recorded. */
export function previewToolCall(ctx: ToolCallContext, call: ParsedToolCall): CallPreview {
  const decision = decideCall(gatherFacts(ctx, call, undefined));
  switch (decision.kind) {
    case 'allowed':
    case 'dry_run':
    case 'approval_required': {
      const shown = approvalView({ tool: decision.tool, inject: decision.policy.inject }).shown(
        decision.arguments,
        ctx.redact,
      );
      return { decision: decision.kind, effect: decision.policy.effect, arguments: shown };
    }
    case 'denied':
    case 'invalid':
      return { decision: decision.kind, effect: decision.policy.effect, message: decision.error.message };
    case 'not_found':
      return { decision: 'not_found', message: decision.error.message };
    case 'marked_done':
      return { decision: 'allowed' };
  }
}

/**
 * The arguments a call found waiting for a person (a run resumed, or a write
 * whose outcome is unknown) would run with, as that person is shown them;
 * nothing when they cannot be prepared.
 */
export function shownArguments(
  scope: {
    catalog: ToolCatalog;
    validator: Validator;
    redact: (value: JsonValue) => JsonValue;
    injection: InjectionContext;
  },
  call: ParsedToolCall,
): JsonObject {
  const entry = scope.catalog.visible.get(call.name);
  if (entry === undefined) return {};
  const prepared = prepareCall({ entry, source: call, validator: scope.validator, injection: scope.injection });
  return prepared.ok
    ? approvalView({ tool: entry.tool, inject: entry.policy.inject }).shown(prepared.arguments, scope.redact)
    : {};
}
