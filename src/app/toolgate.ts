import { hostname } from 'node:os';
import { resolve } from 'node:path';
import {
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_STRATEGY,
  ToolgateError,
  newId,
  type IdempotencyRequest,
  type JsonObject,
  type ModelAdapter,
  type NewRun,
  type Run,
  type RunEvent,
  type RunInput,
  type RunLease,
  type RunSettings,
  type RunStore,
  type ToolSource,
  type ToolSourceHealth,
  type ToolSpec,
} from '../core/index.ts';
import { endpointOf, resolveSettings, type Settings } from '../config/resolve-settings.ts';
import { providerOf } from '../config/providers.ts';
import { isModelAllowed, isToolAllowed, resolveToolPolicy, tenantRuleFor, type ModelDecision, type Policy } from '../gate/index.ts';
import { settingsFrom } from '../orchestrator/run-agent.ts';
import { RunEngine } from '../orchestrator/run-engine.ts';
import type { RunEnvironment, RunHooks, ToolMode } from '../orchestrator/run-options.ts';
import { strategyFor } from '../orchestrator/strategies/index.ts';
import { activeTraceparent, checkTraceparent } from '../orchestrator/tracing.ts';
import { sharedValidator, type Validator } from '../validation/index.ts';
import { policyFromSettings } from './policy-from-settings.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { McpToolSource } from '../tools/mcp/mcp-tool-source.ts';
import { limitedTools } from '../gateway/limited-tools.ts';
import { ToolRegistry, type RetryOptions } from '../tools/tool-registry.ts';
import { createModel } from './create-model.ts';
import { withEstimatedUsage } from '../providers/shared/estimate-usage.ts';
import { priceFor } from './model-price.ts';
import { RouterEvidenceFile } from './router-evidence.ts';
import { CallFormats } from './call-formats.ts';

export interface ToolgateOptions {
  /** Resolved configuration (config file, environment, flags). Default: no tool servers, no model, the defaults. */
  settings?: Settings;
  /** More tool sources beside the MCP servers of the settings: in-process tools (LocalToolSource), your own ToolSource. */
  tools?: readonly ToolSource[];
  /** Defaults to an in-memory store. */
  store?: RunStore;
  /** Where relative paths (scripted models) are resolved. */
  cwd?: string;
  /** Receives MCP servers' stderr lines. Default: discarded. */
  onServerStderr?: (server: string, line: string) => void;
  /** Use this model instead of resolving `settings.model` (library users, tests). Usage it leaves out is estimated, as for every model. */
  model?: ModelAdapter;
  /** Checks a config cannot express (see docs/policy.md). */
  hooks?: RunHooks;
  /** This process's owner id for run leases (default: host/pid/random; unique per Toolgate). */
  owner?: string;
  /** Tool servers that are down are retried in the background with backoff (default on); `false`: only when asked again. */
  toolRetry?: RetryOptions | false;
  /** Told when a tool server goes down (with the cause) or comes back. */
  onToolHealth?: (health: ToolSourceHealth) => void;
  /** Told of what does not stop a run but should be fixed (a chat template that cannot be used). Default: process.emitWarning. */
  onWarning?: (message: string) => void;
}

export interface RunRequest {
  input: string;
  /** "provider:model"; defaults to the configured model. */
  model?: string;
  maxSteps?: number;
  /** A strategy name (react, plan, reflect, auto); unknown names are refused with the known ones. Default: the configured one. */
  strategy?: string;
  toolMode?: ToolMode;
  /** Offer the built-in todo tools (default: config `todo.enabled`). */
  todo?: boolean;
  /** A W3C traceparent the run's spans continue (default: the span active when the run is created, if any). */
  traceparent?: string;
  threadId?: string;
  tenantId?: string;
  userId?: string;
  /** Writes are validated and shown, not executed. */
  dryRun?: boolean;
  /** Values for injected arguments (`{{context.*}}`). */
  context?: JsonObject;
  metadata?: JsonObject;
  signal?: AbortSignal;
  /** Called with every event of the run, in order, from the first one. */
  onEvent?: (event: RunEvent) => void;
}

export interface DriveOptions {
  signal?: AbortSignal;
  /** Stop at the next safe point without ending the run (shutdown). */
  stopSignal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
}

/** A tool as a tenant sees it, with its classification. */
export type ClassifiedTool = ToolSpec & {
  effect: 'read' | 'write';
  effectSource: 'config' | 'annotation' | 'default';
  approval: 'required' | 'auto' | 'never';
  /** Argument names the gate fills in (the resolved rule's `inject` keys); the model never sees them. */
  injected: string[];
  /** Its output is treated as untrusted (config `untrusted`, or an explicit openWorldHint). */
  untrusted: boolean;
  /** false: its server is down (the last known listing); runs do not get it until the server is back. */
  available: boolean;
};

/**
 * toolgate assembled: MCP servers from the settings behind one registry, a
 * run store, and model adapters chosen by id. Library users and the CLI both
 * start here.
 */
export class Toolgate {
  readonly settings: Settings;
  readonly store: RunStore;
  readonly tools: ToolRegistry;
  /** The tools as runs get them: every result cut to `maxResultBytes`. */
  readonly #runTools: ToolSource;
  readonly #options: ToolgateOptions;
  readonly #models = new Map<string, Promise<ModelAdapter>>();
  /** The caller's own model (ToolgateOptions.model), its missing usage estimated. */
  readonly #ownModel: ModelAdapter | undefined;
  readonly #evidence: RouterEvidenceFile | undefined;
  /** The call formats each model's runs read besides the built-in lexicon (config and chat templates). */
  readonly formats: CallFormats;
  readonly policy: Policy;
  readonly validator: Validator = sharedValidator();
  /** The one owner of runs' lives in this process (see RunEngine). */
  readonly engine: RunEngine;

  constructor(options: ToolgateOptions = {}) {
    this.#options = options;
    this.#ownModel = options.model === undefined ? undefined : withEstimatedUsage(options.model);
    this.settings = options.settings ?? defaultSettings();
    this.store = options.store ?? new MemoryRunStore();
    const runLimit = this.settings.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    // One connection to a server serves runs and gateway sessions: it reads as much as the larger limit keeps.
    const readLimit = Math.max(runLimit, this.settings.gatewayConfig.maxResultBytes ?? runLimit);
    const servers = Object.entries(this.settings.servers).map(
      ([name, server]) =>
        new McpToolSource({
          name,
          server,
          maxResultBytes: readLimit,
          ...(server.timeoutMs === undefined ? {} : { defaultTimeoutMs: server.timeoutMs }),
          ...(options.onServerStderr === undefined ? {} : { onStderr: (line: string) => options.onServerStderr?.(name, line) }),
        }),
    );
    this.tools = new ToolRegistry([...servers, ...(options.tools ?? [])], {
      ...(options.toolRetry === undefined ? {} : { retry: options.toolRetry }),
      ...(options.onToolHealth === undefined ? {} : { onHealthChange: options.onToolHealth }),
    });
    this.#runTools = limitedTools(this.tools, runLimit, 'the limit (maxResultBytes)');
    this.policy = policyFromSettings(this.settings);
    this.formats = new CallFormats({
      parsing: this.settings.parsing,
      cwd: options.cwd ?? process.cwd(),
      baseUrlOf: (model) => {
        const provider = this.settings.providers[providerOf(model)];
        return provider === undefined ? undefined : endpointOf(provider);
      },
      warn: options.onWarning ?? ((message) => process.emitWarning(message)),
    });
    this.#evidence = this.settings.routerEvalResults === undefined ? undefined : new RouterEvidenceFile(resolve(options.cwd ?? process.cwd(), this.settings.routerEvalResults));
    this.engine = new RunEngine({
      store: this.store,
      owner: options.owner ?? `${hostname()}/${process.pid}/${newId('engine')}`,
      ...(this.settings.server.leaseMs === undefined ? {} : { leaseMs: this.settings.server.leaseMs }),
      environment: (run) => this.environment(run),
      fallbackSettings: settingsFrom({ ...this.settings, strategy: DEFAULT_STRATEGY }),
    });
  }

  /** The hooks every tool call passes (ToolgateOptions.hooks). */
  get hooks(): RunHooks | undefined {
    return this.#options.hooks;
  }

  /** The adapters and process configuration runs are driven with. */
  async environment(run: Run): Promise<RunEnvironment> {
    const settings = this.settings;
    const evidence = this.#evidence?.read();
    const formats = await this.formats.forModel(run.model);
    return {
      ...(evidence === undefined ? {} : { routerEvidence: evidence }),
      ...(formats.length === 0 ? {} : { formats }),
      model: await this.model(run.model),
      tools: this.#runTools,
      policy: this.policy,
      validator: this.validator,
      hooks: this.#options.hooks,
      systemPrompt: settings.systemPrompt,
      redact: settings.redact,
      toolTimeoutMs: settings.toolTimeoutMs,
    };
  }

  /** The tools runs can use now (of every source that is up); rejects only when no source at all is up. */
  listTools(): Promise<ToolSpec[]> {
    return this.tools.listTools();
  }

  /**
   * The tools a tenant may use (denied ones hidden), each with its read/write
   * classification; tools of a server that is down are kept, `available: false`.
   */
  async listClassifiedTools(tenantId?: string): Promise<ClassifiedTool[]> {
    const known = await this.tools.knownTools();
    return known
      .filter(({ spec }) => isToolAllowed(this.policy, tenantId, spec).allowed)
      .map(({ spec, available }) => {
        const resolved = resolveToolPolicy(this.policy, spec, spec.name);
        return {
          ...spec,
          effect: resolved.effect,
          effectSource: resolved.effectSource,
          approval: resolved.approval,
          injected: Object.keys(resolved.inject),
          untrusted: resolved.untrusted,
          available,
        };
      });
  }

  /**
   * Starts every tool source not started yet, in parallel, waiting at most
   * `timeoutMs`; returns each one's state. Sources that are down are retried
   * in the background (see `toolRetry`) while runs use the others.
   */
  connectTools(options: { timeoutMs: number }): Promise<ToolSourceHealth[]> {
    return this.tools.connect(options);
  }

  /** Each tool source's state: up, connecting, or down with the cause. */
  toolHealth(): ToolSourceHealth[] {
    return this.tools.health();
  }

  /**
   * Whether an API client (of this tenant) may choose a model: the configured
   * default, or what `models:` lists, narrowed by `tenants.<id>.models` (or
   * `tenants."*".models`). Library and CLI callers are the operator and choose freely.
   */
  modelAccess(model: string, tenantId?: string): ModelDecision {
    const { rule } = tenantRuleFor(this.settings.tenants, tenantId);
    return isModelAllowed(model, { defaultModel: this.settings.model, models: this.settings.models, tenantModels: rule?.models });
  }

  /** What an API client of this tenant may choose: the default model and the allowed models or patterns (as in modelAccess). */
  modelChoices(tenantId?: string): { default?: string; models: string[] } {
    const defaultModel = this.settings.model;
    const { choices } = this.modelAccess(defaultModel ?? '', tenantId);
    return defaultModel === undefined ? { models: choices } : { default: defaultModel, models: choices };
  }

  /** The adapter for a model id (cached per id). */
  model(id?: string): Promise<ModelAdapter> {
    if (this.#ownModel !== undefined && (id === undefined || id === this.#ownModel.id)) return Promise.resolve(this.#ownModel);
    const modelId = id ?? this.settings.model;
    if (modelId === undefined) {
      return Promise.reject(
        new ToolgateError('usage', 'no model given: pass --model provider:model (e.g. openai:gpt-4o-mini) or set `model:` in toolgate.yaml'),
      );
    }
    let adapter = this.#models.get(modelId);
    if (adapter === undefined) {
      adapter = createModel({ model: modelId, providers: this.settings.providers, ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }) });
      adapter.catch(() => this.#models.delete(modelId));
      this.#models.set(modelId, adapter);
    }
    return adapter;
  }

  /** Creates a run and drives it to its end. Resolves with the final run; model and tool failures end the run, they do not reject. */
  async run(request: RunRequest): Promise<Run> {
    // Created and claimed in one write: this process drives it at once.
    const { run, lease } = await this.engine.startClaimed(await this.newRun(request));
    return this.#drive(
      run.id,
      {
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(request.onEvent === undefined ? {} : { onEvent: request.onEvent }),
      },
      lease === undefined ? undefined : { lease, run },
    );
  }

  /** Creates a run (queued) without driving it: the runs API schedules it. */
  start(init: NewRun & { settings: RunSettings }, idempotency?: IdempotencyRequest): Promise<{ run: Run; created: boolean }> {
    return this.engine.start(init, idempotency);
  }

  /**
   * What the store needs to create a run for this request, its settings
   * included (request values over the configuration). Resolving the model and
   * the strategy here makes a bad one the caller's error, found before any run exists.
   */
  async newRun(request: Omit<RunRequest, 'signal' | 'onEvent'>): Promise<NewRun & { settings: RunSettings }> {
    // JavaScript callers: a bare string, or no input, would otherwise start a run with nothing to answer.
    if (typeof request !== 'object' || request === null || typeof (request as { input?: unknown }).input !== 'string') {
      throw new ToolgateError('usage', `a run takes an object with a string input, e.g. toolgate.run({ input: "What is the price for DE-LU?" }); got ${describeRequest(request)}`);
    }
    const strategy = strategyFor(request.strategy ?? this.settings.strategy).name;
    const model = await this.model(request.model);
    const { rule } = tenantRuleFor(this.settings.tenants, request.tenantId);
    const guard = { ...this.settings.guard, ...rule?.guard };
    const price = priceFor({ prices: this.settings.prices, model: model.id, cwd: this.#options.cwd ?? process.cwd() });
    const traceparent = checkTraceparent(request.traceparent) ?? activeTraceparent();
    const settings: RunSettings = settingsFrom({
      ...this.settings,
      ...(traceparent === undefined ? {} : { traceparent }),
      strategy,
      guard,
      plan: this.settings.plan,
      todo: { ...this.settings.todo, ...(request.todo === undefined ? {} : { enabled: request.todo }) },
      ...(price === undefined ? {} : { price }),
      ...(request.maxSteps === undefined ? {} : { maxSteps: request.maxSteps }),
      ...(request.toolMode === undefined ? {} : { toolMode: request.toolMode }),
    });
    return {
      input: request.input,
      model: model.id,
      settings,
      ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
      ...(request.tenantId === undefined ? {} : { tenantId: request.tenantId }),
      ...(request.userId === undefined ? {} : { userId: request.userId }),
      ...(request.dryRun === true ? { dryRun: true } : {}),
      ...(request.context === undefined ? {} : { context: request.context }),
      ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
    };
  }

  /**
   * Drives a stored run from where its log stands: a new run, one resumed after
   * an approval, or one recovered after a restart. Resolves when it ends or
   * waits for a person (or at once, as it stands, when another process drives it).
   */
  drive(runId: string, options: DriveOptions = {}): Promise<Run> {
    return this.#drive(runId, options, undefined);
  }

  /** drive, with the lease and the run when the caller just created and claimed it. */
  async #drive(runId: string, options: DriveOptions, claimed: { lease: RunLease; run: Run } | undefined): Promise<Run> {
    const onEvent = options.onEvent;
    const unsubscribe = onEvent === undefined ? undefined : this.store.subscribe(runId, (events) => events.forEach((e) => onEvent(e)));
    try {
      return await this.engine.drive(runId, { signal: options.signal, stopSignal: options.stopSignal, ...claimed });
    } finally {
      unsubscribe?.();
    }
  }

  /** Records an approval decision or a message for a run (see submitInput), then drives it on. */
  async submitInput(runId: string, input: RunInput, options: DriveOptions = {}): Promise<Run> {
    const onEvent = options.onEvent;
    // Subscribe first, so the input_received event reaches the listener too.
    const unsubscribe = onEvent === undefined ? undefined : this.store.subscribe(runId, (events) => events.forEach((e) => onEvent(e)));
    try {
      await this.engine.input(runId, input);
      const { onEvent: _ignored, ...rest } = options;
      return await this.drive(runId, rest);
    } finally {
      unsubscribe?.();
    }
  }

  /** Cancels a run wherever it is driven (see RunEngine.cancel). */
  cancel(runId: string, reason = 'cancelled', userId?: string): Promise<Run> {
    return this.engine.cancel(runId, { reason, ...(userId === undefined ? {} : { userId }) });
  }

  async close(): Promise<void> {
    await this.tools.close();
    await this.store.close();
  }
}

/** Settings with nothing configured: the defaults, no tool servers, no model. */
function defaultSettings(): Settings {
  return resolveSettings({}, {}, {});
}

function describeRequest(request: unknown): string {
  if (typeof request === 'string') return 'a string (pass it as { input: … })';
  if (typeof request !== 'object' || request === null) return String(request);
  const input = (request as { input?: unknown }).input;
  return input === undefined ? 'an object without input' : `input of type ${Array.isArray(input) ? 'array' : typeof input}`;
}
