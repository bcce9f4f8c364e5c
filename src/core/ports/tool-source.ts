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
}
