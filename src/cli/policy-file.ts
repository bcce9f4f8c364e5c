import { existsSync } from 'node:fs';
import { checkToolConditions } from '../app/policy-from-settings.ts';
import { ToolgateError, isJsonObject } from '../core/index.ts';
import { parseConfig, readConfigFile } from '../config/load-config.ts';
import type { Settings } from '../config/resolve-settings.ts';

/** A policy that replaces the configuration's: its tool rules and its tenants, as toolgate.yaml writes them. */
export interface PolicyOverride {
  tools: Settings['tools'];
  tenants: Settings['tenants'];
}

const POLICY_KEYS: ReadonlySet<string> = new Set(['tools', 'tenants']);

/**
 * Reads a policy file (`toolgate replay --policy`, a policy test suite's `policy:`): YAML or JSON with `tools:` and
 * `tenants:` only, checked as the config checks them (conditions compiled), so a policy change can be tried alone.
 * Keys that are not policy are refused: the rest of the configuration comes from the config file.
 */
export function readPolicyFile(file: string, env: Readonly<Record<string, string | undefined>>): PolicyOverride {
  if (!existsSync(file)) throw new ToolgateError('usage', `policy file ${file} does not exist`);
  const raw = readConfigFile(file) ?? {};
  if (!isJsonObject(raw))
    throw new ToolgateError('config_invalid', `${file}: a policy file is a mapping with tools: and tenants:`);
  const other = Object.keys(raw).filter((key) => !POLICY_KEYS.has(key));
  if (other.length > 0)
    throw new ToolgateError(
      'config_invalid',
      `${file}: ${other.join(', ')}: a policy file holds only tools: and tenants: (the rest of the configuration ` +
        'comes from the config file)',
    );
  const config = parseConfig(raw, { source: file, env });
  const tools = config.tools ?? {};
  checkToolConditions(tools, file);
  return { tools, tenants: config.tenants ?? {} };
}
