import type { ErrorCode } from './errors.ts';
import type { JsonObject, JsonSchema, JsonValue } from './json.ts';

/**
 * MCP tool annotations (hints from the server; see the MCP spec). They are
 * hints, not guarantees: the gate lets configuration override them.
 */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Where a tool comes from: an MCP server (by its configured name), the application's own code, or toolgate itself. */
export interface ToolOrigin {
  /** `client`: a tool the caller runs itself (a request's client tools); never executed by toolgate. */
  kind: 'mcp' | 'local' | 'builtin' | 'client';
  /**
   * Configured server name (e.g. "power-exchange"); the source's name for in-process tools; "toolgate" for built-ins.
   */
  server: string;
  /** The tool's own name on that server, before any prefixing. */
  tool: string;
}

/** A tool as toolgate knows it. `name` is the name the model sees and calls. */
export interface ToolSpec {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  origin: ToolOrigin;
  /** The call timeout its source sets (a server's `timeoutMs`, a tool defined with one); a policy rule's wins. */
  timeoutMs?: number;
}

/** Tool names every model API accepts (OpenAI's rule, the strictest common one). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** A tool call as the model sent it: `arguments` is the raw string, untouched. */
export interface RawToolCall {
  id: string;
  name: string;
  arguments: string;
  /**
   * The id the model gave the call, when toolgate assigned its own `id`
   * (models repeat ids; some APIs require their own id format on the wire).
   */
  providerId?: string;
}

/** A tool call after parsing: arguments are a JSON object. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: JsonObject;
}

/** Why a call's arguments could not be read, as the parser says it: the message and the character it failed at. */
export interface ArgumentsError {
  message: string;
  position: number;
}

/**
 * A tool call as it is handed on from where the model's turn is parsed (or
 * where a call comes in already parsed, as a gateway client's): its arguments
 * read once into `input`, or — when they cannot be read — the raw string and
 * why. Nothing downstream parses or serialises arguments again.
 */
export type ParsedToolCall =
  | { id: string; name: string; input: JsonObject; providerId?: string }
  | { id: string; name: string; raw: string; error: ArgumentsError; providerId?: string };

/** Content returned by a tool, in MCP's block shapes (text first-class, others kept as-is). */
export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name?: string; mimeType?: string }
  | { type: 'resource'; resource: JsonObject };

/** Error codes a tool result may carry. */
export type ToolErrorCode = Extract<
  ErrorCode,
  | 'tool_error'
  | 'tool_timeout'
  | 'tool_unavailable'
  | 'tool_not_found'
  | 'invalid_arguments'
  | 'denied'
  | 'rejected'
  | 'cancelled'
  | 'outcome_unknown'
  | 'skipped'
  | 'rate_limited'
>;

/**
 * The standard tool-result shape (seed 000's ToolResponse): whatever happened,
 * a call ends in one of these, and the model sees it. `ok: false` always has `error`.
 */
export interface ToolResult {
  ok: boolean;
  content: ToolContent[];
  structuredContent?: JsonValue;
  error?: { code: ToolErrorCode; message: string };
  /**
   * The request never reached the tool (it could not be started or connected
   * to, or the call was cancelled before it was sent): it certainly did not
   * happen. A failed write without this flag may have happened.
   */
  notSent?: boolean;
  /**
   * The result was larger than a size limit (`maxResultBytes`, `gateway.maxResultBytes`) and was cut; `bytes` is its
   * size before.
   */
  truncated?: { bytes: number; limit: number };
}

/** The `_meta` key of a resource read that was cut: `{ bytes, limit }`, as `ToolResult.truncated`. */
export const TRUNCATED_META_KEY = 'toolgate/truncated';

export function toolError(code: ToolErrorCode, message: string): ToolResult {
  return { ok: false, content: [{ type: 'text', text: message }], error: { code, message } };
}

/**
 * The text the model receives for a tool result. Structured content wins when
 * there is no text (MCP servers may send either); errors are prefixed so that
 * small models notice them.
 */
export function renderToolResult(result: ToolResult): string {
  const parts: string[] = [];
  for (const block of result.content) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image':
      case 'audio':
        parts.push(`[${block.type} ${block.mimeType}, ${block.data.length} base64 chars]`);
        break;
      case 'resource_link':
        parts.push(`[resource ${block.uri}]`);
        break;
      case 'resource':
        parts.push(JSON.stringify(block.resource));
        break;
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const body = parts.join('\n');
  if (result.ok) return body;
  const code = result.error?.code ?? 'tool_error';
  const message = result.error?.message ?? body;
  return body === '' || body === message ? `Error (${code}): ${message}` : `Error (${code}): ${message}\n${body}`;
}
