import {
  DEFAULT_HISTORY_MAX_TOKENS,
  DEFAULT_MAX_REPLANS,
  DEFAULT_MAX_STEPS,
  DEFAULT_PARSE_RETRIES,
  DEFAULT_STRATEGY,
  DEFAULT_TODO_REMIND_AFTER,
  type GuardLimits,
  type ModelAdapter,
  type ModelPrice,
  type StrategyName,
  type RunStore,
  type ToolSource,
  type ToolSourceHealth,
} from '../core/index.ts';
import type { ServerConfig } from '../config/config-schema.ts';
import type { ProvidersConfig } from '../config/providers-schema.ts';
import { resolveProviders, type ParsingSettings, type Settings } from '../config/resolve-settings.ts';
import type { ToolRule } from '../gate/index.ts';
import type { RunHooks, ToolMode } from '../orchestrator/state/run-options.ts';
import type { LocalTool } from '../tools/local/define-tool.ts';
import type { RetryOptions } from '../tools/tool-registry.ts';
import { withoutUndefined } from '../core/without-undefined.ts';

/**
 * An MCP server in `tools`: spawned over stdio (`command`) or reached over Streamable HTTP (`url`), under a name
 * policies use.
 */
export type McpServerEntry = { name: string } & ServerConfig;

/** What `tools` takes: MCP servers, tools defined in code, or any ToolSource. */
export type ToolEntry = McpServerEntry | LocalTool | ToolSource;

/** The gate's rules, as in the config file: tool rules by pattern, tenants, redaction (docs/policy.md). */
export interface ToolgatePolicy {
  tools?: Record<string, ToolRule>;
  /** By tenant id (`*`: everyone without an entry); `models` narrows the models a tenant's runs may name. */
  tenants?: Record<string, TenantPolicy>;
  /** Key patterns whose values are hidden in events and logs. */
  redact?: string[];
}

/** Which tools (patterns; deny beats allow) and which models (patterns) a tenant's runs may use. */
export interface TenantPolicy {
  allow?: string[] | undefined;
  deny?: string[] | undefined;
  models?: string[] | undefined;
  /** The runtime guard's limits for this tenant's runs, over the defaults (`guard`). */
  guard?: GuardLimits | undefined;
}

/**
 * Everything toolgate is made of, as one plain object: what library users
 * pass to createToolgate and what a config file and CLI flags resolve into.
 */
export interface CreateToolgateOptions {
  /**
   * The default model: `"provider:model"` (openai:gpt-4o-mini, anthropic:claude-sonnet-4-5, ollama:qwen2.5:7b,
   * scripted:./script.json) or an adapter.
   */
  model?: string | ModelAdapter;
  /** Models a run may name besides the default (patterns, e.g. `openai:*`). */
  models?: string[];
  /**
   * Model APIs, as `providers:` in the config file: `openai`, `anthropic`,
   * `ollama`, and named endpoints (`vllm: {type: 'openai', baseUrl}`).
   * createToolgate completes the built-ins from OPENAI_API_KEY / OPENAI_BASE_URL,
   * ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL and OLLAMA_HOST.
   */
  providers?: ProvidersConfig;
  /** MCP servers, defineTool() results and ToolSources, in the order their tools are listed. */
  tools?: readonly ToolEntry[];
  /** `"memory:"` (default), `"sqlite:<file>"` (relative to cwd), or a RunStore. */
  store?: string | RunStore;
  policy?: ToolgatePolicy;
  /** Checks a config cannot express (docs/policy.md). */
  hooks?: RunHooks;
  systemPrompt?: string;
  /** Defaults for runs that do not say (DEFAULT_MAX_STEPS, native, …). */
  maxSteps?: number;
  toolMode?: ToolMode;
  constrain?: boolean;
  parseRetries?: number;
  textToolCalls?: 'never' | 'auto' | 'always';
  stream?: boolean;
  /** Timeout of a tool call that has no rule of its own. */
  toolTimeoutMs?: number;
  /** A tool result larger than this (bytes of JSON) is cut before it is recorded (default 1 MiB). */
  maxResultBytes?: number;
  /** The default strategy: react (default), plan, reflect or auto (docs/strategies.md). */
  strategy?: StrategyName;
  /** The runtime guard's default limits (docs/strategies.md); `policy.tenants.<id>.guard` overrides them. */
  guard?: GuardLimits;
  /** Model prices by pattern, US dollars per million tokens, for guard.maxCostUsd. */
  prices?: Record<string, ModelPrice>;
  /** The plan strategy: one approval for a plan or one per step, and how often it re-plans. */
  plan?: { approval?: 'plan' | 'step'; maxReplans?: number };
  /** The built-in todo tools (todo_write, todo_read) and the reminder. */
  todo?: { enabled?: boolean; remindAfter?: number };
  /** Thread history is trimmed to `maxTokens` (estimated) before a run, oldest tool outputs shortened first. */
  threads?: { maxTokens?: number };
  /** `evalResults`: a `toolgate eval --out` report the auto strategy routes by (docs/eval.md). */
  router?: { evalResults?: string; live?: boolean };
  /** Live outcome statistics' window and refresh (config `stats`, docs/observability.md). */
  stats?: Settings['stats'];
  /** Settings for a share of runs (config `rollout`, docs/strategies.md). */
  rollout?: Settings['rollout'];
  /** How long ended runs are kept (config `retention`, docs/observability.md). */
  retention?: Settings['retention'];
  /**
   * How model output is read (docs/configuration.md): `formats`, call formats
   * besides the built-in lexicon (the CallFormat shape, checked when toolgate
   * is created); `chatTemplates`, model pattern → chat template source (a
   * .jinja file, tokenizer_config.json, a .gguf file, or "server").
   */
  parsing?: ParsingSettings;
  /** How long a process owns a run it drives before another may take it over (docs/decisions/0005). */
  leaseMs?: number;
  /**
   * Where relative paths resolve: the SQLite file, scripted models, spawned servers. Default: the working directory.
   */
  cwd?: string;
  /** This process's owner id for run leases (default: unique per instance). */
  owner?: string;
  /**
   * Tool servers that are down are retried in the background (default: from 1 s, doubling, up to 60 s); `false`: never.
   */
  toolRetry?: RetryOptions | false;
  /** Told when a tool server goes down (with the cause) or comes back. */
  onToolHealth?: (health: ToolSourceHealth) => void;
  /** Receives spawned MCP servers' stderr lines. */
  onServerStderr?: (server: string, line: string) => void;
  /**
   * Told of what does not stop a run but should be fixed (a chat template that cannot be used). Default:
   * process.emitWarning.
   */
  onWarning?: (message: string) => void;
}

/** A config file and flags, resolved, as the options a library user would write. */
export function toolgateOptionsFromSettings(settings: Settings): CreateToolgateOptions {
  const options: CreateToolgateOptions = {
    providers: settings.providers,
    tools: Object.entries(settings.servers).map(([name, server]): McpServerEntry => ({ name, ...server })),
    policy: {
      tools: Object.fromEntries(
        Object.entries(settings.tools).map(([pattern, rule]) => [pattern, withoutUndefined(rule)]),
      ),
      tenants: settings.tenants,
      ...(settings.redact === undefined ? {} : { redact: settings.redact }),
    },
    maxSteps: settings.maxSteps,
    toolMode: settings.toolMode,
    constrain: settings.constrain,
    parseRetries: settings.parseRetries,
    textToolCalls: settings.textToolCalls,
    stream: settings.stream,
    strategy: settings.strategy,
    guard: settings.guard,
    prices: settings.prices,
    plan: settings.plan,
    todo: settings.todo,
  };
  if (settings.historyMaxTokens !== undefined) options.threads = { maxTokens: settings.historyMaxTokens };
  if (settings.routerEvalResults !== undefined || settings.routerLive !== undefined)
    options.router = withoutUndefined({ evalResults: settings.routerEvalResults, live: settings.routerLive });
  if (settings.stats !== undefined) options.stats = settings.stats;
  if (settings.rollout !== undefined) options.rollout = settings.rollout;
  if (settings.retention !== undefined) options.retention = settings.retention;
  if (settings.model !== undefined) options.model = settings.model;
  if (settings.models !== undefined) options.models = settings.models;
  if (settings.systemPrompt !== undefined) options.systemPrompt = settings.systemPrompt;
  if (settings.toolTimeoutMs !== undefined) options.toolTimeoutMs = settings.toolTimeoutMs;
  if (settings.maxResultBytes !== undefined) options.maxResultBytes = settings.maxResultBytes;
  if (settings.server.leaseMs !== undefined) options.leaseMs = settings.server.leaseMs;
  if (settings.parsing !== undefined) options.parsing = settings.parsing;
  return options;
}

/** The settings a Toolgate runs on, from options (defaults filled in); `servers` are the MCP entries of `tools`. */
export function settingsFromOptions(options: CreateToolgateOptions, servers: Record<string, ServerConfig>): Settings {
  const model = typeof options.model === 'string' ? options.model : options.model?.id;
  const policy = options.policy ?? {};
  const settings: Settings = {
    providers: resolveProviders(options.providers, {}),
    servers,
    maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
    stream: options.stream ?? true,
    toolMode: options.toolMode ?? 'native',
    constrain: options.constrain ?? false,
    parseRetries: options.parseRetries ?? DEFAULT_PARSE_RETRIES,
    textToolCalls: options.textToolCalls ?? 'auto',
    gatewayConfig: {},
    tools: policy.tools ?? {},
    tenants: policy.tenants ?? {},
    server: options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs },
    strategy: options.strategy ?? DEFAULT_STRATEGY,
    guard: options.guard ?? {},
    prices: options.prices ?? {},
    plan: { approval: options.plan?.approval ?? 'plan', maxReplans: options.plan?.maxReplans ?? DEFAULT_MAX_REPLANS },
    todo: {
      enabled: options.todo?.enabled ?? false,
      remindAfter: options.todo?.remindAfter ?? DEFAULT_TODO_REMIND_AFTER,
    },
  };
  settings.historyMaxTokens = options.threads?.maxTokens ?? DEFAULT_HISTORY_MAX_TOKENS;
  if (options.router?.evalResults !== undefined) settings.routerEvalResults = options.router.evalResults;
  if (options.router?.live !== undefined) settings.routerLive = options.router.live;
  if (options.stats !== undefined) settings.stats = options.stats;
  if (options.rollout !== undefined) settings.rollout = options.rollout;
  if (options.retention !== undefined) settings.retention = options.retention;
  if (model !== undefined) settings.model = model;
  if (options.models !== undefined) settings.models = options.models;
  if (policy.redact !== undefined) settings.redact = policy.redact;
  if (options.systemPrompt !== undefined) settings.systemPrompt = options.systemPrompt;
  if (options.toolTimeoutMs !== undefined) settings.toolTimeoutMs = options.toolTimeoutMs;
  if (options.maxResultBytes !== undefined) settings.maxResultBytes = options.maxResultBytes;
  if (options.parsing !== undefined) settings.parsing = options.parsing;
  return settings;
}
