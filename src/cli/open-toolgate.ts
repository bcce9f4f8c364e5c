import { resolve } from 'node:path';
import type { Toolgate } from '../app/toolgate.ts';
import { checkConfiguredFormats } from '../app/call-formats.ts';
import { checkToolConditions } from '../app/policy-from-settings.ts';
import { toolgateFrom } from '../app/create-toolgate.ts';
import { toolgateOptionsFromSettings, type CreateToolgateOptions } from '../app/toolgate-options.ts';
import type { RunStore } from '../core/index.ts';
import type { LoadedConfig } from '../config/load-config.ts';
import { findConfigFile } from '../config/find-config-file.ts';
import {
  endpointOf,
  flagProvider,
  resolveSettings,
  type Settings,
  type SettingsFlags,
} from '../config/resolve-settings.ts';
import { stringList, type CliIO } from './cli-io.ts';
import type { PolicyOverride } from './policy-file.ts';
import type { CliOrigin } from './runs-origin.ts';

export interface OpenToolgateOptions {
  /** Parsed flags; `config`, `mcp` and `verbose` are read. */
  values: Record<string, unknown>;
  flags: SettingsFlags;
  io: CliIO;
  /** Where the config file is looked for and `--mcp` servers and scripted models resolve (default: io.cwd). */
  cwd?: string;
  /** Read no config file, not even a toolgate.yaml in cwd: a run reopened as it was started without one. */
  noConfig?: boolean;
  /** Tool rules and tenants that replace the configuration's (a policy file: see readPolicyFile). */
  policy?: PolicyOverride;
}

export interface PreparedToolgate {
  /** What reopens the same tools and model later (recorded with a run). */
  origin: CliOrigin;
  /** The Toolgate, recording runs in `store` (default: in memory). Starts nothing until it is used. */
  open: (store?: RunStore) => Toolgate;
  /** The config, environment and flags, resolved (what the tool-pattern check reads). */
  settings: Settings;
}

/** Config file + environment + flags → a ready Toolgate. */
export async function openToolgate(
  values: Record<string, unknown>,
  flags: SettingsFlags,
  io: CliIO,
): Promise<Toolgate> {
  return (await prepareToolgate({ values, flags, io })).open();
}

/**
 * Reads and checks the configuration (config errors are thrown here, before a
 * store is opened) and says what it opened, so a run can record it.
 */
export async function prepareToolgate(options: OpenToolgateOptions): Promise<PreparedToolgate> {
  const { values, io } = options;
  const cwd = resolve(options.cwd ?? io.cwd);
  const configFile = typeof values['config'] === 'string' ? values['config'] : undefined;
  const file = options.noConfig === true ? undefined : findConfigFile({ cwd, file: configFile });
  // The schema and the YAML parser load only when there is a file to read (start-up time).
  const loaded: LoadedConfig =
    file === undefined
      ? { config: {} }
      : (await import('../config/load-config.ts')).loadConfig({ cwd, env: io.env, file });
  const mcp = stringList(values, 'mcp');
  const settings = resolveSettings(loaded.config, { ...options.flags, mcp }, io.env);
  if (options.policy !== undefined) Object.assign(settings, options.policy);
  // Said now, naming the file, before anything is opened.
  checkConfiguredFormats(settings.parsing?.formats ?? [], loaded.file ?? 'the config');
  checkToolConditions(settings.tools, loaded.file ?? 'the config');
  // A spawned server without a folder of its own runs in the working directory: say so
  // explicitly, so the same server starts the same way when a run is reopened from elsewhere.
  for (const [name, server] of Object.entries(settings.servers)) {
    if ('command' in server && server.cwd === undefined) settings.servers[name] = { ...server, cwd };
  }
  const verbose = values['verbose'] === true;
  // The endpoint and key of the provider the run's model uses (what --base-url and --api-key set).
  const provider = settings.providers[flagProvider(settings.providers, settings.model)];
  const baseUrl = provider === undefined ? undefined : endpointOf(provider);
  const apiKey = provider?.apiKey;
  const origin: CliOrigin = {
    cwd,
    mcp,
    modelApiKey: apiKey !== undefined && apiKey !== '',
    ...(loaded.file === undefined ? {} : { config: loaded.file }),
    ...(baseUrl === undefined ? {} : { baseUrl }),
  };
  // The same options a library user passes to createToolgate.
  const toolgateOptions: CreateToolgateOptions = {
    ...toolgateOptionsFromSettings(settings),
    cwd,
    onWarning: (message: string) => io.stderr.write(`⚠ ${message}\n`),
    ...(verbose ? { onServerStderr: (server: string, line: string) => io.stderr.write(`[${server}] ${line}\n`) } : {}),
  };
  const open = (store?: RunStore): Toolgate => toolgateFrom(toolgateOptions, store);
  return { origin, open, settings };
}
