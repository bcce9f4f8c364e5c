import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ToolgateError } from '../core/index.ts';

/** Looked up in the working directory when no --config is given. */
export const DEFAULT_CONFIG_FILES = ['toolgate.yaml', 'toolgate.yml', 'toolgate.json'] as const;

/**
 * The config file to read (absolute), if any: the explicit one, which must
 * exist, else the first default file in `cwd`. Apart from loadConfig so that
 * a command without a config file never loads the schema and YAML parser.
 */
export function findConfigFile(options: { file?: string | undefined; cwd: string }): string | undefined {
  if (options.file !== undefined) {
    const file = resolve(options.cwd, options.file);
    if (!existsSync(file))
      throw new ToolgateError('config_invalid', `config file ${options.file} does not exist (resolved to ${file})`);
    return file;
  }
  return DEFAULT_CONFIG_FILES.map((f) => resolve(options.cwd, f)).find((f) => existsSync(f));
}
