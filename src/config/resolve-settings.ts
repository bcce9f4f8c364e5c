import {
  DEFAULT_HISTORY_MAX_TOKENS,
  DEFAULT_MAX_REPLANS,
  DEFAULT_MAX_STEPS,
  DEFAULT_PARSE_RETRIES,
  DEFAULT_STRATEGY,
  DEFAULT_TODO_REMIND_AFTER,
  ToolgateError,
  type GuardLimits,
  type ModelPrice,
  type PlanSettings,
  type StrategyName,
  type TodoSettings,
} from '../core/index.ts';
import { baseUrlProblem } from './base-url-problem.ts';
import type { ServerConfig, ToolgateConfig } from './config-schema.ts';
import { MODEL_PATTERN } from './model-pattern.ts';
import { splitCommandLine } from './split-command-line.ts';


/** Command-line values that override the config file. */
export interface SettingsFlags {
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** `--mcp` values: a command line, an http(s) URL, either optionally prefixed `name=`. */
  mcp?: readonly string[];
  maxSteps?: number;
  toolMode?: 'native' | 'prompted' | 'auto';
  constrain?: boolean;
  /** `--strategy`: react, plan, reflect or auto. */
  strategy?: StrategyName;
  /** `--todo`: offer the built-in todo tools. */
  todo?: boolean;
}

export interface OpenAISettings {
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  headers?: Record<string, string> | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  maxResponseBytes?: number | undefined;
  maxStreamBytes?: number | undefined;
  maxEventBytes?: number | undefined;
  maxToolCalls?: number | undefined;
}

/** Everything a run needs, after flags, environment, file and defaults are merged. */
export interface Settings {
  model?: string;
  openai: OpenAISettings;
  servers: Record<string, ServerConfig>;
  maxSteps: number;
  systemPrompt?: string;
  toolTimeoutMs?: number;
  stream: boolean;
  toolMode: 'native' | 'prompted' | 'auto';
  constrain: boolean;
  parseRetries: number;
  /** Native mode: whether calls written in the answer text run (never | auto | always). */
  textToolCalls: 'never' | 'auto' | 'always';
  /** Models API clients may choose (patterns); absent: only `model`. */
  models?: string[];
  /** Tool rules by pattern (see docs/policy.md). */
  tools: NonNullable<ToolgateConfig['tools']>;
  tenants: NonNullable<ToolgateConfig['tenants']>;
  redact?: string[];
  server: NonNullable<ToolgateConfig['server']>;
  /** The default strategy of runs (a request may choose another). */
  strategy: StrategyName;
  /** The runtime guard's default limits; `tenants.<id>.guard` overrides them per tenant. */
  guard: GuardLimits;
  /** Prices by model pattern, for guard.maxCostUsd. */
  prices: Record<string, ModelPrice>;
  plan: PlanSettings;
  todo: TodoSettings;
  /** Thread history is trimmed to this many tokens (estimated). */
  historyMaxTokens?: number;
  /** The eval report the auto strategy's router reads (an absolute path once resolved). */
  routerEvalResults?: string;
}


/**
 * Precedence: flags > TOOLGATE_* environment > file > defaults. Provider
 * credentials follow the providers' own convention: flags > file >
 * OPENAI_BASE_URL / OPENAI_API_KEY (the environment is the fallback).
 */
export function resolveSettings(config: ToolgateConfig, flags: SettingsFlags = {}, env: Readonly<Record<string, string | undefined>> = process.env): Settings {
  const model = flags.model ?? nonEmpty(env['TOOLGATE_MODEL']) ?? config.model;
  if (model !== undefined && !MODEL_PATTERN.test(model)) {
    throw new ToolgateError('usage', `model "${model}" must be "provider:model", e.g. openai:gpt-4o-mini, openai:qwen2.5:7b (with --base-url) or scripted:./script.json`);
  }
  const fileOpenAI = config.providers?.openai ?? {};
  const openai: OpenAISettings = { ...fileOpenAI };
  const baseUrl = flags.baseUrl ?? fileOpenAI.baseUrl ?? nonEmpty(env['OPENAI_BASE_URL']);
  // The file's value was checked when it was loaded; only the one in use is checked, so a stale variable that a flag overrides is harmless.
  if (flags.baseUrl !== undefined) checkBaseUrl(flags.baseUrl, '--base-url');
  else if (fileOpenAI.baseUrl === undefined && baseUrl !== undefined) checkBaseUrl(baseUrl, 'the environment variable OPENAI_BASE_URL');
  const apiKey = flags.apiKey ?? fileOpenAI.apiKey ?? nonEmpty(env['OPENAI_API_KEY']);
  if (baseUrl !== undefined) openai.baseUrl = baseUrl;
  if (apiKey !== undefined) openai.apiKey = apiKey;

  const servers: Record<string, ServerConfig> = { ...config.servers };
  for (const value of flags.mcp ?? []) {
    const { name, server } = parseMcpFlag(value);
    let unique = name;
    for (let n = 2; unique in servers; n++) unique = `${name}-${n}`;
    servers[unique] = server;
  }

  const envSteps = nonEmpty(env['TOOLGATE_MAX_STEPS']);
  const maxSteps = flags.maxSteps ?? (envSteps === undefined ? undefined : parseSteps(envSteps, 'TOOLGATE_MAX_STEPS')) ?? config.maxSteps ?? DEFAULT_MAX_STEPS;
  const settings: Settings = {
    openai,
    servers,
    maxSteps,
    stream: config.stream ?? true,
    toolMode: flags.toolMode ?? config.toolMode ?? 'native',
    constrain: flags.constrain ?? config.constrain ?? false,
    parseRetries: config.parseRetries ?? DEFAULT_PARSE_RETRIES,
    textToolCalls: config.textToolCalls ?? 'auto',
    tools: config.tools ?? {},
    tenants: config.tenants ?? {},
    server: config.server ?? {},
    strategy: flags.strategy ?? config.strategy ?? DEFAULT_STRATEGY,
    guard: config.guard ?? {},
    prices: config.prices ?? {},
    plan: { approval: config.plan?.approval ?? 'plan', maxReplans: config.plan?.maxReplans ?? DEFAULT_MAX_REPLANS },
    todo: { enabled: flags.todo ?? config.todo?.enabled ?? false, remindAfter: config.todo?.remindAfter ?? DEFAULT_TODO_REMIND_AFTER },
  };
  settings.historyMaxTokens = config.threads?.maxTokens ?? DEFAULT_HISTORY_MAX_TOKENS;
  if (config.router?.evalResults !== undefined) settings.routerEvalResults = config.router.evalResults;
  if (config.redact !== undefined) settings.redact = config.redact;
  if (config.models !== undefined) settings.models = config.models;
  if (model !== undefined) settings.model = model;
  if (config.systemPrompt !== undefined) settings.systemPrompt = config.systemPrompt;
  if (config.toolTimeoutMs !== undefined) settings.toolTimeoutMs = config.toolTimeoutMs;
  return settings;
}

/** `--mcp` value → a named server. The name is derived from the command or URL unless given as `name=…`. */
export function parseMcpFlag(value: string): { name: string; server: ServerConfig } {
  const trimmed = value.trim();
  if (trimmed === '') throw new ToolgateError('usage', '--mcp needs a command line (e.g. "node server.js") or an http(s) URL');
  const named = /^([a-zA-Z0-9_.-]{1,48})=(.+)$/s.exec(trimmed);
  const explicitName = named?.[1];
  const rest = named?.[2] ?? trimmed;
  if (/^https?:\/\//i.test(rest)) {
    let url: URL;
    try {
      url = new URL(rest);
    } catch {
      throw new ToolgateError('usage', `--mcp ${rest}: not a valid URL`);
    }
    return { name: explicitName ?? sanitize(`${url.hostname}-${url.port || (url.protocol === 'https:' ? '443' : '80')}`), server: { url: url.toString() } };
  }
  const words = splitCommandLine(rest);
  const [command, ...args] = words;
  if (command === undefined) throw new ToolgateError('usage', '--mcp needs a command line (e.g. "node server.js") or an http(s) URL');
  return { name: explicitName ?? deriveName(command, args), server: { command, args } };
}

function deriveName(command: string, args: string[]): string {
  // The most telling word: a package name or a script path, else the command itself.
  const candidate = [...args].reverse().find((a) => !a.startsWith('-') && (/[/\\.@]/.test(a) || a.length > 2)) ?? command;
  const parts = candidate.replace(/\\/g, '/').split('/').filter((p) => p !== '');
  let base = (parts.at(-1) ?? candidate).replace(/\.(m?[jt]s|py|cjs)$/, '');
  if (['server', 'index', 'main', 'stdio'].includes(base) && parts.length > 1) base = parts.at(-2) ?? base;
  return sanitize(base) || 'server';
}

function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48);
}

function checkBaseUrl(value: string, source: string): void {
  const problem = baseUrlProblem(value);
  if (problem !== undefined) throw new ToolgateError('usage', `${source} ${problem}`);
}

function parseSteps(value: string, source: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ToolgateError('usage', `${source} must be a positive integer, got "${value}"`);
  return n;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
