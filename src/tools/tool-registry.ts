import {
  TOOL_NAME_PATTERN,
  toolError,
  type CallToolRequest,
  type ToolResult,
  type ToolSource,
  type ToolSpec,
} from '../core/index.ts';

const MAX_NAME_LENGTH = 64;

interface Entry {
  spec: ToolSpec;
  source: ToolSource;
}

/**
 * Several ToolSources behind one name space. Names exposed to models satisfy
 * TOOL_NAME_PATTERN; when two servers offer the same name, both are prefixed
 * with their server name (`server_tool`) so neither shadows the other.
 */
export class ToolRegistry implements ToolSource {
  readonly name = 'registry';
  readonly #sources: readonly ToolSource[];
  #entries: Map<string, Entry> | undefined;
  #loading: Promise<Map<string, Entry>> | undefined;

  constructor(sources: readonly ToolSource[]) {
    this.#sources = sources;
  }

  get sources(): readonly ToolSource[] {
    return this.#sources;
  }

  /** The tools of every source, with the names models see. Listed once, then cached (see refresh). */
  async listTools(options: { signal?: AbortSignal } = {}): Promise<ToolSpec[]> {
    const entries = await this.#load(options);
    return [...entries.values()].map((e) => e.spec);
  }

  /** The tool a model-visible name stands for, if any. */
  async getTool(name: string): Promise<ToolSpec | undefined> {
    return (await this.#load({})).get(name)?.spec;
  }

  /** Forgets the cached listing; the next listTools asks every source again. */
  refresh(): void {
    this.#entries = undefined;
    this.#loading = undefined;
  }

  async callTool(request: CallToolRequest): Promise<ToolResult> {
    const entry = (await this.#load({})).get(request.name);
    if (entry === undefined) return toolError('tool_not_found', `there is no tool named "${request.name}"`);
    return entry.source.callTool({ ...request, name: entry.spec.origin.tool });
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#sources.map((s) => s.close()));
  }

  #load(options: { signal?: AbortSignal }): Promise<Map<string, Entry>> {
    if (this.#entries !== undefined) return Promise.resolve(this.#entries);
    this.#loading ??= (async () => {
      const lists = await Promise.all(this.#sources.map(async (source) => ({ source, tools: await source.listTools(options) })));
      const entries = buildEntries(lists);
      this.#entries = entries;
      return entries;
    })().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }
}

function buildEntries(lists: { source: ToolSource; tools: ToolSpec[] }[]): Map<string, Entry> {
  const counts = new Map<string, number>();
  for (const { tools } of lists) {
    for (const tool of tools) {
      const key = sanitizeToolName(tool.name);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const entries = new Map<string, Entry>();
  for (const { source, tools } of lists) {
    for (const tool of tools) {
      const base = sanitizeToolName(tool.name);
      let name = (counts.get(base) ?? 0) > 1 ? sanitizeToolName(`${tool.origin.server}_${tool.name}`) : base;
      // Still taken (same server listed twice, or a prefix collision): number it.
      for (let n = 2; entries.has(name); n++) name = withSuffix(base, `_${n}`);
      entries.set(name, { source, spec: { ...tool, name } });
    }
  }
  return entries;
}

/** Makes any name acceptable to every model API: `[a-zA-Z0-9_-]{1,64}`. */
export function sanitizeToolName(raw: string): string {
  if (TOOL_NAME_PATTERN.test(raw)) return raw;
  const cleaned = raw.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  const name = cleaned === '' ? 'tool' : cleaned;
  return name.length <= MAX_NAME_LENGTH ? name : name.slice(0, MAX_NAME_LENGTH);
}

function withSuffix(base: string, suffix: string): string {
  return base.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
}
