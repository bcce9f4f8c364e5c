import type { JsonObject } from '../json.ts';
import type { ToolResult, ToolSpec } from '../tools.ts';

export interface CallToolRequest {
  /** The tool's name as this source lists it. */
  name: string;
  arguments: JsonObject;
  signal?: AbortSignal;
  /** Give up after this long; the result is then `tool_timeout`. */
  timeoutMs?: number;
  /** Request metadata passed to the server (MCP `_meta`), e.g. the idempotency key. */
  meta?: JsonObject;
  /** Which run and call this is, and the values injected arguments are made of (in-process tools receive them). */
  invocation?: ToolInvocation;
  /** Told of the server's progress notifications for this call (MCP `notifications/progress` params). */
  onProgress?: (progress: JsonObject) => void;
}

/** The run a tool call belongs to, as a tool may need it (never shown to the model). */
export interface ToolInvocation {
  runId: string;
  /** The call's id in the run's log (`tool_call.toolCallId`). */
  toolCallId: string;
  tenantId?: string;
  userId?: string;
  /** The run's context (`{{context.*}}` values), as the application gave it. */
  context?: JsonObject;
}

/**
 * Something that offers tools: an MCP server, toolgate's built-ins, or a
 * registry combining several. `callTool` never throws for a tool's own failure:
 * errors, timeouts and crashes come back as a ToolResult with `ok: false`.
 */
export interface ToolSource {
  readonly name: string;
  listTools(options?: { signal?: AbortSignal }): Promise<ToolSpec[]>;
  callTool(request: CallToolRequest): Promise<ToolResult>;
  close(): Promise<void>;
  /**
   * Sources that combine others (a registry): the tools that could be listed
   * and the sources that could not, instead of one failure for all. Never
   * throws for a source that is down.
   */
  listing?(options?: { signal?: AbortSignal }): Promise<ToolListing>;
  /**
   * Sources that are MCP servers, and a registry that combines them: the
   * server's resources and prompts, passed through unchanged (gateway mode
   * serves them as its own `resources/*` and `prompts/*`). Absent on sources
   * that have neither (toolgate's built-ins).
   */
  readonly passthrough?: PassthroughSource;
}

/**
 * An upstream MCP server's resources and prompts, passed through as MCP shapes
 * (the gateway's resources/* and prompts/*). Lists hold every page. A server
 * that does not offer resources (or prompts) lists none, and reading (or
 * getting) from it rejects with `not_found`. Failures reject with a
 * ToolgateError naming the server and carrying its message: `not_found` (an
 * unknown URI or prompt), `invalid_arguments` (prompt arguments the server
 * refused), `tool_timeout`, `tool_unavailable` (the server cannot be reached),
 * `cancelled`, or `tool_error` (anything else the server reported).
 */
export interface PassthroughSource {
  /** Every resource of every page (MCP `Resource` objects as the server sent them). */
  listResources(options?: { signal?: AbortSignal }): Promise<JsonObject[]>;
  /** Every resource template of every page (MCP `ResourceTemplate` objects). */
  listResourceTemplates(options?: { signal?: AbortSignal }): Promise<JsonObject[]>;
  /**
   * MCP `ReadResourceResult` as the server sent it. `servers`: a source that
   * combines several servers asks only those it accepts (by name), as if the
   * others did not exist: a caller limited to some servers (a gateway
   * tenant's) cannot reach the others' resources through a URI nobody listed.
   */
  readResource(uri: string, options?: PassthroughRequestOptions): Promise<JsonObject>;
  /** Every prompt of every page (MCP `Prompt` objects); `name` as the gateway lists it. */
  listPrompts(options?: { signal?: AbortSignal }): Promise<JsonObject[]>;
  /** MCP `GetPromptResult`; `name` as the gateway lists it. */
  getPrompt(name: string, args?: Record<string, string>, options?: PassthroughRequestOptions): Promise<JsonObject>;
  /**
   * MCP `CompleteResult` for `completion/complete` params: routed by `ref` (a prompt by the name the gateway lists, a
   * resource template by the server that listed it); a server without completions answers no values.
   */
  complete?(request: CompletionRequest, options?: PassthroughRequestOptions): Promise<JsonObject>;
  /** `resources/subscribe` on the server that has `uri` (rejects `not_found` when none open to the caller has it). */
  subscribeResource?(uri: string, options?: PassthroughRequestOptions): Promise<{ server: string }>;
  /** `resources/unsubscribe` on the server a subscribe went to. */
  unsubscribeResource?(uri: string, server: string): Promise<void>;
  /** Whether a connected server offers resource subscriptions (known once servers are connected). */
  offersSubscribe?(): boolean;
  /** Told of every notification of the servers (list changes, resource updates, log messages); returns a stop. */
  onNotification?(listener: (notification: UpstreamNotification) => void): () => void;
}

/** MCP `completion/complete` params: which prompt or resource template, which argument, what is typed so far. */
export interface CompletionRequest {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  /** Values of the other arguments already chosen. */
  context?: { arguments?: Record<string, string> };
}

/** Options of one passthrough request. */
export interface PassthroughRequestOptions {
  signal?: AbortSignal;
  /** Only the servers the caller may use, by name (see readResource). */
  servers?: (name: string) => boolean;
  /** Told of the server's progress notifications for this request (MCP `notifications/progress` params). */
  onProgress?: (progress: JsonObject) => void;
}

/**
 * A notification an upstream server sent on its (shared) connection: `server` is its configured name; list changes
 * carry no names (the gateway lists again), `resource_updated` the URI as the server gave it, `log` the MCP
 * `notifications/message` params as the server sent them. `reconnected` is the source's own: the connection was
 * opened again after it dropped (a restarted server), and the server knows nothing of what its clients asked of the
 * last one (resource subscriptions).
 */
export type UpstreamNotification =
  | { kind: 'tools_list_changed' | 'prompts_list_changed' | 'resources_list_changed'; server: string }
  | { kind: 'resource_updated'; server: string; uri: string }
  | { kind: 'log'; server: string; params: JsonObject }
  | { kind: 'reconnected'; server: string };

/** What a combining source could list, and which of its sources are missing. */
export interface ToolListing {
  tools: ToolSpec[];
  unavailable: UnavailableToolSource[];
}

/**
 * A source that could not be listed: its name, why, and the tools it offered when last reachable (names as models see
 * them).
 */
export interface UnavailableToolSource {
  server: string;
  reason: string;
  tools: string[];
}

/** `connecting`: first attempt in flight; `up`: listed; `down`: the last attempt failed (retried with backoff). */
export type ToolSourceState = 'connecting' | 'up' | 'down';

/** One source's health, for /readyz, `toolgate tools` and logs. */
export interface ToolSourceHealth {
  name: string;
  state: ToolSourceState;
  /** Tools it offers (the last known list while it is down). */
  tools: number;
  /** Why it is down: the cause, as its source reported it. */
  error?: string;
  /** When it entered its state (ISO 8601). */
  since: string;
  /** Failed attempts in a row. */
  failures: number;
  /** When the next attempt is due, while it is down and retried in the background (ISO 8601). */
  retryAt?: string;
}
