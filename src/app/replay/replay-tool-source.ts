import {
  canonicalJson,
  type CallToolRequest,
  type JsonObject,
  type ReplayCallOutcome,
  type RunEvent,
  type ToolListing,
  type ToolResult,
  type ToolSource,
  type ToolEffect,
  type ToolSpec,
} from '../../core/index.ts';
import { createRedactor, redactArguments, resolveToolPolicy, type Policy } from '../../gate/index.ts';

export interface ReplayToolSourceOptions {
  /** The new configuration's tools: listed (listing changes nothing), called only for a read with `allowReads`. */
  tools: ToolSource;
  /** The original run's log: its tool_call and tool_result events are the answers. */
  events: readonly RunEvent[];
  /** The new configuration's policy: whether a call is a read. */
  policy: Policy;
  /** Run a call whose effect is `read` for real when no recorded result matches it. Writes never run. */
  allowReads?: boolean;
  /** Key patterns the run redacts in its events (config `redact`): recorded arguments are compared redacted. */
  redact?: readonly string[] | undefined;
}

/** The `structuredContent.replay` of a result that stands for a call a replay did not execute. */
export const WOULD_RUN = 'would_run';

/**
 * The tools of a replay: listed from the new configuration's sources, never executed. A call gets the original's
 * recorded result for the same tool with the same normalised arguments (each recorded result once, in order,
 * `recorded_result`); without one it gets a result saying it would have run and was not executed (`would_run`), or,
 * for a read with `allowReads`, the tool's real answer (`read_live`). What became of each call is kept by its id.
 */
export class ReplayToolSource implements ToolSource {
  readonly name = 'replay';
  readonly #tools: ToolSource;
  readonly #policy: Policy;
  readonly #allowReads: boolean;
  readonly #redact: (args: JsonObject) => JsonObject;
  readonly #recorded: Map<string, ToolResult[]>;
  readonly #specs = new Map<string, ToolSpec>();
  readonly #outcomes = new Map<string, ReplayCallOutcome>();

  constructor(options: ReplayToolSourceOptions) {
    this.#tools = options.tools;
    this.#policy = options.policy;
    this.#allowReads = options.allowReads === true;
    const redactor = createRedactor(options.redact);
    this.#redact = (args) => redactArguments(args, redactor);
    this.#recorded = recordedResults(options.events);
  }

  /** What became of the call with this id (the replay's toolCallId), once it was called. */
  outcomeOf(toolCallId: string): ReplayCallOutcome | undefined {
    return this.#outcomes.get(toolCallId);
  }

  async listTools(options?: { signal?: AbortSignal }): Promise<ToolSpec[]> {
    return this.#remember(await this.#tools.listTools(options));
  }

  async listing(options?: { signal?: AbortSignal }): Promise<ToolListing> {
    if (this.#tools.listing === undefined) return { tools: await this.listTools(options), unavailable: [] };
    const listing = await this.#tools.listing(options);
    return { ...listing, tools: this.#remember(listing.tools) };
  }

  async callTool(request: CallToolRequest): Promise<ToolResult> {
    const id = request.invocation?.toolCallId;
    const shown = this.#redact(request.arguments);
    const queue = this.#recorded.get(resultKey(request.name, shown));
    const recorded = queue?.shift();
    if (recorded !== undefined) return this.#outcome(id, 'recorded_result', structuredClone(recorded));
    if (this.#allowReads && this.#effectOf(request.name) === 'read')
      return this.#outcome(id, 'read_live', await this.#tools.callTool(request));
    const text =
      `REPLAY: ${request.name} would have run with ${JSON.stringify(shown)}, but it was not executed: ` +
      'a replay executes nothing, and the original run has no result for this call.';
    return this.#outcome(id, 'would_run', {
      ok: true,
      content: [{ type: 'text', text }],
      structuredContent: { replay: WOULD_RUN, tool: request.name, arguments: shown },
    });
  }

  async close(): Promise<void> {
    // The sources belong to the Toolgate they were listed from: it closes them.
  }

  #outcome(id: string | undefined, outcome: ReplayCallOutcome, result: ToolResult): ToolResult {
    if (id !== undefined) this.#outcomes.set(id, outcome);
    return result;
  }

  #remember(tools: ToolSpec[]): ToolSpec[] {
    for (const tool of tools) this.#specs.set(tool.name, tool);
    return tools;
  }

  /** A tool the listing does not know counts as a write: it never runs. */
  #effectOf(name: string): ToolEffect {
    const spec = this.#specs.get(name);
    return spec === undefined ? 'write' : resolveToolPolicy(this.#policy, spec, name).effect;
  }
}

function resultKey(name: string, args: JsonObject): string {
  return `${name}\u0000${canonicalJson(args)}`;
}

/** The original's results of calls that reached their tool, by tool and arguments (as recorded), in order. */
function recordedResults(events: readonly RunEvent[]): Map<string, ToolResult[]> {
  const calls = new Map<string, string>();
  const out = new Map<string, ToolResult[]>();
  for (const event of events) {
    if (event.type === 'tool_call') calls.set(event.data.toolCallId, resultKey(event.data.name, event.data.arguments));
    if (event.type !== 'tool_result') continue;
    const key = calls.get(event.data.toolCallId);
    if (key === undefined) continue;
    const { ok, content, structuredContent, error } = event.data;
    const result: ToolResult = {
      ok,
      content,
      ...(structuredContent === undefined ? {} : { structuredContent }),
      ...(error === undefined ? {} : { error }),
    };
    out.set(key, [...(out.get(key) ?? []), result]);
  }
  return out;
}
