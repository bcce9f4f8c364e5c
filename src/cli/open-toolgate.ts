import { Toolgate } from '../app/toolgate.ts';
import { loadConfig } from '../config/load-config.ts';
import { resolveSettings, type SettingsFlags } from '../config/resolve-settings.ts';
import type { CliIO } from './cli-io.ts';

/** Config file + environment + flags → a ready Toolgate. */
export function openToolgate(values: Record<string, unknown>, flags: SettingsFlags, io: CliIO): Toolgate {
  const configFile = typeof values['config'] === 'string' ? values['config'] : undefined;
  const { config } = loadConfig({ cwd: io.cwd, env: io.env, ...(configFile === undefined ? {} : { file: configFile }) });
  const mcp = Array.isArray(values['mcp']) ? (values['mcp'] as string[]) : [];
  const settings = resolveSettings(config, { ...flags, mcp }, io.env);
  const verbose = values['verbose'] === true;
  return new Toolgate({
    settings,
    cwd: io.cwd,
    ...(verbose ? { onServerStderr: (server: string, line: string) => io.stderr.write(`[${server}] ${line}\n`) } : {}),
  });
}
