import { checkPolicyConditions, type ConditionsOf, type Policy, type RoleRule } from '../gate/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { ToolgateError } from '../core/index.ts';
import { withoutUndefined } from '../core/without-undefined.ts';

/**
 * The gate's policy from the validated config (API keys stay with the server). Its conditions (`when:`) are compiled
 * here, once: one that cannot be used is a `config_invalid` error naming its key path (checkToolConditions).
 */
export function policyFromSettings(settings: Settings, source?: string): Policy {
  const tools: Policy['tools'] = {};
  for (const [pattern, rule] of Object.entries(settings.tools)) tools[pattern] = withoutUndefined(rule);
  checkToolConditions(tools, source);
  const tenants: Policy['tenants'] = {};
  for (const [id, rule] of Object.entries(settings.tenants))
    tenants[id] = withoutUndefined({
      allow: rule.allow,
      deny: rule.deny,
      roles: rule.roles === undefined ? undefined : roleRules(rule.roles),
      approvers: rule.approvers,
    });
  return { tools, tenants, ...(settings.redact === undefined ? {} : { redact: settings.redact }) };
}

/** `tenants.<id>.roles` as the gate takes them (exact optional keys). */
function roleRules(
  roles: Readonly<Record<string, { allow?: string[] | undefined; deny?: string[] | undefined }>>,
): Record<string, RoleRule> {
  return Object.fromEntries(Object.entries(roles).map(([role, rule]) => [role, withoutUndefined(rule)]));
}

/**
 * Compiles every condition of `tools` (CEL expressions parsed and type-checked, JSON Schemas compiled) and throws
 * `config_invalid` listing each that cannot be used, `tools.<pattern>.conditions.<i>.when: <why>`, as the config's
 * own errors are listed. Compiled forms are kept for the calls (per rule object).
 */
export function checkToolConditions(tools: Readonly<Record<string, ConditionsOf>>, source = 'the config'): void {
  const problems = checkPolicyConditions({ tools });
  if (problems.length === 0) return;
  throw new ToolgateError(
    'config_invalid',
    `${source} is not a valid toolgate config:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
      'Conditions are described in docs/policy.md ("Conditions").',
    { details: { problems } },
  );
}
