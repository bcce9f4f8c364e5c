import {
  ProtocolError,
  ProtocolErrorCode,
  type RequestMethod,
  type RequestTypeMap,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { TRUNCATED_META_KEY, draft, isJsonObject, type JsonObject, type JsonValue } from '../core/index.ts';
import { createRedactor } from '../gate/index.ts';
import type { Gateway } from './gateway.ts';
import type { GatewaySession } from './gateway-session.ts';
import { limitPromptMessages, limitResourceContents } from './limit-result.ts';

/**
 * Methods the wrapper does not count in the rate limits: `tools/call` is
 * counted by the gate itself (with the per-tool rules), `tools/list` answers
 * from toolgate's own catalog, `ping` reaches no server.
 */
const NOT_COUNTED: ReadonlySet<string> = new Set(['tools/call', 'tools/list', 'ping']);
/** A text longer than this is not parsed to be redacted as JSON (it is cut to maxResultBytes anyway). */
const MAX_JSON_TEXT_CHARS = 4 * 1024 * 1024;

export type GatedHandler<M extends RequestMethod> = (
  request: RequestTypeMap[M],
  ctx: ServerContext,
) => Promise<unknown>;

/**
 * Wraps a request handler of the gateway's MCP server so that what it forwards
 * passes the gate like a tool result: `gated(method, handler)`.
 */
export type Gated = <M extends RequestMethod>(
  method: M,
  handler: GatedHandler<M>,
) => (request: RequestTypeMap[M], ctx: ServerContext) => Promise<never>;

/**
 * The gate on every forwarded method (docs/gateway.md, "What is gated on every
 * method"): the request takes one call from the tenant's rate limit (refused
 * with an MCP error naming the limit and when to retry), and its result has
 * the values under the `redact:` keys hidden and is cut to
 * `gateway.maxResultBytes` (resources, prompts, completions).
 */
export function createGated(options: { gateway: Gateway; session: () => Promise<GatewaySession> }): Gated {
  const { gateway } = options;
  const patterns = gateway.options.environment.redact;
  // Only keys the operator listed: the default list (made for arguments in events) would hide fields such as
  // `max_tokens` in data a client asked for.
  const redact = patterns === undefined ? undefined : createRedactor(patterns);
  const limit = gateway.options.maxResultBytes;
  return (method, handler) => async (request, ctx) => {
    const limiter = gateway.options.rateLimiter;
    if (limiter !== undefined && !NOT_COUNTED.has(method)) {
      const session = await options.session();
      const refused = await limiter.take(session.identity);
      if (refused !== undefined) {
        const reason = `${method} refused: ${refused}`;
        gateway.recordInSession(session, [draft('request_refused', { method, code: 'rate_limited', reason })]);
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, reason, { limit: 'gateway.rateLimits' });
      }
    }
    const result = await handler(request, ctx);
    if (!isJsonObject(result)) return result as never;
    const redacted = redact === undefined ? result : redactResult(method, result, redact);
    return cutResult(method, redacted, { limit, params: request.params }) as never;
  };
}

/** The result's payload with the configured keys hidden; MCP's own structure (types, roles, URIs) is left as it is. */
export function redactResult(method: string, result: JsonObject, redact: (value: JsonValue) => JsonValue): JsonObject {
  switch (method) {
    case 'tools/call': {
      const out = { ...result };
      if (Array.isArray(result['content'])) out['content'] = result['content'].map((b) => redactBlock(b, redact));
      if (isJsonObject(result['structuredContent'])) out['structuredContent'] = redact(result['structuredContent']);
      return out;
    }
    case 'resources/read':
      return Array.isArray(result['contents'])
        ? { ...result, contents: result['contents'].map((c) => redactBlock(c, redact)) }
        : result;
    case 'prompts/get':
      return Array.isArray(result['messages'])
        ? {
            ...result,
            messages: result['messages'].map((m) =>
              isJsonObject(m) ? { ...m, content: redactBlock(m['content'] ?? null, redact) } : m,
            ),
          }
        : result;
    case 'completion/complete': {
      const completion = result['completion'];
      if (!isJsonObject(completion) || !Array.isArray(completion['values'])) return result;
      const values = completion['values'].map((v) => (typeof v === 'string' ? redactJsonText(v, redact) : v));
      return { ...result, completion: { ...completion, values } };
    }
    default:
      return result;
  }
}

/** A content block (or resource contents): its text when it is JSON, an embedded resource's text likewise. */
function redactBlock(block: JsonValue, redact: (value: JsonValue) => JsonValue): JsonValue {
  if (!isJsonObject(block)) return block;
  const out = { ...block };
  if (typeof block['text'] === 'string') out['text'] = redactJsonText(block['text'], redact);
  if (isJsonObject(block['resource'])) out['resource'] = redactBlock(block['resource'], redact);
  return out;
}

/**
 * A text that parses as a JSON object or array comes back with the configured keys hidden (in the same layout: one
 * line, or indented by two); any other text is left as it is: a key in prose cannot be told from words.
 */
export function redactJsonText(text: string, redact: (value: JsonValue) => JsonValue): string {
  const start = text.trimStart()[0];
  if ((start !== '{' && start !== '[') || text.length > MAX_JSON_TEXT_CHARS) return text;
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const redacted = redact(parsed);
  const indent = text.includes('\n') ? 2 : undefined;
  const again = JSON.stringify(redacted, null, indent);
  // Nothing hidden: the upstream's text is handed on byte for byte.
  return again === JSON.stringify(parsed, null, indent) ? text : again;
}

/** Resources, prompts and completions cut to `limit` bytes like a tool result (tool results are cut where run). */
function cutResult(method: string, result: JsonObject, at: { limit: number; params: unknown }): JsonObject {
  const params = isJsonObject(at.params) ? at.params : {};
  if (method === 'resources/read')
    return limitResourceContents(result, at.limit, typeof params['uri'] === 'string' ? params['uri'] : '');
  if (method === 'prompts/get')
    return limitPromptMessages(result, at.limit, typeof params['name'] === 'string' ? params['name'] : '');
  if (method === 'completion/complete') return limitCompletion(result, at.limit);
  return result;
}

/** Completion values kept while they fit in `limit` bytes; the rest are dropped and `hasMore` says so. */
function limitCompletion(result: JsonObject, limit: number): JsonObject {
  const completion = result['completion'];
  if (!isJsonObject(completion) || !Array.isArray(completion['values'])) return result;
  const bytes = new TextEncoder().encode(JSON.stringify(completion['values'])).length;
  if (bytes <= limit) return result;
  const values: JsonValue[] = [];
  let room = limit;
  for (const value of completion['values']) {
    const size = new TextEncoder().encode(JSON.stringify(value)).length + 1;
    if (size > room) break;
    values.push(value);
    room -= size;
  }
  const meta = isJsonObject(result['_meta']) ? result['_meta'] : {};
  return {
    ...result,
    completion: { ...completion, values, hasMore: true },
    _meta: { ...meta, [TRUNCATED_META_KEY]: { bytes, limit } },
  };
}
