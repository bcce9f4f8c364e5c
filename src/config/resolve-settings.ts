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
import { isProviderType, ollamaHostProblem, PROVIDER_ENV, providerOf } from './providers.ts';
import { typedProvider } from './typed-provider.ts';
import type { ProviderConfig, ProvidersConfig } from './providers-schema.ts';
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
  /**
   * `--chat-template`: the model's chat template (a file, resolved by the caller, or `server`), over
   * `parsing.chatTemplates`.
   */
  chatTemplate?: string;
}

/** How model output is read: the config's `parsing` section. */
export interface ParsingSettings {
  /** Call formats as written (`parsing.formats`); the app checks each against the CallFormat shape. */
  formats?: readonly unknown[];
  /** Model pattern → chat template source (a file, absolute once resolved, or `server`). */
  chatTemplates?: Record<string, string>;
}

/** Everything a run needs, after flags, environment, file and defaults are merged. */
export interface Settings {
  model?: string;
  /** Model APIs by the name a model id starts with; the built-ins (openai, anthropic, ollama) are always present. */
  providers: Record<string, ProviderConfig>;
  servers: Record<string, ServerConfig>;
  maxSteps: number;
  systemPrompt?: string;
  toolTimeoutMs?: number;
  /** A run's tool results are cut to this (bytes of JSON); default DEFAULT_MAX_RESULT_BYTES. */
  maxResultBytes?: number;
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
  /** `router.live`: the auto router adds the live outcomes (tenants and rollouts may turn it on per run). */
  routerLive?: boolean;
  /** `stats`: the live statistics' window and refresh. */
  stats?: NonNullable<ToolgateConfig['stats']>;
  /** `rollout`: settings for a share of runs, per setting path. */
  rollout?: NonNullable<ToolgateConfig['rollout']>;
  /** `retention`: how long ended runs are kept. */
  retention?: NonNullable<ToolgateConfig['retention']>;
  /** Gateway mode (`toolgate gateway`): the config's `gateway:` section. */
  gatewayConfig: NonNullable<ToolgateConfig['gateway']>;
  /** `policy.strict`: a tool pattern that matches no tool stops serve, gateway, run and tools (as `--strict` does). */
  policyStrict?: boolean;
  /** `parsing`: extra call formats and chat templates by model pattern (docs/configuration.md). */
  parsing?: ParsingSettings;
  /** `chat`: how the chat protocols answer a call that waits for a person (docs/openai.md). */
  chat?: NonNullable<ToolgateConfig['chat']>;
  /** `approvals`: notifications, decision links, timeouts, escalation approvers (docs/approvals.md). */
  approvals?: NonNullable<ToolgateConfig['approvals']>;
}

/**
 * Precedence: flags > TOOLGATE_* environment > file > defaults. Provider
 * credentials follow the providers' own convention: flags > file > the
 * provider's variables (OPENAI_API_KEY, ANTHROPIC_API_KEY, OLLAMA_HOST…).
 * --base-url and --api-key apply to the provider of the model in use.
 */
export function resolveSettings(
  config: ToolgateConfig,
  flags: SettingsFlags = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): Settings {
  const model = flags.model ?? nonEmpty(env['TOOLGATE_MODEL']) ?? config.model;
  if (model !== undefined && !MODEL_PATTERN.test(model)) {
    throw new ToolgateError(
      'usage',
      `model "${model}" must be "provider:model", e.g. openai:gpt-4o-mini, ` +
        `openai:qwen2.5:7b (with --base-url) or scripted:./script.json`,
    );
  }
  const providers = resolveProviders(config.providers, env);
  applyProviderFlags({ providers, model, flags });

  const servers: Record<string, ServerConfig> = { ...config.servers };
  for (const value of flags.mcp ?? []) {
    const { name, server } = parseMcpFlag(value);
    let unique = name;
    for (let n = 2; unique in servers; n++) unique = `${name}-${n}`;
    servers[unique] = server;
  }

  const envSteps = nonEmpty(env['TOOLGATE_MAX_STEPS']);
  const maxSteps =
    flags.maxSteps ??
    (envSteps === undefined ? undefined : parseSteps(envSteps, 'TOOLGATE_MAX_STEPS')) ??
    config.maxSteps ??
    DEFAULT_MAX_STEPS;
  const settings: Settings = {
    providers,
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
    todo: {
      enabled: flags.todo ?? config.todo?.enabled ?? false,
      remindAfter: config.todo?.remindAfter ?? DEFAULT_TODO_REMIND_AFTER,
    },
    gatewayConfig: config.gateway ?? {},
  };
  settings.historyMaxTokens = config.threads?.maxTokens ?? DEFAULT_HISTORY_MAX_TOKENS;
  if (config.router?.evalResults !== undefined) settings.routerEvalResults = config.router.evalResults;
  if (config.router?.live !== undefined) settings.routerLive = config.router.live;
  if (config.stats !== undefined) settings.stats = config.stats;
  if (config.rollout !== undefined) settings.rollout = config.rollout;
  if (config.retention !== undefined) settings.retention = config.retention;
  if (config.redact !== undefined) settings.redact = config.redact;
  if (config.policy?.strict !== undefined) settings.policyStrict = config.policy.strict;
  if (config.chat !== undefined) settings.chat = config.chat;
  if (config.approvals !== undefined) settings.approvals = config.approvals;
  const parsing = parsingSettings(
    config.parsing,
    flags.chatTemplate === undefined || model === undefined ? undefined : { model, source: flags.chatTemplate },
  );
  if (parsing !== undefined) settings.parsing = parsing;
  if (config.models !== undefined) settings.models = config.models;
  if (model !== undefined) settings.model = model;
  if (config.systemPrompt !== undefined) settings.systemPrompt = config.systemPrompt;
  if (config.toolTimeoutMs !== undefined) settings.toolTimeoutMs = config.toolTimeoutMs;
  if (config.maxResultBytes !== undefined) settings.maxResultBytes = config.maxResultBytes;
  return settings;
}

/**
 * The `parsing` settings. `--chat-template` is written under the model's own
 * id: the most specific pattern there is, so it wins over the file's patterns.
 */
function parsingSettings(
  config: ToolgateConfig['parsing'],
  flag: { model: string; source: string } | undefined,
): ParsingSettings | undefined {
  if (config === undefined && flag === undefined) return undefined;
  const parsing: ParsingSettings = {};
  if (config?.formats !== undefined) parsing.formats = config.formats;
  const templates = { ...config?.chatTemplates, ...(flag === undefined ? {} : { [flag.model]: flag.source }) };
  if (Object.keys(templates).length > 0) parsing.chatTemplates = templates;
  return parsing;
}

/** `--mcp` value → a named server. The name is derived from the command or URL unless given as `name=…`. */
export function parseMcpFlag(value: string): { name: string; server: ServerConfig } {
  const trimmed = value.trim();
  if (trimmed === '')
    throw new ToolgateError('usage', '--mcp needs a command line (e.g. "node server.js") or an http(s) URL');
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
    return {
      name: explicitName ?? sanitize(`${url.hostname}-${url.port || (url.protocol === 'https:' ? '443' : '80')}`),
      server: { url: url.toString() },
    };
  }
  const words = splitCommandLine(rest);
  const [command, ...args] = words;
  if (command === undefined)
    throw new ToolgateError('usage', '--mcp needs a command line (e.g. "node server.js") or an http(s) URL');
  return { name: explicitName ?? deriveName(command, args), server: { command, args } };
}

function deriveName(command: string, args: string[]): string {
  // The most telling word: a package name or a script path, else the command itself.
  const candidate =
    [...args].reverse().find((a) => !a.startsWith('-') && (/[/\\.@]/.test(a) || a.length > 2)) ?? command;
  const parts = candidate
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p !== '');
  let base = (parts.at(-1) ?? candidate).replace(/\.(m?[jt]s|py|cjs)$/, '');
  if (['server', 'index', 'main', 'stdio'].includes(base) && parts.length > 1) base = parts.at(-2) ?? base;
  return sanitize(base) || 'server';
}

function sanitize(name: string): string {
  return name
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
}

function parseSteps(value: string, source: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new ToolgateError('usage', `${source} must be a positive integer, got "${value}"`);
  return n;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The configured providers with their types resolved, plus the built-ins
 * (always present), each built-in completed from its environment variables.
 * Named endpoints read no variables: their values come from the file (`env:NAME`).
 */
export function resolveProviders(
  config: ProvidersConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, ProviderConfig> {
  const providers: Record<string, ProviderConfig> = {};
  for (const name of ['openai', 'anthropic', 'ollama', ...Object.keys(config ?? {})]) {
    const typed = typedProvider(name, config?.[name]);
    if (typed !== undefined) providers[name] = typed;
  }
  for (const name of ['openai', 'anthropic', 'ollama'] as const) {
    const entry = providers[name];
    if (entry === undefined) continue;
    const vars = PROVIDER_ENV[name];
    // Checked when a model of this provider is created (endpointProblem), so a stale variable of a provider not in use
    // is harmless.
    if (endpointOf(entry) === undefined) {
      const fromEnv = nonEmpty(env[vars.endpoint]);
      if (fromEnv !== undefined) setEndpoint(entry, fromEnv);
    }
    if (vars.apiKey !== undefined && entry.apiKey === undefined) {
      const key = nonEmpty(env[vars.apiKey]);
      if (key !== undefined) entry.apiKey = key;
    }
  }
  return providers;
}

/** Where a provider is reached: the base URL, or Ollama's host. */
export function endpointOf(entry: ProviderConfig): string | undefined {
  return entry.type === 'ollama' ? entry.host : entry.baseUrl;
}

function setEndpoint(entry: ProviderConfig, value: string): void {
  if (entry.type === 'ollama') entry.host = value;
  else entry.baseUrl = value;
}

/** Why an endpoint value cannot be used, with an example of this provider type's. */
function problemOf(entry: ProviderConfig, value: string): string | undefined {
  if (entry.type === 'ollama') return ollamaHostProblem(value);
  return entry.type === 'anthropic' ? baseUrlProblem(value, 'https://api.anthropic.com') : baseUrlProblem(value);
}

function checkEndpoint(entry: ProviderConfig, value: string, source: string): string {
  const problem = problemOf(entry, value);
  if (problem !== undefined) throw new ToolgateError('usage', `${source} ${problem}`);
  return value;
}

/**
 * Why a provider's endpoint cannot be used, naming where it may have come
 * from; undefined when it is fine or unset (the default). File values and
 * flags were checked as they came in; this catches an environment variable.
 */
export function endpointProblem(name: string, entry: ProviderConfig): string | undefined {
  const value = endpointOf(entry);
  if (value === undefined) return undefined;
  const problem = problemOf(entry, value);
  if (problem === undefined) return undefined;
  const key = entry.type === 'ollama' ? 'host' : 'baseUrl';
  const variable = isProviderType(name) ? `, or ${PROVIDER_ENV[name].endpoint}` : '';
  return `the ${name} endpoint "${value}" ${problem} (it comes from providers.${name}.${key}, --base-url${variable})`;
}

/**
 * The provider --base-url and --api-key speak to: the model's, when it is an
 * HTTP provider; otherwise openai (the flags' meaning before there were others).
 */
export function flagProvider(providers: Readonly<Record<string, ProviderConfig>>, model: string | undefined): string {
  const name = model === undefined ? '' : providerOf(model);
  return providers[name] !== undefined ? name : 'openai';
}

function applyProviderFlags(input: {
  providers: Record<string, ProviderConfig>;
  model: string | undefined;
  flags: SettingsFlags;
}): void {
  const { providers, flags } = input;
  if (flags.baseUrl === undefined && flags.apiKey === undefined) return;
  const entry = providers[flagProvider(providers, input.model)];
  if (entry === undefined) return;
  if (flags.baseUrl !== undefined) setEndpoint(entry, checkEndpoint(entry, flags.baseUrl, '--base-url'));
  if (flags.apiKey !== undefined) entry.apiKey = flags.apiKey;
}
