import { ToolgateError, type JsonObject, type ModelAdapter, type NewRun, type Run, type RunEvent, type RunInput, type RunStore, type ToolSpec } from '../core/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { isModelAllowed, isToolAllowed, resolveToolPolicy, tenantRuleFor, type ModelDecision, type Policy } from '../gate/index.ts';
import { runAgent } from '../orchestrator/run-agent.ts';
import type { RunHooks } from '../orchestrator/run-options.ts';
import { submitInput } from '../orchestrator/submit-input.ts';
import { createValidator, type Validator } from '../validation/index.ts';
import { policyFromSettings } from './policy-from-settings.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { McpToolSource } from '../tools/mcp/mcp-tool-source.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import { createModel } from './create-model.ts';

export interface ToolgateOptions {
  settings: Settings;
  /** Defaults to an in-memory store. */
  store?: RunStore;
  /** Where relative paths (scripted models) are resolved. */
  cwd?: string;
  /** Receives MCP servers' stderr lines. Default: discarded. */
  onServerStderr?: (server: string, line: string) => void;
  /** Use this model instead of resolving `settings.model` (library users, tests). */
  model?: ModelAdapter;
  /** Checks a config cannot express (see docs/policy.md). */
  hooks?: RunHooks;
}

export interface RunRequest {
  input: string;
  /** "provider:model"; defaults to the configured model. */
  model?: string;
  maxSteps?: number;
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
  maxSteps?: number;
}

/** A tool as a tenant sees it, with its classification. */
export type ClassifiedTool = ToolSpec & { effect: 'read' | 'write'; effectSource: 'config' | 'annotation' | 'default'; approval: 'required' | 'auto' | 'never' };

/**
 * toolgate assembled: MCP servers from the settings behind one registry, a
 * run store, and model adapters chosen by id. Library users and the CLI both
 * start here.
 */
export class Toolgate {
  readonly settings: Settings;
  readonly store: RunStore;
  readonly tools: ToolRegistry;
  readonly #options: ToolgateOptions;
  readonly #models = new Map<string, Promise<ModelAdapter>>();
  readonly policy: Policy;
  readonly validator: Validator = createValidator();

  constructor(options: ToolgateOptions) {
    this.#options = options;
    this.settings = options.settings;
    this.store = options.store ?? new MemoryRunStore();
    const sources = Object.entries(options.settings.servers).map(
      ([name, server]) =>
        new McpToolSource({
          name,
          server,
          ...(server.timeoutMs === undefined ? {} : { defaultTimeoutMs: server.timeoutMs }),
          ...(options.onServerStderr === undefined ? {} : { onStderr: (line: string) => options.onServerStderr?.(name, line) }),
        }),
    );
    this.tools = new ToolRegistry(sources);
    this.policy = policyFromSettings(options.settings);
  }

  listTools(): Promise<ToolSpec[]> {
    return this.tools.listTools();
  }

  /** The tools a tenant may use (denied ones hidden), each with its read/write classification. */
  async listClassifiedTools(tenantId?: string): Promise<ClassifiedTool[]> {
    const tools = await this.tools.listTools();
    return tools
      .filter((t) => isToolAllowed(this.policy, tenantId, t).allowed)
      .map((t) => {
        const resolved = resolveToolPolicy(this.policy, t, t.name);
        return { ...t, effect: resolved.effect, effectSource: resolved.effectSource, approval: resolved.approval };
      });
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

  /** The adapter for a model id (cached per id). */
  model(id?: string): Promise<ModelAdapter> {
    if (this.#options.model !== undefined && (id === undefined || id === this.#options.model.id)) return Promise.resolve(this.#options.model);
    const modelId = id ?? this.settings.model;
    if (modelId === undefined) {
      return Promise.reject(
        new ToolgateError('usage', 'no model given: pass --model provider:model (e.g. openai:gpt-4o-mini) or set `model:` in toolgate.yaml'),
      );
    }
    let adapter = this.#models.get(modelId);
    if (adapter === undefined) {
      adapter = createModel({ model: modelId, openai: this.settings.openai, ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }) });
      adapter.catch(() => this.#models.delete(modelId));
      this.#models.set(modelId, adapter);
    }
    return adapter;
  }

  /** Creates a run and drives it to its end. Resolves with the final run; model and tool failures end the run, they do not reject. */
  async run(request: RunRequest): Promise<Run> {
    const run = await this.store.createRun(await this.newRun(request));
    return this.drive(run.id, {
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      ...(request.onEvent === undefined ? {} : { onEvent: request.onEvent }),
      ...(request.maxSteps === undefined ? {} : { maxSteps: request.maxSteps }),
    });
  }

  /**
   * What the store needs to create a run for this request. Resolving the model
   * here makes a bad model the caller's error, found before any run exists.
   */
  async newRun(request: Omit<RunRequest, 'signal' | 'onEvent' | 'maxSteps'>): Promise<NewRun> {
    const model = await this.model(request.model);
    return {
      input: request.input,
      model: model.id,
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
   * waits for a person.
   */
  async drive(runId: string, options: DriveOptions = {}): Promise<Run> {
    const run = await this.store.getRun(runId);
    if (run === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
    const model = await this.model(run.model);
    const onEvent = options.onEvent;
    const unsubscribe = onEvent === undefined ? undefined : this.store.subscribe(runId, (events) => events.forEach((e) => onEvent(e)));
    try {
      return await runAgent({
        runId,
        store: this.store,
        model,
        tools: this.tools,
        maxSteps: options.maxSteps ?? this.settings.maxSteps,
        stream: this.settings.stream,
        toolMode: this.settings.toolMode,
        constrain: this.settings.constrain,
        parseRetries: this.settings.parseRetries,
        textToolCalls: this.settings.textToolCalls,
        policy: this.policy,
        validator: this.validator,
        ...(this.settings.redact === undefined ? {} : { redact: this.settings.redact }),
        ...(this.#options.hooks === undefined ? {} : { hooks: this.#options.hooks }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.stopSignal === undefined ? {} : { stopSignal: options.stopSignal }),
        ...(this.settings.systemPrompt === undefined ? {} : { systemPrompt: this.settings.systemPrompt }),
        ...(this.settings.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: this.settings.toolTimeoutMs }),
      });
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
      await submitInput(this.store, runId, input);
      const { onEvent: _ignored, ...rest } = options;
      return await this.drive(runId, rest);
    } finally {
      unsubscribe?.();
    }
  }

  async close(): Promise<void> {
    await this.tools.close();
    await this.store.close();
  }
}
