import {
  ToolgateError,
  toolError,
  type CallToolRequest,
  type PassthroughSource,
  type ToolListing,
  type ToolResult,
  type ToolSource,
  type ToolSourceHealth,
  type ToolSpec,
  type UnavailableToolSource,
} from '../core/index.ts';
import { nameTools, type NamedTool } from './registry-names.ts';
import { SourceSlot, type RetryOptions } from './source-slot.ts';
import { PassthroughRegistry } from './passthrough-registry.ts';

export { sanitizeToolName } from './registry-names.ts';
export { SERVER_META_KEY } from './passthrough-registry.ts';
export { DEFAULT_RETRY_INITIAL_DELAY_MS, DEFAULT_RETRY_MAX_DELAY_MS, type RetryOptions } from './source-slot.ts';

export interface ToolRegistryOptions {
  /**
   * Sources that are down are tried again in the background, the wait doubling
   * from `initialDelayMs` up to `maxDelayMs` (default on). `false`: a source
   * that failed stays down until `refresh()`.
   */
  retry?: RetryOptions | false;
  /** Told when a source changes state: down (with the cause), back up. */
  onHealthChange?: (health: ToolSourceHealth) => void;
}

interface Named {
  /** Tools of sources that are up, by model-visible name. */
  available: Map<string, NamedTool>;
  /** Last known tools of sources that are down, by model-visible name. */
  missing: Map<string, SourceSlot>;
  /** Every named tool's spec. */
  specs: Map<string, ToolSpec>;
}

/**
 * Several ToolSources behind one name space, each failing on its own: a
 * source that cannot be listed is reported (health, `listing().unavailable`)
 * and retried with backoff while the others serve. Names exposed to models
 * satisfy TOOL_NAME_PATTERN; two sources offering one name are both prefixed.
 */
export class ToolRegistry implements ToolSource {
  readonly name = 'registry';
  /** The resources and prompts of the sources that are up, as one server's (see PassthroughRegistry). */
  readonly passthrough: PassthroughSource;
  readonly #slots: readonly SourceSlot[];
  #named: Named | undefined;

  constructor(sources: readonly ToolSource[], options: ToolRegistryOptions = {}) {
    const retry = options.retry ?? {};
    this.#slots = sources.map(
      (source) =>
        new SourceSlot(source, {
          retry,
          onChange: (slot, previous) => {
            this.#named = undefined;
            if (previous !== slot.state && !(previous === 'new' && slot.state === 'connecting'))
              options.onHealthChange?.(slot.health());
          },
        }),
    );
    this.passthrough = new PassthroughRegistry({
      members: async (signal) => {
        await this.#settle(signal);
        return this.#slots.map((slot) => ({ source: slot.source, up: slot.state === 'up' }));
      },
      sources,
    });
  }

  get sources(): readonly ToolSource[] {
    return this.#slots.map((s) => s.source);
  }

  /**
   * Lists every source not yet listed, in parallel, waiting at most
   * `timeoutMs`: a source still starting then is reported down (and keeps
   * trying; its answer still counts). For start-up: `serve` reports each server's state.
   */
  async connect(options: { timeoutMs: number }): Promise<ToolSourceHealth[]> {
    const attempts = Promise.all(this.#slots.filter((s) => s.awaited).map((s) => s.attempt()));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, options.timeoutMs);
    });
    try {
      await Promise.race([attempts, timedOut]);
    } finally {
      clearTimeout(timer);
    }
    for (const slot of this.#slots) slot.markSlow(`no answer within ${options.timeoutMs} ms (still trying)`);
    return this.health();
  }

  /** Each source's state, in configuration order. */
  health(): ToolSourceHealth[] {
    return this.#slots.map((s) => s.health());
  }

  /** The tools that could be listed and the sources that could not. Never throws for a source that is down. */
  async listing(options: { signal?: AbortSignal } = {}): Promise<ToolListing> {
    await this.#settle(options.signal);
    const named = this.#names();
    const unavailable: UnavailableToolSource[] = this.#slots
      .filter((s) => s.state !== 'up')
      .map((slot) => ({
        server: slot.source.name,
        reason: slot.error ?? 'not reachable yet',
        tools: [...named.missing].filter(([, owner]) => owner === slot).map(([name]) => name),
      }));
    return { tools: [...named.available.values()].map((e) => e.spec), unavailable };
  }

  /**
   * Every tool known — of sources that are up, and the last known ones of sources that are down — with whether it can
   * be called now.
   */
  async knownTools(options: { signal?: AbortSignal } = {}): Promise<{ spec: ToolSpec; available: boolean }[]> {
    await this.#settle(options.signal);
    const named = this.#names();
    return [
      ...[...named.available.values()].map((e) => ({ spec: e.spec, available: true })),
      ...[...named.missing.keys()].flatMap((name) => {
        const spec = named.specs.get(name);
        return spec === undefined ? [] : [{ spec, available: false }];
      }),
    ];
  }

  /**
   * The tools of every source that is up. Rejects (`tool_unavailable`, with
   * each cause) only when there are sources and none of them is up: a run
   * would have no tools at all.
   */
  async listTools(options: { signal?: AbortSignal } = {}): Promise<ToolSpec[]> {
    const { tools, unavailable } = await this.listing(options);
    if (this.#slots.length > 0 && unavailable.length === this.#slots.length) {
      const reasons = unavailable.map((u) => u.reason);
      throw new ToolgateError(
        'tool_unavailable',
        reasons.length === 1 ? (reasons[0] ?? '') : `no tool server could be reached: ${reasons.join('; ')}`,
      );
    }
    return tools;
  }

  /** The tool a model-visible name stands for, if its source is up. */
  async getTool(name: string): Promise<ToolSpec | undefined> {
    await this.#settle(undefined);
    return this.#names().available.get(name)?.spec;
  }

  /** Asks every source to list again on the next listing (a source that is down is tried at once). */
  refresh(): void {
    for (const slot of this.#slots) slot.stale = true;
    this.#named = undefined;
  }

  async callTool(request: CallToolRequest): Promise<ToolResult> {
    await this.#settle(undefined);
    let named = this.#names();
    const wasDown = named.missing.get(request.name);
    // A call for a source that is down tries it once more now (joining a retry in flight) rather than wait for the next
    // one.
    if (wasDown !== undefined) {
      await wasDown.attempt();
      named = this.#names();
    }
    const entry = named.available.get(request.name);
    if (entry !== undefined) {
      const result = await entry.source.callTool({ ...request, name: entry.spec.origin.tool });
      // The source could not be reached at all (not a tool's own failure): its server is down.
      if (result.error?.code === 'tool_unavailable' && result.notSent === true)
        this.#slots.find((s) => s.source === entry.source)?.reportUnreachable(result.error.message);
      return result;
    }
    const down = named.missing.get(request.name);
    if (down !== undefined) {
      const result = toolError(
        'tool_unavailable',
        `"${request.name}" is on "${down.source.name}", which is down: ${down.error ?? 'not reachable'}`,
      );
      return { ...result, notSent: true };
    }
    return toolError('tool_not_found', `there is no tool named "${request.name}"`);
  }

  async close(): Promise<void> {
    for (const slot of this.#slots) slot.close();
    await Promise.allSettled(this.#slots.map((s) => s.source.close()));
  }

  async #settle(signal: AbortSignal | undefined): Promise<void> {
    const waiting = this.#slots.filter((s) => s.awaited);
    if (waiting.length === 0) return;
    const attempts = Promise.all(waiting.map((s) => s.attempt()));
    if (signal === undefined) {
      await attempts;
      return;
    }
    signal.throwIfAborted();
    // A run that is cancelled stops waiting; the shared attempt goes on for the others.
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      void attempts.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  #names(): Named {
    if (this.#named !== undefined) return this.#named;
    const known = this.#slots.filter((s) => s.tools !== undefined);
    const all = nameTools(known.map((slot) => ({ source: slot.source, tools: slot.tools ?? [] })));
    const available = new Map<string, NamedTool>();
    const missing = new Map<string, SourceSlot>();
    const specs = new Map<string, ToolSpec>();
    const slotOf = new Map(known.map((slot) => [slot.source, slot]));
    for (const [name, entry] of all) {
      const slot = slotOf.get(entry.source);
      specs.set(name, entry.spec);
      if (slot?.state === 'up') available.set(name, entry);
      else if (slot !== undefined) missing.set(name, slot);
    }
    this.#named = { available, missing, specs };
    return this.#named;
  }
}
