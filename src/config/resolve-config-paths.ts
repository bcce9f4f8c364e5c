import { isAbsolute, resolve } from 'node:path';
import type { ServerConfig, ToolgateConfig } from './config-schema.ts';

export interface ResolveConfigPathsOptions {
  config: ToolgateConfig;
  /** The folder of the config file: relative paths in it mean paths next to it. */
  dir: string;
  /** The working directory, against which model ids are resolved when a model is created. */
  cwd: string;
}

const SCRIPTED = 'scripted:';
const SQLITE = 'sqlite:';
/** `parsing.chatTemplates` value that asks the model's server for its template instead of naming a file. */
const TEMPLATE_FROM_SERVER = 'server';

/**
 * Makes the paths in a config read from a file independent of the working
 * directory, so `toolgate --config deploy/toolgate.yaml` behaves the same
 * from any folder:
 *
 * - every stdio server gets an absolute `cwd` (its own `cwd` resolved, else
 *   the file's folder), so `args: [./server.js]` finds the file next to the config;
 * - a `command` written as a path (`./x`, `../x`) is made absolute against
 *   that `cwd`, which is also where a spawned process would look for it;
 * - `server.store: sqlite:<relative>` becomes an absolute path;
 * - `scripted:<relative>` model ids (`model`, `models`, `tenants.*.models`)
 *   are made absolute only when, read from the working directory (where
 *   models are created), they would name another file. Model ids are names
 *   API clients send and the allowlist compares exactly, so they keep the
 *   file's spelling whenever that already names the right file;
 * - `scripted:<relative>` keys of `prices` are made absolute;
 * - `parsing.chatTemplates` values that are files are made absolute (`server` is left alone).
 *
 * Values from flags and environment variables are not touched: they keep
 * resolving against the working directory.
 */
export function resolveConfigPaths(options: ResolveConfigPathsOptions): ToolgateConfig {
  const { config, dir } = options;
  const resolved: ToolgateConfig = { ...config };
  if (config.servers !== undefined) {
    resolved.servers = Object.fromEntries(
      Object.entries(config.servers).map(([name, server]) => [name, resolveServer(server, dir)]),
    );
  }
  const store = config.server?.store;
  if (config.server !== undefined && store?.startsWith(SQLITE) === true) {
    resolved.server = { ...config.server, store: SQLITE + resolveFile(store.slice(SQLITE.length), dir) };
  }
  const modelId = (id: string): string => resolveModelId(id, options);
  if (config.model !== undefined) resolved.model = modelId(config.model);
  if (config.models !== undefined) resolved.models = config.models.map(modelId);
  if (config.tenants !== undefined) {
    resolved.tenants = Object.fromEntries(
      Object.entries(config.tenants).map(([id, rule]) => [
        id,
        rule.models === undefined ? rule : { ...rule, models: rule.models.map(modelId) },
      ]),
    );
  }
  // A price names a file to compare with, never a name a client sends: always absolute, so it
  // matches the model however the run names that file (see app/model-price.ts).
  if (config.prices !== undefined) {
    resolved.prices = Object.fromEntries(
      Object.entries(config.prices).map(([pattern, price]) => [
        pattern.startsWith(SCRIPTED) ? SCRIPTED + resolveFile(pattern.slice(SCRIPTED.length), dir) : pattern,
        price,
      ]),
    );
  }
  // A template is a file next to the config (or `server`); a `scripted:` key, as for prices, names a file to compare
  // with.
  const templates = config.parsing?.chatTemplates;
  if (templates !== undefined) {
    const entries = Object.entries(templates).map(([pattern, source]): [string, string] => [
      pattern.startsWith(SCRIPTED) ? SCRIPTED + resolveFile(pattern.slice(SCRIPTED.length), dir) : pattern,
      source === TEMPLATE_FROM_SERVER ? source : resolveFile(source, dir),
    ]);
    resolved.parsing = { ...config.parsing, chatTemplates: Object.fromEntries(entries) };
  }
  const evalResults = config.router?.evalResults;
  if (evalResults !== undefined) resolved.router = { ...config.router, evalResults: resolveFile(evalResults, dir) };
  return resolved;
}

function resolveServer(server: ServerConfig, dir: string): ServerConfig {
  if (!('command' in server)) return server;
  const cwd = resolve(dir, server.cwd ?? '.');
  // Only a path-like command: a bare name (node, npx, uvx) is looked up on PATH.
  const command = /^\.\.?[\\/]/.test(server.command) ? resolve(cwd, server.command) : server.command;
  return { ...server, command, cwd };
}

/** SQLite's special `:memory:` name is not a file. */
function resolveFile(path: string, dir: string): string {
  return path === ':memory:' || isAbsolute(path) ? path : resolve(dir, path);
}

function resolveModelId(id: string, options: ResolveConfigPathsOptions): string {
  if (!id.startsWith(SCRIPTED)) return id;
  const path = id.slice(SCRIPTED.length);
  const file = resolve(options.dir, path);
  return file === resolve(options.cwd, path) ? id : SCRIPTED + file;
}
