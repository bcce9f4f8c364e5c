import type { RunStore } from '../core/index.ts';
import { checkToolgateOptions } from './check-toolgate-options.ts';
import { resolveProviders } from '../config/resolve-settings.ts';
import { openStore } from './open-store.ts';
import { sortToolEntries } from './sort-tool-entries.ts';
import { Toolgate } from './toolgate.ts';
import { settingsFromOptions, type CreateToolgateOptions } from './toolgate-options.ts';
import { withoutUndefined } from '../core/without-undefined.ts';

/**
 * toolgate from one plain options object: the model, providers, tools (MCP
 * servers, tools defined in code, ToolSources), store, policy and hooks.
 * Options are checked first, with the config file's rules and messages; the
 * store is opened; tool servers start on first use (or `connectTools()`).
 *
 * ```ts
 * const toolgate = await createToolgate({ model: 'openai:gpt-4o-mini', tools: [lookupOrder] });
 * const run = await toolgate.run({ input: 'Where is order 42?' });
 * ```
 */
export async function createToolgate(options: CreateToolgateOptions = {}): Promise<Toolgate> {
  await checkToolgateOptions(options);
  // As the providers' own clients do: the environment is the fallback for keys and endpoints.
  const providers = resolveProviders(options.providers, process.env);
  const store =
    typeof options.store === 'string'
      ? await openStore(options.store, options.cwd === undefined ? {} : { cwd: options.cwd })
      : options.store;
  try {
    return toolgateFrom({ ...options, providers }, store);
  } catch (error) {
    if (typeof options.store === 'string') await store?.close();
    throw error;
  }
}

/**
 * The Toolgate for options that are already checked (a config file and flags
 * resolved by the CLI), on a store that is already open. Synchronous: nothing starts.
 */
export function toolgateFrom(options: CreateToolgateOptions, store?: RunStore): Toolgate {
  const { servers, sources } = sortToolEntries(options.tools ?? []);
  // A spawned server without a folder of its own starts where relative paths resolve.
  if (options.cwd !== undefined) {
    for (const [name, server] of Object.entries(servers))
      if ('command' in server && server.cwd === undefined) servers[name] = { ...server, cwd: options.cwd };
  }
  const settings = settingsFromOptions(options, servers);
  return new Toolgate({
    settings,
    tools: sources,
    ...(store === undefined ? {} : { store }),
    ...(typeof options.model === 'object' ? { model: options.model } : {}),
    ...withoutUndefined({
      hooks: options.hooks,
      cwd: options.cwd,
      owner: options.owner,
      toolRetry: options.toolRetry,
      onToolHealth: options.onToolHealth,
      onServerStderr: options.onServerStderr,
      onWarning: options.onWarning,
    }),
  });
}
