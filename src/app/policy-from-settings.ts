import type { Policy, ToolRule } from '../gate/index.ts';
import type { Settings } from '../config/resolve-settings.ts';

/** The gate's policy from the validated config (API keys stay with the server). */
export function policyFromSettings(settings: Settings): Policy {
  const tools: Record<string, ToolRule> = {};
  for (const [pattern, rule] of Object.entries(settings.tools)) tools[pattern] = withoutUndefined(rule) as ToolRule;
  const tenants: Policy['tenants'] = {};
  for (const [id, rule] of Object.entries(settings.tenants)) {
    tenants[id] = withoutUndefined({ allow: rule.allow, deny: rule.deny }) as Policy['tenants'][string];
  }
  return { tools, tenants, ...(settings.redact === undefined ? {} : { redact: settings.redact }) };
}

function withoutUndefined(value: object): object {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
