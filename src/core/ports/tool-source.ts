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
