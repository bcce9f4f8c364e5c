import { providerTypeOf } from './providers.ts';
import type { ProviderConfig, ProviderEntry } from './providers-schema.ts';

/** An entry with its type resolved (by its name for a built-in). Undefined for a name that has none. */
export function typedProvider(name: string, entry: ProviderEntry | undefined): ProviderConfig | undefined {
  const type = providerTypeOf(name, entry ?? {});
  return type === undefined ? undefined : { ...entry, type };
}
