import { hostname } from 'node:os';
import { resolve } from 'node:path';
import {
  DEFAULT_STRATEGY,
  newId,
  type IdempotencyRequest,
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
import { isModelAllowed, tenantRuleFor, type ModelDecision, type Policy } from '../gate/index.ts';
import { settingsFrom } from '../orchestrator/run-agent.ts';
import { RunEngine } from '../orchestrator/run-engine.ts';
import type { RunEnvironment, RunHooks } from '../orchestrator/state/run-options.ts';
import { sharedValidator, type Validator } from '../validation/index.ts';
import { policyFromSettings } from './policy-from-settings.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { gatewaySessionRuns } from '../gateway/gateway-recovery.ts';
import type { RetryOptions, ToolRegistry } from '../tools/tool-registry.ts';
import { RouterEvidenceFile } from './router-evidence.ts';
import { CallFormats } from './call-formats.ts';
import { classifyTools, type ClassifiedTool } from './classified-tools.ts';
import { ModelCache } from './model-cache.ts';
import { newRunFrom, type RunRequest } from './new-run.ts';
import { runTools } from './run-tools.ts';
import { interceptAppend } from './intercept-append.ts';
import { LiveStats } from './live-stats/live-stats.ts';
import { NO_TENANT } from './live-stats/run-facts.ts';
import { Rollouts } from './rollouts/rollouts.ts';

export type { ClassifiedTool } from './classified-tools.ts';
export type { RunRequest } from './new-run.ts';

export interface ToolgateOptions {
  /** Resolved configuration (config file, environment, flags). Default: no tool servers, no model, the defaults. */
  settings?: Settings;
  /**
   * More tool sources beside the MCP servers of the settings: in-process tools (LocalToolSource), your own ToolSource.
   */
  tools?: readonly ToolSource[];
  /** Defaults to an in-memory store. */
  store?: RunStore;
  /** Where relative paths (scripted models) are resolved. */
  cwd?: string;
  /** Receives MCP servers' stderr lines. Default: discarded. */
  onServerStderr?: (server: string, line: string) => void;
  /**
   * Use this model instead of resolving `settings.model` (library users, tests). Usage it leaves out is estimated, as
   * for every model.
   */
  model?: ModelAdapter;
  /** Checks a config cannot express (see docs/policy.md). */
  hooks?: RunHooks;
  /** This process's owner id for run leases (default: host/pid/random; unique per Toolgate). */
  owner?: string;
  /**
   * Tool servers that are down are retried in the background with backoff (default on); `false`: only when asked again.
   */
  toolRetry?: RetryOptions | false;
  /** Told when a tool server goes down (with the cause) or comes back. */
  onToolHealth?: (health: ToolSourceHealth) => void;
  /**
   * Told of what does not stop a run but should be fixed (a chat template that cannot be used). Default:
   * process.emitWarning.
   */
  onWarning?: (message: string) => void;
}

export interface DriveOptions {
  signal?: AbortSignal;
  /** Stop at the next safe point without ending the run (shutdown). */
  stopSignal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
}

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
  readonly #models: ModelCache;
  readonly #evidence: RouterEvidenceFile | undefined;
  /** The call formats each model's runs read besides the built-in lexicon (config and chat templates). */
  readonly formats: CallFormats;
  readonly policy: Policy;
  readonly validator: Validator = sharedValidator();
  /** The one owner of runs' lives in this process (see RunEngine). */
  readonly engine: RunEngine;
  /** Live outcome statistics, fed by every append of this process (docs/observability.md, "Live statistics"). */
  readonly stats: LiveStats;
  /** The config's rollouts: which new runs are treated, and their automatic rollback (docs/strategies.md). */
  readonly rollouts: Rollouts;

  constructor(options: ToolgateOptions = {}) {
    this.#options = options;
    this.settings = options.settings ?? defaultSettings();
    // First: a policy whose conditions cannot be compiled is a config error, before anything is opened.
    this.policy = policyFromSettings(this.settings);
    this.#models = new ModelCache({ own: options.model, settings: this.settings, cwd: options.cwd });
    const store = options.store ?? new MemoryRunStore();
    const windowMinutes = this.settings.stats?.windowMinutes;
    this.stats = new LiveStats({
      store,
      ...(windowMinutes === undefined ? {} : { windowMs: windowMinutes * 60_000 }),
    });
    // The engine, the run manager and gateway sessions all append through this store: the statistics see every event.
    // The store's append is looked up at each call, so one replaced later (a wrapper, a test) is still the one used.
    // Not an async wrapper: one promise more per append, not two.
    const observed = (appended: RunEvent[]): RunEvent[] => {
      this.stats.observe(appended);
      return appended;
    };
    const append: RunStore['append'] = (...args) => store.append(...args).then(observed);
    this.store = interceptAppend(store, () => append);
    // A rollout value of the wrong type is a config error now, not at the first run.
    this.rollouts = new Rollouts({
      settings: this.settings,
      store: this.store,
      ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    });
    // Every run that ends is a chance for a rollout's treated share to have failed too often.
    this.rollouts.watch(this.stats);
    const tools = runTools({
      settings: this.settings,
      sources: options.tools,
      onServerStderr: options.onServerStderr,
      toolRetry: options.toolRetry,
      onToolHealth: options.onToolHealth,
    });
    this.tools = tools.registry;
    this.#runTools = tools.forRuns;
    this.formats = new CallFormats({
      parsing: this.settings.parsing,
      cwd: options.cwd ?? process.cwd(),
      baseUrlOf: (model) => {
        const provider = this.settings.providers[providerOf(model)];
        return provider === undefined ? undefined : endpointOf(provider);
      },
      warn: options.onWarning ?? ((message) => process.emitWarning(message)),
    });
    this.#evidence =
      this.settings.routerEvalResults === undefined
        ? undefined
        : new RouterEvidenceFile(resolve(options.cwd ?? process.cwd(), this.settings.routerEvalResults));
    this.engine = new RunEngine({
      store: this.store,
      owner: options.owner ?? `${hostname()}/${process.pid}/${newId('engine')}`,
      ...(this.settings.server.leaseMs === undefined ? {} : { leaseMs: this.settings.server.leaseMs }),
      environment: (run) => this.environment(run),
      fallbackSettings: settingsFrom({ ...this.settings, strategy: DEFAULT_STRATEGY }),
      ownedElsewhere: gatewaySessionRuns,
    });
  }

  /** The hooks every tool call passes (ToolgateOptions.hooks). */
  /** Where MCP servers' stderr lines go (a gateway session's own servers' too). */
  get onServerStderr(): ((server: string, line: string) => void) | undefined {
    return this.#options.onServerStderr;
  }

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
      // The tenant's own outcomes only: the figures are recorded in its run, which its callers read.
      ...(run.settings?.router?.live === true
        ? { liveEvidence: this.stats.routerEvidence(run.tenantId ?? NO_TENANT) }
        : {}),
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
   * The tools a tenant's caller holding `roles` may use (denied ones hidden), each with its read/write
   * classification; tools of a server that is down are kept, `available: false`.
   */
  async listClassifiedTools(tenantId?: string, roles?: readonly string[]): Promise<ClassifiedTool[]> {
    return classifyTools({ known: await this.tools.knownTools(), policy: this.policy, tenantId, roles });
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
    return isModelAllowed(model, {
      defaultModel: this.settings.model,
      models: this.settings.models,
      tenantModels: rule?.models,
    });
  }

  /**
   * What an API client of this tenant may choose: the default model and the allowed models or patterns (as in
   * modelAccess).
   */
  modelChoices(tenantId?: string): { default?: string; models: string[] } {
    const defaultModel = this.settings.model;
    const { choices } = this.modelAccess(defaultModel ?? '', tenantId);
    return defaultModel === undefined ? { models: choices } : { default: defaultModel, models: choices };
  }

  /** The adapter for a model id (cached per id). */
  model(id?: string): Promise<ModelAdapter> {
    return this.#models.get(id);
  }

  /**
   * Creates a run and drives it to its end. Resolves with the final run; model and tool failures end the run, they do
   * not reject.
   */
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
  start(
    init: NewRun & { settings: RunSettings },
    idempotency?: IdempotencyRequest,
  ): Promise<{ run: Run; created: boolean }> {
    return this.engine.start(init, idempotency);
  }

  /**
   * What the store needs to create a run for this request, its settings
   * included (request values over the configuration). Resolving the model and
   * the strategy here makes a bad one the caller's error, found before any run exists.
   */
  newRun(request: Omit<RunRequest, 'signal' | 'onEvent'>): Promise<NewRun & { settings: RunSettings }> {
    return newRunFrom({
      request,
      settings: this.settings,
      cwd: this.#options.cwd ?? process.cwd(),
      model: (id) => this.model(id),
      rollouts: (context) => this.rollouts.assign(context),
    });
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
    const unsubscribe = this.#listen(runId, options.onEvent);
    try {
      return await this.engine.drive(runId, { signal: options.signal, stopSignal: options.stopSignal, ...claimed });
    } finally {
      unsubscribe?.();
    }
  }

  /** Records an approval decision or a message for a run (see submitInput), then drives it on. */
  async submitInput(runId: string, input: RunInput, options: DriveOptions = {}): Promise<Run> {
    // Subscribe first, so the input_received event reaches the listener too.
    const unsubscribe = this.#listen(runId, options.onEvent);
    try {
      await this.engine.input(runId, input);
      const { onEvent: _ignored, ...rest } = options;
      return await this.drive(runId, rest);
    } finally {
      unsubscribe?.();
    }
  }

  /** Hands every event appended to the run to `onEvent`, until the returned function is called. */
  #listen(runId: string, onEvent: ((event: RunEvent) => void) | undefined): (() => void) | undefined {
    return onEvent === undefined
      ? undefined
      : this.store.subscribe(runId, (events) => events.forEach((e) => onEvent(e)));
  }

  /** Cancels a run wherever it is driven (see RunEngine.cancel). */
  cancel(runId: string, reason = 'cancelled', userId?: string): Promise<Run> {
    return this.engine.cancel(runId, { reason, ...(userId === undefined ? {} : { userId }) });
  }

  async close(): Promise<void> {
    this.rollouts.close();
    this.stats.close();
    await this.tools.close();
    await this.store.close();
  }
}

/** Settings with nothing configured: the defaults, no tool servers, no model. */
function defaultSettings(): Settings {
  return resolveSettings({}, {}, {});
}
