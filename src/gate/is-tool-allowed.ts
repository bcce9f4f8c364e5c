import type { ToolSpec } from '../core/tools.ts';
import { compareSpecificity, matchToolPattern, toolRefOf, type ToolRef } from './match-tool-pattern.ts';
import { DEFAULT_TENANT_KEY, type Policy, type RoleRule } from './policy.ts';

export interface AllowDecision {
  allowed: boolean;
  /** Why the tool is not allowed, in a sentence a user can act on. */
  reason?: string;
  /** The pattern that decided, when one did. */
  rule?: string;
  /** The held role whose rule decided, when one did. */
  role?: string;
}

/** Who asks, as the gate's tenant rules see it: the run's tenant and the roles its caller holds (Caller.roles). */
export interface GateAudience {
  tenantId?: string | undefined;
  roles?: readonly string[] | undefined;
}

/**
 * Whether a caller may call a tool. Deny beats allow, everywhere: the tenant's
 * deny and every held role's deny (`tenants.<id>.roles.<role>.deny`) refuse.
 * A tenant with an `allow` list may call only what it names, or what a held
 * role's `allow` adds. A tenant without an entry — and a caller without a
 * tenant (no API keys, the CLI without --tenant) — falls back to the `*` entry
 * (its role rules included), and without that is allowed everything: tenants
 * are opt-in restrictions, so adding a tenant never breaks a working setup.
 * Roles the caller does not hold change nothing.
 */
export function isToolAllowed(policy: Policy, audience: GateAudience, tool: ToolSpec | ToolRef): AllowDecision {
  const { tenantId } = audience;
  const { own, rule } = tenantRuleFor(policy.tenants, tenantId);
  if (rule === undefined) return { allowed: true };
  const target = 'origin' in tool ? toolRefOf(tool) : tool;
  const label = `${target.server}/${target.tool}`;
  const scope =
    own === undefined ? `callers without their own tenant rule ("${DEFAULT_TENANT_KEY}")` : `tenant "${tenantId}"`;
  const held = heldRoleRules(rule.roles, audience.roles);
  const denied = mostSpecific((rule.deny ?? []).filter((pattern) => matchToolPattern(pattern, target)));
  if (denied !== undefined) {
    return {
      allowed: false,
      reason: `the tool ${label} is denied for ${scope} by the pattern "${denied}"`,
      rule: denied,
    };
  }
  for (const [role, roleRule] of held) {
    const byRole = mostSpecific((roleRule.deny ?? []).filter((pattern) => matchToolPattern(pattern, target)));
    if (byRole !== undefined) {
      return {
        allowed: false,
        reason: `the tool ${label} is denied for role "${role}" of ${scope} by the pattern "${byRole}"`,
        rule: byRole,
        role,
      };
    }
  }
  if (rule.allow === undefined) return { allowed: true };
  const allowed = mostSpecific(rule.allow.filter((pattern) => matchToolPattern(pattern, target)));
  if (allowed !== undefined) return { allowed: true, rule: allowed };
  for (const [role, roleRule] of held) {
    const byRole = mostSpecific((roleRule.allow ?? []).filter((pattern) => matchToolPattern(pattern, target)));
    if (byRole !== undefined) return { allowed: true, rule: byRole, role };
  }
  return { allowed: false, reason: `the tool ${label} is not in the allow list of ${scope}${roleHint(rule, target)}` };
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

/** The role rules of the roles the caller holds, in name order (so a reason never depends on the token's order). */
function heldRoleRules(
  rules: Readonly<Record<string, RoleRule>> | undefined,
  roles: readonly string[] | undefined,
): [string, RoleRule][] {
  if (rules === undefined || roles === undefined) return [];
  const held: [string, RoleRule][] = [];
  for (const role of [...new Set(roles)].sort()) {
    const roleRule = Object.hasOwn(rules, role) ? rules[role] : undefined;
    if (roleRule !== undefined) held.push([role, roleRule]);
  }
  return held;
}

/** Which roles would allow the tool: what to ask for instead of a bare "no". */
function roleHint(rule: { roles?: Readonly<Record<string, RoleRule>> }, target: ToolRef): string {
  const granting = Object.entries(rule.roles ?? {})
    .filter(([, roleRule]) => (roleRule.allow ?? []).some((pattern) => matchToolPattern(pattern, target)))
    .map(([role]) => role)
    .sort();
  return granting.length === 0 ? '' : ` (a caller with role ${granting.join(' or ')} may call it)`;
}

function mostSpecific(patterns: string[]): string | undefined {
  return patterns.sort(compareSpecificity).at(-1);
}
