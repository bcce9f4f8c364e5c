/**
 * The gate's policy model. Configuration (src/config/) validates the file with
 * zod and hands over these plain objects; everything here is evaluated purely.
 */

import type { ToolEffect } from '../core/events.ts';
import type { JsonSchema } from '../core/json.ts';

export type { ToolEffect };

/**
 * - `required`: every call waits for a human approval.
 * - `auto`: approved automatically (the caller may record it as auto-approved).
 * - `never`: never ask; the call runs without an approval step.
 */
export type ApprovalMode = 'required' | 'auto' | 'never';

/** Settings for the tools a pattern matches. Unset fields inherit from less specific patterns. */
export interface ToolRule {
  /** Overrides the MCP annotations' classification. */
  effect?: ToolEffect;
  approval?: ApprovalMode;
  /**
   * Arguments the server fills in and the model never sees, as templates:
   * `{ userId: "{{user.id}}" }`. See applyInjection.
   */
  inject?: Record<string, string>;
  timeoutMs?: number;
  /** The tool's result is the run's answer; the model is not called again. */
  returnDirect?: boolean;
  /**
   * The tool returns content from outside (web pages, mail, files from others)
   * that may carry instructions aimed at the model. After such output entered a
   * run, every write waits for a person. Default: the MCP annotation
   * `openWorldHint: true`.
   */
  untrusted?: boolean;
  /**
   * A write that was sent but got no answer (timeout, abort, lost connection):
   * `ask` (default) waits for a person; `tell_model` records the call as
   * `outcome_unknown` and tells the model it may have happened and must not be
   * repeated.
   */
  unknownOutcome?: UnknownOutcomeMode;
  /**
   * Rules that apply to a call only when its arguments (or its tenant, user or
   * context) match, in order (docs/policy.md, "Conditions"). A matching `deny`
   * refuses the call; the first matching `approval` replaces the rule's own.
   */
  conditions?: ConditionalRule[];
}

/**
 * A JSON-Schema condition: each part given must match its schema (`args`: the
 * call's arguments; `tenant`: the tenant id or null; `user`: `{id, …}` or
 * null; `context`: the run's context object).
 */
export interface ConditionSchemas {
  args?: JsonSchema | undefined;
  tenant?: JsonSchema | undefined;
  user?: JsonSchema | undefined;
  context?: JsonSchema | undefined;
}

/**
 * One conditional rule of a tool rule. `when` is a CEL expression over `args`,
 * `tool`, `tenant`, `user` and `context`, or JSON Schemas (ConditionSchemas).
 * It sets `deny` (the reason the call is refused), `approval`, or both.
 * Optional keys may be present as undefined: parsed config hands them over so.
 */
export interface ConditionalRule {
  when: string | ConditionSchemas;
  approval?: ApprovalMode | undefined;
  deny?: string | undefined;
  /** Why the rule exists, recorded with the decision it makes. */
  reason?: string | undefined;
}

/** A conditional rule as it applies to one tool: the pattern whose rule holds it and its place in the list. */
export interface PolicyCondition {
  pattern: string;
  index: number;
  rule: ConditionalRule;
}

export type UnknownOutcomeMode = 'ask' | 'tell_model';

/** Which tools a tenant may call, as tool patterns. Deny beats allow. */
export interface TenantRule {
  /** When present, only matching tools are allowed (an empty list allows none). */
  allow?: string[];
  deny?: string[];
  /**
   * Rules for callers holding a role (Caller.roles: the token's roles claim or the API key's `roles`). A held role's
   * `allow` adds tools to the tenant's allow list; a held role's `deny` refuses, like the tenant's own deny (deny
   * beats allow everywhere). Roles the caller does not hold change nothing.
   */
  roles?: Record<string, RoleRule>;
  /**
   * Tool pattern → the roles that may decide that tool's approvals: "only role trader approves placeOrder" is
   * `{ "px/placeOrder": [trader] }`. The most specific matching pattern decides; a tool no pattern matches may be
   * decided by anyone who can see the run.
   */
  approvers?: Record<string, string[]>;
}

/** What holding one role changes for a tenant's caller. */
export interface RoleRule {
  allow?: string[];
  deny?: string[];
}

/**
 * Tool patterns (keys of `tools`, entries of allow/deny):
 * - `server/tool`: one tool of one configured server, e.g. `power-exchange/placeOrder`;
 * - globs: `*` matches within a segment (`power-exchange/*`, `power-exchange/get*`), `**` across
 *   segments; `*` or `**` alone matches every tool;
 * - a bare name (`placeOrder`, `get*`): that tool on any server, matched against
 *   the server's own tool name and the name the model sees.
 */
export interface Policy {
  tools: Record<string, ToolRule>;
  /**
   * By tenant id; the key `*` applies to every caller without an entry of its own, callers without a tenant included.
   */
  tenants: Record<string, TenantRule>;
  /** Key patterns whose values are hidden in logs and events (see createRedactor). */
  redact?: string[];
}

/** A policy that changes nothing: annotations decide, every tenant may call everything. */
export const EMPTY_POLICY: Policy = Object.freeze<Policy>({ tools: {}, tenants: {} });

/** The tenants entry used for tenants without one of their own. */
export const DEFAULT_TENANT_KEY = '*';

/** Everything the gate needs to know about one tool, after all matching rules are merged. */
export interface ResolvedToolPolicy {
  effect: ToolEffect;
  effectSource: 'config' | 'annotation' | 'default';
  approval: ApprovalMode;
  inject: Record<string, string>;
  timeoutMs?: number;
  returnDirect: boolean;
  untrusted: boolean;
  untrustedSource: 'config' | 'annotation' | 'default';
  unknownOutcome: UnknownOutcomeMode;
  /** The patterns that applied, most specific first, comma-separated. */
  policyRule?: string;
  /** The conditional rules of every pattern that applied, most specific pattern first, each in its list order. */
  conditions?: readonly PolicyCondition[];
}
