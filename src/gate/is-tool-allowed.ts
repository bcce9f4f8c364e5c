import type { ToolSpec } from '../core/tools.ts';
import { compareSpecificity, matchToolPattern, toolRefOf, type ToolRef } from './match-tool-pattern.ts';
import { DEFAULT_TENANT_KEY, type Policy } from './policy.ts';

export interface AllowDecision {
  allowed: boolean;
  /** Why the tool is not allowed, in a sentence a user can act on. */
  reason?: string;
  /** The pattern that decided, when one did. */
  rule?: string;
}

/**
 * Whether a tenant may call a tool. Deny beats allow; a tenant with an `allow`
 * list may call only what it names. A tenant without an entry — and a caller
 * without a tenant (no API keys, the CLI without --tenant) — falls back to the
 * `*` entry, and without that is allowed everything: tenants are opt-in
 * restrictions, so adding a tenant never breaks a working setup.
 */
export function isToolAllowed(policy: Policy, tenantId: string | undefined, tool: ToolSpec | ToolRef): AllowDecision {
  const { own, rule } = tenantRuleFor(policy.tenants, tenantId);
  if (rule === undefined) return { allowed: true };
  const target = 'origin' in tool ? toolRefOf(tool) : tool;
  const label = `${target.server}/${target.tool}`;
  const scope =
    own === undefined ? `callers without their own tenant rule ("${DEFAULT_TENANT_KEY}")` : `tenant "${tenantId}"`;
  const denied = mostSpecific((rule.deny ?? []).filter((pattern) => matchToolPattern(pattern, target)));
  if (denied !== undefined) {
    return {
      allowed: false,
      reason: `the tool ${label} is denied for ${scope} by the pattern "${denied}"`,
      rule: denied,
    };
  }
  if (rule.allow === undefined) return { allowed: true };
  const allowed = mostSpecific(rule.allow.filter((pattern) => matchToolPattern(pattern, target)));
  if (allowed === undefined) {
    return { allowed: false, reason: `the tool ${label} is not in the allow list of ${scope}` };
  }
  return { allowed: true, rule: allowed };
}

/**
 * The tenants entry that governs a caller: its own, else `*` (callers without a
 * tenant included). `own` says which. Own-property lookups only: a tenant id
 * such as "constructor" must not reach the prototype.
 */
export function tenantRuleFor<T>(
  tenants: Readonly<Record<string, T>>,
  tenantId: string | undefined,
): { rule: T | undefined; own: T | undefined } {
  const own = tenantId !== undefined && Object.hasOwn(tenants, tenantId) ? tenants[tenantId] : undefined;
  return { own, rule: own ?? (Object.hasOwn(tenants, DEFAULT_TENANT_KEY) ? tenants[DEFAULT_TENANT_KEY] : undefined) };
}

function mostSpecific(patterns: string[]): string | undefined {
  return patterns.sort(compareSpecificity).at(-1);
}
