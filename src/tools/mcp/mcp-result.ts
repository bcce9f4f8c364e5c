import type { McpClientModule } from './mcp-sdk.ts';
import { describeRefusal, type RefusedAnswer } from './refused-answer.ts';
import { describeStartError } from './start-error.ts';
import {
  describeError,
  isJsonObject,
  toolError,
  type JsonValue,
  type ToolContent,
  type ToolResult,
} from '../../core/index.ts';
import { errorField } from './error-fields.ts';

/** Maps an MCP `tools/call` result to toolgate's standard tool result. */
export function fromMcpResult(result: {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}): ToolResult {
  const content = Array.isArray(result.content) ? result.content.flatMap(toContent) : [];
  // Parsed from the server's JSON message (the SDK checked it is an object), or a local tool's own CallToolResult,
  // written as JSON when recorded.
  const structured = result.structuredContent as JsonValue | undefined;
  const base: ToolResult = { ok: result.isError !== true, content };
  if (structured !== undefined) base.structuredContent = structured;
  if (result.isError === true) {
    const text = content
      .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
      .map((c) => c.text)
      .join('\n')
      .trim();
    base.error = { code: 'tool_error', message: text === '' ? 'the tool reported an error without a message' : text };
  }
  return base;
}

/**
 * The result of a call whose answer was too large to read whole: the content
 * that was read (its structured content, cut somewhere, is left out), marked
 * `truncated` with the answer's size; the runs' and the gateway's limits then
 * cut it to size and say so. A tool error keeps the start of its text.
 */
export function fromRefusedAnswer(refused: RefusedAnswer, where: { server: string; tool: string }): ToolResult {
  const read = fromMcpResult({ content: refused.partial?.['content'] });
  // The last block may be the one cut: half of an image's base64 means nothing.
  const last = read.content.at(-1);
  if (last !== undefined && (last.type === 'image' || last.type === 'audio')) read.content.pop();
  const result: ToolResult = {
    ok: refused.isError !== true,
    content: read.content,
    truncated: { bytes: refused.bytes, limit: refused.limit },
  };
  if (!result.ok) {
    const text = read.content.find((c): c is { type: 'text'; text: string } => c.type === 'text')?.text ?? '';
    const start = text.length > ERROR_TEXT_CHARS ? `${text.slice(0, ERROR_TEXT_CHARS)}…` : text;
    result.error = {
      code: 'tool_error',
      message:
        `tool "${where.tool}" on MCP server "${where.server}" reported an ` +
        `error${start === '' ? '' : `: ${start}`} (${describeRefusal(refused)})`,
    };
  }
  return result;
}

/** Characters of a cut error answer's text kept in its error message. */
const ERROR_TEXT_CHARS = 2000;

function toContent(block: unknown): ToolContent[] {
  if (!isJsonObject(block)) return [];
  switch (block['type']) {
    case 'text':
      return typeof block['text'] === 'string' ? [{ type: 'text', text: block['text'] }] : [];
    case 'image':
    case 'audio':
      return typeof block['data'] === 'string' && typeof block['mimeType'] === 'string'
        ? [{ type: block['type'], data: block['data'], mimeType: block['mimeType'] }]
        : [];
    case 'resource_link': {
      if (typeof block['uri'] !== 'string') return [];
      const link: ToolContent = { type: 'resource_link', uri: block['uri'] };
      if (typeof block['name'] === 'string') link.name = block['name'];
      if (typeof block['mimeType'] === 'string') link.mimeType = block['mimeType'];
      return [link];
    }
    case 'resource':
      return isJsonObject(block['resource']) ? [{ type: 'resource', resource: block['resource'] }] : [];
    default:
      // Unknown block types from newer servers are kept as text so the model still sees them.
      return [{ type: 'text', text: JSON.stringify(block) }];
  }
}

const UNKNOWN_TOOL = /\btool \S+ not found\b|\bunknown tool\b/i;

export interface CallFailureContext {
  server: string;
  tool: string;
  timeoutMs: number;
  /** What the transport knows about why the connection ended (exit code, stderr tail). */
  exitInfo?: string;
}

/** Classifies an exception thrown by the MCP client during a call. */
export function fromMcpCallError(
  error: unknown,
  ctx: CallFailureContext,
  sdk: McpClientModule,
): { result: ToolResult; connectionLost: boolean } {
  const { SdkError, SdkErrorCode, ProtocolError, ProtocolErrorCode } = sdk;
  const where = `tool "${ctx.tool}" on MCP server "${ctx.server}"`;
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return {
        result: toolError(
          'tool_timeout',
          `${where} did not answer within ${ctx.timeoutMs} ms; the call was ` +
            `abandoned (raise timeoutMs for this tool if it is legitimately slow)`,
        ),
        connectionLost: false,
      };
    }
    if (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.NotConnected ||
      error.code === SdkErrorCode.SendFailed
    ) {
      const why = ctx.exitInfo === undefined ? '' : ` (${ctx.exitInfo})`;
      return {
        result: toolError(
          'tool_unavailable',
          `${where} failed: the server connection was lost${why}; it will be restarted on the next call`,
        ),
        connectionLost: true,
      };
    }
  }
  if (error instanceof ProtocolError) {
    // The SDK's McpServer refuses an unknown tool as InvalidParams "Tool <name> not found", not MethodNotFound.
    if (error.code === ProtocolErrorCode.InvalidParams && UNKNOWN_TOOL.test(error.message)) {
      return {
        result: toolError('tool_not_found', `${where} does not exist: ${error.message}`),
        connectionLost: false,
      };
    }
    if (error.code === ProtocolErrorCode.InvalidParams) {
      return {
        result: toolError('invalid_arguments', `${where} rejected the arguments: ${error.message}`),
        connectionLost: false,
      };
    }
    if (error.code === ProtocolErrorCode.MethodNotFound) {
      return {
        result: toolError('tool_not_found', `${where} does not exist: ${error.message}`),
        connectionLost: false,
      };
    }
    return { result: toolError('tool_error', `${where} failed: ${error.message}`), connectionLost: false };
  }
  const message = describeError(error);
  if (isConnectionError(error)) {
    // The network cause (ECONNREFUSED 127.0.0.1:3000), not undici's bare "fetch failed".
    const { cause } = describeStartError({ error, stderr: [], timeoutMs: ctx.timeoutMs });
    return {
      result: toolError('tool_unavailable', `${where} is unreachable: ${cause}; it will be retried on the next call`),
      connectionLost: true,
    };
  }
  return { result: toolError('tool_error', `${where} failed: ${message}`), connectionLost: false };
}

function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = errorField(error, 'code') ?? errorField(error.cause, 'code');
  return (
    error instanceof TypeError ||
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'ENOENT' ||
    /fetch failed|socket hang up|ECONNREFUSED|closed/i.test(error.message)
  );
}
