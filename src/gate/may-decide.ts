import type { ToolSpec } from '../core/tools.ts';
import { tenantRuleFor } from './is-tool-allowed.ts';
import { compareSpecificity, matchToolPattern, toolRefOf, type ToolRef } from './match-tool-pattern.ts';
import { DEFAULT_TENANT_KEY, type Policy } from './policy.ts';

/** Whether a caller may decide a call's approval, and why not. */
export interface DecideAuthority {
  allowed: boolean;
  /** Why not, naming the roles needed and those held. */
  reason?: string;
  /** The `approvers` pattern that applied, when one did. */
  rule?: string;
  /** The roles that may decide (the pattern's, plus the escalation approvers once escalated); absent: anyone. */
  roles?: string[];
}

/**
 * Whether a caller holding `roles` may decide an approval of `tool` in a run of `tenantId`, per the tenant's
 * `approvers` (its own entry, else `*`): the most specific matching pattern names the roles that may; a tool no
 * pattern matches may be decided by anyone who can see the run. `escalationApprovers` (approvals.escalation.approvers)
 * are given once the call's approval was escalated: they may decide too.
 */
export function mayDecide(
  policy: Policy,
  request: {
    tenantId?: string | undefined;
    roles?: readonly string[] | undefined;
    tool: ToolSpec | ToolRef;
    escalationApprovers?: readonly string[] | undefined;
  },
): DecideAuthority {
  const { own, rule } = tenantRuleFor(policy.tenants, request.tenantId);
  const approvers = rule?.approvers;
  if (approvers === undefined) return { allowed: true };
  const target = 'origin' in request.tool ? toolRefOf(request.tool) : request.tool;
  const pattern = Object.keys(approvers)
    .filter((candidate) => matchToolPattern(candidate, target))
    .sort(compareSpecificity)
    .at(-1);
  if (pattern === undefined) return { allowed: true };
  const needed = [...new Set([...(approvers[pattern] ?? []), ...(request.escalationApprovers ?? [])])];
  const held = request.roles ?? [];
  if (held.some((role) => needed.includes(role))) return { allowed: true, rule: pattern, roles: needed };
  const key = `tenants.${own === undefined ? DEFAULT_TENANT_KEY : request.tenantId}.approvers`;
  const escalation =
    request.escalationApprovers === undefined || request.escalationApprovers.length === 0
      ? ''
      : ' and approvals.escalation.approvers';
  return {
    allowed: false,
    reason:
      `only ${needed.length === 1 ? 'role' : 'roles'} ${needed.join(' or ')} may decide approvals of ` +
      `${target.server}/${target.tool} (${key}${escalation}); ` +
      `you hold: ${held.length === 0 ? 'no role' : held.join(', ')}`,
    rule: pattern,
    roles: needed,
  };
}
