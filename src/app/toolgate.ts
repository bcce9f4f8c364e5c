import { ToolgateError, type ModelAdapter, type Run, type RunEvent, type RunStore, type ToolSpec } from '../core/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { runAgent } from '../orchestrator/run-agent.ts';
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
}

export interface RunRequest {
  input: string;
  /** "provider:model"; defaults to the configured model. */
  model?: string;
  maxSteps?: number;
  threadId?: string;
  tenantId?: string;
  userId?: string;
  signal?: AbortSignal;
  /** Called with every event of the run, in order, from the first one. */
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
  readonly #options: ToolgateOptions;
  readonly #models = new Map<string, Promise<ModelAdapter>>();

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
  }

  listTools(): Promise<ToolSpec[]> {
    return this.tools.listTools();
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
    const model = await this.model(request.model);
    const run = await this.store.createRun({
      input: request.input,
      model: model.id,
      ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
      ...(request.tenantId === undefined ? {} : { tenantId: request.tenantId }),
      ...(request.userId === undefined ? {} : { userId: request.userId }),
    });
    const onEvent = request.onEvent;
    const unsubscribe = onEvent === undefined ? undefined : this.store.subscribe(run.id, (events) => events.forEach((e) => onEvent(e)));
    try {
      return await runAgent({
        runId: run.id,
        store: this.store,
        model,
        tools: this.tools,
        maxSteps: request.maxSteps ?? this.settings.maxSteps,
        stream: this.settings.stream,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
        ...(this.settings.systemPrompt === undefined ? {} : { systemPrompt: this.settings.systemPrompt }),
        ...(this.settings.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: this.settings.toolTimeoutMs }),
      });
    } finally {
      unsubscribe?.();
    }
  }

  async close(): Promise<void> {
    await this.tools.close();
    await this.store.close();
  }
}
