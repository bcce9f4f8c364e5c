import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { ToolgateError, type PassthroughSource } from '../core/index.ts';
import { readLimited } from '../core/read-limited.ts';
import { decodeUtf8 } from '../core/utf8.ts';
import type { Gateway } from './gateway.ts';
import { isGatewayIdentity, type GatewayIdentity } from './gateway-session.ts';
import { PLAIN_ENDPOINT, endpointAt, endpointRefusal, type GatewayEndpoint } from './endpoints.ts';
import { ListenStreams, MAX_LISTEN_STREAMS } from './listen-streams.ts';
import { createGatewayServer } from './mcp-server.ts';

/** Largest MCP request body read (the SDK's own default). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;
/**
 * Past the limit, this much more is read and dropped before the 413 (as the runs API does), so that the client reads it
 * rather than a reset.
 */
const MAX_MCP_DISCARD_BYTES = 16 * 1024 * 1024;
/**
 * A client may ask for a session of its own with this header; otherwise one caller's requests from one client form one
 * session.
 */
export const SESSION_HEADER = 'toolgate-session';
/** `toolgate-dry-run: true` makes the session's writes dry runs (a header can only turn dry run on). */
export const DRY_RUN_HEADER = 'toolgate-dry-run';

const LEGACY_PREFIX = 'http-legacy:';

interface LegacySession {
  transport: WebStandardStreamableHTTPServerTransport;
  identity: GatewayIdentity;
  /** The path it was opened at: its id is good there only. */
  path: string;
}

/**
 * Streamable HTTP at /mcp, both protocol eras on one path: 2026-07-28
 * requests are served per request by the SDK's handler; 2025-era clients get
 * a session of their own (`Mcp-Session-Id`), which the SDK needs to send them
 * `elicitation/create`. Authentication happened before (the runs API's keys).
 */
export class GatewayHttp {
  readonly #gateway: Gateway;
  readonly #passthrough: PassthroughSource | undefined;
  readonly #modern: McpHttpHandler;
  readonly #listen: ListenStreams;
  readonly #legacy = new Map<string, LegacySession>();
  readonly #onError: (error: Error) => void;

  constructor(gateway: Gateway, passthrough: PassthroughSource | undefined) {
    this.#gateway = gateway;
    this.#passthrough = passthrough;
    this.#onError = (error) => gateway.options.onError?.(`gateway (MCP over HTTP): ${error.message}`);
    this.#listen = new ListenStreams(gateway, passthrough);
    // A 2025-era session the gateway ended (idle, stopped) lets its transport go; the client's next request gets 404
    // and starts again.
    gateway.onSessionEnd((key) => {
      if (!key.startsWith(LEGACY_PREFIX)) return;
      const id = key.slice(LEGACY_PREFIX.length);
      const legacy = this.#legacy.get(id);
      this.#legacy.delete(id);
      void legacy?.transport.close().catch(() => undefined);
    });
    this.#modern = createMcpHandler(
      (ctx) => {
        // What handle() put in authInfo for this request.
        const extra = ctx.authInfo?.extra;
        const given = extra?.['identity'];
        const identity: GatewayIdentity = isGatewayIdentity(given) ? given : { dryRun: false };
        const hint = typeof extra?.['hint'] === 'string' ? extra['hint'] : undefined;
        const path = typeof extra?.['path'] === 'string' ? extra['path'] : PLAIN_ENDPOINT;
        const endpoint = gateway.options.endpoints?.get(path);
        return createGatewayServer(
          gateway,
          {
            transport: 'http',
            identity,
            persistent: false,
            endpoint,
            sessionKey: (client) => modernSessionKey(identity, endpoint, hint ?? client?.name),
          },
          passthrough,
        );
      },
      {
        legacy: 'reject',
        onerror: this.#onError,
        maxRequestBodySize: MAX_MCP_BODY_BYTES,
        // subscriptions/listen: each stream told only what its caller may see (listen-streams.ts).
        bus: this.#listen,
        maxSubscriptions: MAX_LISTEN_STREAMS,
      },
    );
  }

  /**
   * Serves one request to /mcp for an authenticated caller (`keyId`: the fingerprint of its API key; `dryRun`: its
   * tenant's sessions are dry runs).
   */
  async handle(req: IncomingMessage, res: ServerResponse, caller: GatewayIdentity): Promise<void> {
    const path = new URL(req.url ?? PLAIN_ENDPOINT, 'http://localhost').pathname;
    const at = endpointAt(this.#gateway.options.endpoints, path);
    if ('unknown' in at) return send(res, jsonRpcError(404, -32601, at.unknown));
    const { endpoint } = at;
    const refused = endpoint === undefined ? undefined : endpointRefusal(endpoint, caller.tenantId);
    if (refused !== undefined) return send(res, jsonRpcError(403, -32600, refused));
    const identity: GatewayIdentity = {
      tenantId: caller.tenantId,
      userId: caller.userId,
      ...(caller.roles === undefined ? {} : { roles: caller.roles }),
      keyId: caller.keyId,
      dryRun: caller.dryRun || endpoint?.dryRun === true || headerOn(req.headers[DRY_RUN_HEADER]),
    };
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (body instanceof Response) return send(res, body);
    const request = toWebRequest(req, res, body?.text);
    const parsedBody = body?.json;
    const sessionId = req.headers['mcp-session-id'];
    let response: Response;
    if (typeof sessionId === 'string') {
      const legacy = this.#legacy.get(sessionId);
      if (legacy === undefined || legacy.path !== path)
        response = jsonRpcError(
          404,
          -32001,
          legacy === undefined
            ? 'Session not found: it ended or never existed; initialize a new one'
            : `Session not found at ${path}: it was opened at ${legacy.path}; use it there or initialize a new one`,
        );
      else if (
        legacy.identity.tenantId !== identity.tenantId ||
        legacy.identity.userId !== identity.userId ||
        rolesKey(legacy.identity.roles) !== rolesKey(identity.roles)
      )
        response = jsonRpcError(403, -32600, 'this session belongs to another caller');
      else {
        this.#gateway.keepAlive(`${LEGACY_PREFIX}${sessionId}`);
        response = await legacy.transport.handleRequest(request, { parsedBody });
      }
    } else if (
      req.method === 'POST' &&
      isInitializeRequest(parsedBody) &&
      (await isLegacyRequest(request, parsedBody))
    ) {
      response =
        this.#legacy.size >= this.#gateway.maxSessions
          ? jsonRpcError(
              503,
              -32000,
              `the gateway has ${this.#legacy.size} open sessions, its limit ` +
                `(gateway.maxSessions): end unused ones (DELETE /mcp) or retry later`,
            )
          : await this.#openLegacy(request, parsedBody, { identity, path, endpoint });
    } else if (req.method === 'POST' && (await isLegacyRequest(request, parsedBody))) {
      response = jsonRpcError(
        400,
        -32600,
        'no session: a 2025-era client must send initialize first, then send its Mcp-Session-Id header',
      );
    } else {
      const header = req.headers[SESSION_HEADER];
      const hint = typeof header === 'string' ? header.slice(0, 200) : undefined;
      const serve = (): Promise<Response> =>
        this.#modern.fetch(request, {
          parsedBody,
          authInfo: {
            token: 'toolgate',
            clientId: identity.userId ?? 'anonymous',
            scopes: [],
            extra: { identity, path, hint },
          },
        });
      response = ListenStreams.isListen(parsedBody)
        ? await this.#listen.serve(
            {
              body: parsedBody,
              identity,
              endpoint,
              sessionKey: (client) => modernSessionKey(identity, endpoint, hint ?? client?.name),
            },
            serve,
          )
        : await serve();
    }
    await send(res, response);
  }

  async close(): Promise<void> {
    await this.#modern.close().catch(() => undefined);
    await Promise.allSettled([...this.#legacy.values()].map((s) => s.transport.close()));
    this.#legacy.clear();
  }

  async #openLegacy(
    request: Request,
    parsedBody: unknown,
    at: { identity: GatewayIdentity; path: string; endpoint: GatewayEndpoint | undefined },
  ): Promise<Response> {
    const { identity, path, endpoint } = at;
    // The id is chosen here so the session is admitted (its tenant's and key's shares) before the SDK answers
    // initialize.
    const sessionId = randomUUID();
    const key = `${LEGACY_PREFIX}${sessionId}`;
    try {
      await this.#gateway.session(key, identity, {
        transport: 'http',
        ...(endpoint === undefined ? {} : { endpoint: endpoint.path }),
      });
    } catch (error) {
      if (!(error instanceof ToolgateError)) throw error;
      // A share of a tenant or key is full: 429, the caller's own doing; the process is full or stopping: 503.
      return jsonRpcError(error.details?.['limit'] === undefined ? 503 : 429, -32000, error.message);
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessioninitialized: (id) => {
        this.#legacy.set(id, { transport, identity, path });
      },
      onsessionclosed: (id) => {
        this.#legacy.delete(id);
        // The store may be unavailable just then: the failure is reported, never left unhandled (that would end the
        // process).
        void this.#gateway
          .endSession(`${LEGACY_PREFIX}${id}`, 'the client closed the session')
          .catch((error: unknown) =>
            this.#gateway.options.onError?.(`gateway session ${id} did not end cleanly: ${String(error)}`),
          );
      },
    });
    transport.onerror = this.#onError;
    const server = createGatewayServer(
      this.#gateway,
      { transport: 'http', identity, persistent: true, sessionKey: () => key, endpoint },
      this.#passthrough,
    );
    try {
      await server.connect(transport);
      return await transport.handleRequest(request, { parsedBody });
    } finally {
      // An initialize the SDK refused opened nothing: its place is given back.
      if (!this.#legacy.has(sessionId))
        void this.#gateway.endSession(key, 'the client did not complete initialize').catch(() => undefined);
    }
  }
}

function headerOn(value: string | string[] | undefined): boolean {
  return typeof value === 'string' && /^(1|true|yes|on)$/i.test(value.trim());
}

/**
 * The body as text and JSON, or the answer that refuses it: over the size limit (413), not UTF-8 (400, never decoded to
 * U+FFFD).
 */
async function readBody(req: IncomingMessage): Promise<{ text: string; json: unknown } | Response> {
  const read = await readLimited(req, { maxBytes: MAX_MCP_BODY_BYTES, discardBytes: MAX_MCP_DISCARD_BYTES });
  if (read.kind === 'too_large') {
    const response = jsonRpcError(
      413,
      -32600,
      `the request body is larger than ${MAX_MCP_BODY_BYTES} bytes, the gateway's limit for one MCP message`,
    );
    // Cut off before its end: the rest of the body would be read as the next request.
    if (!read.drained) response.headers.set('connection', 'close');
    return response;
  }
  const decoded = decodeUtf8(read.bytes);
  if (!decoded.ok) {
    const byte = decoded.byte.toString(16).padStart(2, '0');
    return jsonRpcError(
      400,
      -32700,
      `the request body is not valid UTF-8 at byte offset ` +
        `${decoded.offset} (0x${byte}): send the JSON encoded as UTF-8`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(decoded.text);
  } catch {
    json = undefined;
  }
  return { text: decoded.text, json };
}

/**
 * The request as the SDK takes it; its signal aborts when the response closes (the client went away, or it was
 * answered).
 */
function toWebRequest(req: IncomingMessage, res: ServerResponse, body: string | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const host = typeof req.headers.host === 'string' ? req.headers.host : 'localhost';
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  return new Request(`http://${host}${req.url ?? '/mcp'}`, {
    method: req.method ?? 'GET',
    headers,
    signal: controller.signal,
    ...(body === undefined ? {} : { body }),
  });
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** Streams a web Response to the client (SSE responses as they come); stops reading when the client goes away. */
async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = (): void => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        // Backpressure: go on when the client has read, or stop when it has gone.
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.once('drain', done);
          res.once('close', done);
        });
        if (res.destroyed) break;
      }
    }
  } catch {
    // The client went away, or the SDK closed the stream.
  } finally {
    res.off('close', stop);
    res.end();
  }
}

/**
 * A 2026-07-28 client's session: its caller, its endpoint (the same client at two endpoints is two sessions, two
 * runs) and the client's name or `toolgate-session` header.
 */
function modernSessionKey(identity: GatewayIdentity, endpoint: GatewayEndpoint | undefined, name?: string): string {
  return (
    `http:${identity.tenantId ?? ''}:${identity.userId ?? ''}:${rolesKey(identity.roles)}:` +
    `${identity.dryRun ? 'dry' : 'live'}:${endpoint === undefined ? '' : endpoint.path}:${name ?? ''}`
  );
}

/** Callers holding other roles never share a session: each session's catalog and approvers follow its roles. */
function rolesKey(roles: readonly string[] | undefined): string {
  return [...(roles ?? [])].sort().join(',');
}
