import type { ToolSpec } from '../core/tools.ts';
import { classifyTool } from './classify-tool.ts';
import { compareSpecificity, matchToolPattern, toolRefOf } from './match-tool-pattern.ts';
import type {
  ApprovalMode,
  Policy,
  PolicyCondition,
  ResolvedToolPolicy,
  ToolEffect,
  UnknownOutcomeMode,
} from './policy.ts';

/** Approval when no rule sets one: writes wait for a human, reads run. */
export const DEFAULT_APPROVAL: Readonly<Record<ToolEffect, ApprovalMode>> = { write: 'required', read: 'never' };

/**
 * Merges every `tools` rule whose pattern matches, from least to most specific
 * (so `power-exchange/placeOrder` overrides `power-exchange/*`, which overrides
 * `*`); `inject` maps merge key by key. Conditional rules do not merge: every
 * matching pattern's apply, the most specific pattern's first.
 */
export function resolveToolPolicy(policy: Policy, tool: ToolSpec, exposedName: string): ResolvedToolPolicy {
  const target = toolRefOf(tool, exposedName);
  const patterns = Object.keys(policy.tools)
    .filter((pattern) => matchToolPattern(pattern, target))
    .sort(compareSpecificity);
  let effect: ToolEffect | undefined;
  let approval: ApprovalMode | undefined;
  let timeoutMs: number | undefined;
  let returnDirect: boolean | undefined;
  let untrusted: boolean | undefined;
  let unknownOutcome: UnknownOutcomeMode | undefined;
  const inject: Record<string, string> = {};
  const conditions: PolicyCondition[] = [];
  for (const pattern of patterns) {
    const rule = policy.tools[pattern];
    if (rule === undefined) continue;
    effect = rule.effect ?? effect;
    approval = rule.approval ?? approval;
    timeoutMs = rule.timeoutMs ?? timeoutMs;
    returnDirect = rule.returnDirect ?? returnDirect;
    untrusted = rule.untrusted ?? untrusted;
    unknownOutcome = rule.unknownOutcome ?? unknownOutcome;
    if (rule.inject !== undefined) Object.assign(inject, rule.inject);
    // Prepended: the patterns come least specific first.
    if (rule.conditions !== undefined)
      conditions.unshift(...rule.conditions.map((r, index) => ({ pattern, index, rule: r })));
  }
  const classification = classifyTool(tool, effect);
  const resolved: ResolvedToolPolicy = {
    effect: classification.effect,
    effectSource: classification.source,
    approval: approval ?? DEFAULT_APPROVAL[classification.effect],
    inject,
    returnDirect: returnDirect ?? false,
    // Only an explicit openWorldHint counts: the MCP default (true when absent) would taint every tool.
    untrusted: untrusted ?? tool.annotations?.openWorldHint === true,
    untrustedSource:
      untrusted !== undefined ? 'config' : tool.annotations?.openWorldHint === true ? 'annotation' : 'default',
    unknownOutcome: unknownOutcome ?? 'ask',
  };
  if (timeoutMs !== undefined) resolved.timeoutMs = timeoutMs;
  if (patterns.length > 0) resolved.policyRule = [...patterns].reverse().join(', ');
  if (conditions.length > 0) resolved.conditions = conditions;
  return resolved;
}
