import type { Policy } from '../gate/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { withoutUndefined } from '../core/without-undefined.ts';

/** The gate's policy from the validated config (API keys stay with the server). */
export function policyFromSettings(settings: Settings): Policy {
  const tools: Policy['tools'] = {};
  for (const [pattern, rule] of Object.entries(settings.tools)) tools[pattern] = withoutUndefined(rule);
  const tenants: Policy['tenants'] = {};
  for (const [id, rule] of Object.entries(settings.tenants))
    tenants[id] = withoutUndefined({ allow: rule.allow, deny: rule.deny });
  return { tools, tenants, ...(settings.redact === undefined ? {} : { redact: settings.redact }) };
}
