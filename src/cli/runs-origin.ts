import { isAbsolute } from 'node:path';
import { isJsonObject, type JsonObject } from '../core/index.ts';
import { shellQuote } from './runs-where.ts';

/** The run metadata key under which `toolgate run` records its origin. */
export const ORIGIN_KEY = 'cli';

/**
 * What `toolgate run` needs to reopen a run's tools and model in another
 * process. No secrets: the config file is read again (its `env:` values from
 * the environment of the process that reopens it), and of the model API key
 * only whether one was set.
 */
export interface CliOrigin {
  /** The working directory: relative `--mcp` paths and scripted model files resolve against it. */
  cwd: string;
  /** The config file that was read (absolute), if any. */
  config?: string;
  /** The `--mcp` values, as given. */
  mcp: string[];
  /** The model API root in use, if one was set. */
  baseUrl?: string;
  /** Whether a model API key was set. */
  modelApiKey: boolean;
}

export function originMetadata(origin: CliOrigin): JsonObject {
  const record: JsonObject = { cwd: origin.cwd, mcp: [...origin.mcp], modelApiKey: origin.modelApiKey };
  if (origin.config !== undefined) record['config'] = origin.config;
  if (origin.baseUrl !== undefined) record['baseUrl'] = origin.baseUrl;
  return { [ORIGIN_KEY]: record };
}

/** The origin recorded in a run's metadata, or undefined when there is none or it is malformed. */
export function readOrigin(metadata: JsonObject | undefined): CliOrigin | undefined {
  const record = metadata?.[ORIGIN_KEY];
  if (!isJsonObject(record)) return undefined;
  const { cwd, config, mcp, baseUrl, modelApiKey } = record;
  if (typeof cwd !== 'string' || !isAbsolute(cwd)) return undefined;
  if (!Array.isArray(mcp)) return undefined;
  const servers = mcp.filter((m) => typeof m === 'string');
  if (servers.length !== mcp.length) return undefined;
  if (config !== undefined && (typeof config !== 'string' || !isAbsolute(config))) return undefined;
  if (baseUrl !== undefined && typeof baseUrl !== 'string') return undefined;
  if (typeof modelApiKey !== 'boolean') return undefined;
  return {
    cwd,
    mcp: servers,
    modelApiKey,
    ...(config === undefined ? {} : { config }),
    ...(baseUrl === undefined ? {} : { baseUrl }),
  };
}

/** `--config /…/toolgate.yaml --mcp 'node server.js' (in /…)`, for the line that says what is started again. */
export function describeOrigin(origin: CliOrigin): string {
  const parts = [
    ...(origin.config === undefined ? [] : [`--config ${shellQuote(origin.config)}`]),
    ...origin.mcp.map((m) => `--mcp ${shellQuote(m)}`),
  ];
  return `${parts.length === 0 ? 'no tool servers' : parts.join(' ')} (in ${origin.cwd})`;
}
