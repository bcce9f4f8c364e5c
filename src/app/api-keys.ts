import { ToolgateError } from '../core/index.ts';
import type { ApiKeyEntry } from '../server/index.ts';
import type { Settings } from '../config/resolve-settings.ts';

/** The runs API's keys from `tenants.<id>.apiKeys` (env: values already resolved by the config loader). */
export function apiKeysFromSettings(settings: Settings): ApiKeyEntry[] {
  const keys: ApiKeyEntry[] = [];
  for (const [tenantId, tenant] of Object.entries(settings.tenants)) {
    for (const entry of tenant.apiKeys ?? []) {
      if (typeof entry === 'string') keys.push({ key: entry, tenantId });
      else {
        keys.push({
          key: entry.key,
          tenantId,
          ...(entry.userId === undefined ? {} : { userId: entry.userId }),
          ...(entry.allowUserIdHeader === undefined ? {} : { allowUserIdHeader: entry.allowUserIdHeader }),
          ...(entry.roles === undefined || entry.roles.length === 0 ? {} : { roles: [...new Set(entry.roles)] }),
        });
      }
    }
  }
  // A key listed twice would act for whichever tenant comes first: refuse the configuration instead.
  const owner = new Map<string, string>();
  for (const { key, tenantId } of keys) {
    const first = owner.get(key);
    if (first !== undefined) {
      const where =
        first === tenantId
          ? `twice under tenants.${tenantId}.apiKeys`
          : `under both tenants.${first}.apiKeys and tenants.${tenantId}.apiKeys`;
      throw new ToolgateError(
        'config_invalid',
        `an API key (ending in "${key.slice(-4)}") is listed ${where}: each key must be listed once, for one tenant`,
      );
    }
    owner.set(key, tenantId);
  }
  return keys;
}
