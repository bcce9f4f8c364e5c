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
        });
      }
    }
  }
  return keys;
}
