import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { dirname, resolve } from 'node:path';
import { ToolgateError, describeError, isJsonObject } from '../core/index.ts';
import type * as ConfigSchema from './config-schema.ts';
import type { ToolgateConfig } from './config-schema.ts';
import type * as FormatConfigIssues from './format-config-issues.ts';
import { resolveConfigPaths } from './resolve-config-paths.ts';
import { findConfigFile } from './find-config-file.ts';

export { DEFAULT_CONFIG_FILES } from './find-config-file.ts';

export interface LoadConfigOptions {
  /** Explicit file (--config); it must exist. */
  file?: string;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

export interface LoadedConfig {
  config: ToolgateConfig;
  /** The file read, if any (absolute path). */
  file?: string;
}

/**
 * Reads toolgate.yaml (or JSON), validates it and resolves `env:NAME` values.
 * Every problem is a `config_invalid` error naming the file and the key path.
 * Relative paths in the file are resolved against the file's folder
 * (see resolveConfigPaths), so a config works from any working directory.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const file = findConfigFile({ file: options.file, cwd });
  if (file === undefined) return { config: {} };
  const raw = readConfigFile(file);
  const config = resolveConfigPaths({
    config: parseConfig(raw, { source: file, env }),
    dir: dirname(file),
    cwd: resolve(cwd),
  });
  return { config, file };
}

/**
 * Validates an already-parsed config object (from a file or given by a library
 * user). Paths are left as they are: without a file there is no folder to
 * resolve them against.
 */
export function parseConfig(
  raw: unknown,
  options: { source?: string; env?: Readonly<Record<string, string | undefined>> } = {},
): ToolgateConfig {
  const source = options.source ?? 'config';
  if (raw === null || raw === undefined) return {};
  const resolved = resolveEnvRefs(raw, [], { env: options.env ?? process.env, source });
  const { configSchema, formatConfigIssues } = configChecks();
  const result = configSchema.safeParse(resolved);
  if (!result.success)
    throw new ToolgateError(
      'config_invalid',
      formatConfigIssues({ source, issues: result.error.issues, schema: configSchema }),
      { details: { issues: result.error.issues } },
    );
  return result.data;
}

/** A YAML or JSON file (by its extension), parsed; a syntax error is config_invalid naming the file. */
export function readConfigFile(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.json')) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ToolgateError('config_invalid', `${file}: not valid JSON: ${describeError(error)}`);
    }
  }
  // yaml is required here, not imported: a library user who never reads a YAML file does not load it.
  // require() is untyped: the module is given the type of its own declarations.
  const yaml: typeof Yaml = createRequire(import.meta.url)('yaml');
  const { parseDocument } = yaml;
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    throw new ToolgateError('config_invalid', `${file}: not valid YAML: ${first?.message ?? 'unknown error'}`);
  }
  return doc.toJS();
}

// The schema and its error formatter (zod with them, about 10 MB) are required on
// first use, not imported: a library user who never reads a config does not load
// them. The sources run as .ts (tests), the package as .js.
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
let checks:
  | { configSchema: typeof ConfigSchema.configSchema; formatConfigIssues: typeof FormatConfigIssues.formatConfigIssues }
  | undefined;

function configChecks(): NonNullable<typeof checks> {
  if (checks !== undefined) return checks;
  const require = createRequire(import.meta.url);
  // require() is untyped: each module is given the type of its own declarations.
  const schemaModule: typeof ConfigSchema = require(`./config-schema${EXT}`);
  const formatModule: typeof FormatConfigIssues = require(`./format-config-issues${EXT}`);
  const { configSchema } = schemaModule;
  const { formatConfigIssues } = formatModule;
  checks = { configSchema, formatConfigIssues };
  return checks;
}

const ENV_REF = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

/** Replaces every string "env:NAME" with the variable's value; a missing variable is an error naming the key. */
function resolveEnvRefs(
  value: unknown,
  path: string[],
  where: { env: Readonly<Record<string, string | undefined>>; source: string },
): unknown {
  const { env, source } = where;
  if (typeof value === 'string') {
    const m = ENV_REF.exec(value);
    if (m === null) return value;
    const name = m[1] ?? '';
    const found = env[name];
    if (found === undefined || found === '') {
      throw new ToolgateError(
        'config_invalid',
        `${source}: ${path.join('.')} refers to environment variable ` +
          `${name}, which is not set; set it or put the value in the file`,
      );
    }
    return found;
  }
  if (Array.isArray(value)) return value.map((v: unknown, i) => resolveEnvRefs(v, [...path, String(i)], where));
  if (isJsonObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveEnvRefs(v, [...path, k], where)]));
  }
  return value;
}
