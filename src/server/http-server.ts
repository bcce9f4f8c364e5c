import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ToolgateError } from '../core/errors.ts';
import { newId } from '../core/runs.ts';
import { applyCors, corsOriginSet } from './cors.ts';
import { isLoopbackHost } from './loopback-host.ts';
import { guardOrigin } from './origin-guard.ts';
import { RequestAuth } from './request-auth.ts';
import { AuthThrottle } from './auth-throttle.ts';
import { trustedProxyList } from './client-address.ts';
import { isConsolePath, serveConsole } from './static-console.ts';
import { DEFAULT_MAX_BODY_BYTES } from './body.ts';
import { HttpError, sendError } from './respond.ts';
import { ROUTES } from './route-table.ts';
import { matchRoute } from './router.ts';
import type { HttpServerOptions, LogEntry, ServerState, SseStats } from './server-context.ts';
import { DEFAULT_SSE_HISTORY_TIMEOUT_MS, DEFAULT_SSE_POLL_MS } from './run-event-stream.ts';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_SSE_BUFFER_LIMIT, DEFAULT_SSE_IDLE_TIMEOUT_MS } from './sse-writer.ts';
import { describeError } from '../core/describe-error.ts';
import { listen } from './listen.ts';
import { watchCreatedRun } from './watch-created-run.ts';
import { DEFAULT_APPROVAL_MESSAGE, DEFAULT_APPROVAL_TIMEOUT_MS } from './chat/hold-message.ts';
import { sendOpenAiError } from './chat/openai-error.ts';
import { isMcpPath, withBearerChallenge } from './oidc/protected-resource.ts';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;
/** How long close() waits for requests in flight before dropping their connections. */
export const DEFAULT_CLOSE_GRACE_MS = 10_000;

export { isLoopbackHost } from './loopback-host.ts';
export { startMetricsServer } from './metrics-server.ts';

/** Routes that answer during shutdown: load balancers must see the server go. */
const ANSWERED_WHILE_CLOSING = new Set(['/healthz', '/readyz']);
/** Decision links: `/v1/approvals/{token}`. */
const APPROVAL_LINK_PREFIX = '/v1/approvals/';

export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface StartHttpServerOptions extends HttpServerOptions {
  host?: string;
  /** 0: a free port. */
  port?: number;
}

export interface RunningHttpServer {
  /** e.g. "http://127.0.0.1:8787" */
  url: string;
  server: Server;
  /** Open SSE streams and overflows so far (for metrics). */
  sseStats(): SseStats;
  /**
   * Stops accepting, ends SSE streams (clients resume with Last-Event-ID), waits up to graceMs for requests in flight.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** The runs API as a plain node:http request listener. */
export function createHttpHandler(options: HttpServerOptions): HttpHandler {
  return createServerHandler(options).handle;
}

export async function startHttpServer(options: StartHttpServerOptions): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_HOST;
  if (options.apiKeys.length === 0 && options.oidc === undefined && !isLoopbackHost(host)) {
    throw new ToolgateError(
      'usage',
      `no API keys configured: refusing to listen on ${host}; configure tenants.<id>.apiKeys or bind to 127.0.0.1`,
    );
  }
  const { handle, state } = createServerHandler(options);
  // node:http (about 10 MB) loads when a server starts, not when the library is imported.
  const { createServer } = await import('node:http');
  const server = createServer(handle);
  const idle = trackIdleSockets(server, state);
  const url = await listen(server, { host, port: options.port ?? DEFAULT_PORT });

  let closing: Promise<void> | undefined;
  const close = async (closeOptions: { graceMs?: number } = {}): Promise<void> => {
    closing ??= shutdown({ server, state, idle, graceMs: closeOptions.graceMs ?? DEFAULT_CLOSE_GRACE_MS });
    return closing;
  };
  return { url, server, close, sseStats: () => ({ subscribers: state.streams.size, overflows: state.sseOverflows }) };
}

function createServerHandler(options: HttpServerOptions): { handle: HttpHandler; state: ServerState } {
  const log = options.log ?? (() => {});
  const state: ServerState = {
    service: options.service,
    store: options.store,
    heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    sseBufferLimitBytes: options.sseBufferLimitBytes ?? DEFAULT_SSE_BUFFER_LIMIT,
    sseIdleTimeoutMs: options.sseIdleTimeoutMs ?? DEFAULT_SSE_IDLE_TIMEOUT_MS,
    sseHistoryTimeoutMs: options.sseHistoryTimeoutMs ?? DEFAULT_SSE_HISTORY_TIMEOUT_MS,
    ssePollMs: options.ssePollMs ?? DEFAULT_SSE_POLL_MS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    log,
    streams: new Set(),
    sseOverflows: 0,
    metrics: options.metrics,
    metricsElsewhere: options.metricsElsewhere,
    stats: options.stats,
    mcpEndpoints: new Set(options.mcpEndpoints ?? []),
    closing: false,
    auth: new RequestAuth({
      apiKeys: options.apiKeys,
      sessionSecret: options.sessionSecret,
      sessionTtlSeconds: options.sessionTtlSeconds,
      throttle: authThrottle(options, log),
      oidc: options.oidc,
      resource: options.resource,
    }),
    chat: {
      approvalMessage: options.chat?.approvalMessage ?? DEFAULT_APPROVAL_MESSAGE,
      approvalTimeoutMs: options.chat?.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    },
    approvalLinks: options.approvalLinks,
  };
  const corsOrigins = corsOriginSet(options.corsOrigins);
  const { consoleDir } = options;

  const dispatch = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const path = target.split('?')[0] ?? target;
    const started = performance.now();
    // Ties this request's log lines together; never echoes a client's header into the log.
    const requestId = newId('req');
    // The client gets it too: a 500 says only `internal`, and this id finds the log line that says more.
    res.setHeader('X-Request-Id', requestId);
    let runId: string | undefined;
    // The route's error shape, once the route is known: OpenAI-compatible routes answer errors as OpenAI does.
    let errorShape: 'toolgate' | 'openai' = 'toolgate';
    const createdRun = watchCreatedRun(res);
    // 'close' rather than 'finish': an SSE stream the client walked away from is logged too.
    res.once('close', () => {
      const latencyMs = Math.round(performance.now() - started);
      // A created run is named by its Location; the query string and headers are never logged (they may carry secrets).
      runId ??= createdRun();
      const ended = res.writableFinished ? {} : { aborted: true };
      log({
        level: 'info',
        msg: 'request',
        requestId,
        ...(runId === undefined ? {} : { runId }),
        method,
        // A decision link's token is a capability: it stays out of the log like a query string.
        path: path.startsWith(APPROVAL_LINK_PREFIX) ? `${APPROVAL_LINK_PREFIX}…` : path,
        status: res.statusCode,
        latencyMs,
        ...ended,
      });
    });
    try {
      if (!target.startsWith('/')) throw new ToolgateError('not_found', `no route for ${method} ${target}`);
      // Browser rules before anything else: a refused Host or Origin reaches no handler; a CORS preflight is answered
      // here.
      const { sameOrigin } = guardOrigin(req, {
        keysRequired: state.auth.keysRequired,
        origins: corsOrigins,
        // A decision link needs no cookie or key (its token is the capability), so a foreign Origin gains nothing;
        // its confirm page is served with Referrer-Policy: no-referrer, so the browser's form POST says `Origin: null`.
        anyOrigin: path.startsWith(APPROVAL_LINK_PREFIX),
      });
      if (applyCors(req, res, { origins: corsOrigins, sameOrigin })) return;
      // The raw path: URL parsing would resolve "/console/../x" before the console could refuse it.
      if (consoleDir !== undefined && isConsolePath(path)) {
        await serveConsole(req, res, { dir: consoleDir, rawPath: path });
        return;
      }
      if (options.mcp !== undefined && isMcpPath(path)) {
        if (state.closing)
          throw new ToolgateError('shutting_down', 'the server is shutting down; reconnect in a moment');
        // The gateway's MCP endpoint: the same keys (and tenants) as the runs API.
        const { caller, keyId } = await state.auth.authenticateKeyed(req);
        await options.mcp(req, res, { ...caller, ...(keyId === undefined ? {} : { keyId }) });
        return;
      }
      const url = new URL(`http://localhost${target}`);
      const match = matchRoute(ROUTES, method, url.pathname);
      if (match.kind === 'found' && match.params['id'] !== undefined) runId = match.params['id'];
      if (match.kind === 'found') errorShape = match.route.errorShape ?? 'toolgate';
      if (match.kind === 'not_found') {
        throw new ToolgateError(
          'not_found',
          `no route for ${method} ${url.pathname} (the API is described at /openapi.json)`,
        );
      }
      if (match.kind === 'method_not_allowed') {
        const allow = match.allow.join(', ');
        throw new HttpError({
          status: 405,
          code: 'usage',
          message: `${method} is not allowed on ${url.pathname}; use ${allow}`,
          headers: { Allow: allow },
        });
      }
      if (state.closing) {
        res.setHeader('Connection', 'close');
        if (!ANSWERED_WHILE_CLOSING.has(match.route.path)) {
          throw new ToolgateError(
            'shutting_down',
            'the server is shutting down; retry on another instance or in a moment',
          );
        }
      }
      const caller = match.route.auth ? await state.auth.authenticate(req) : {};
      await match.route.handler({ req, res, url, params: match.params, caller, state });
    } catch (error) {
      if (res.headersSent) {
        log({
          level: 'error',
          msg: 'request failed after the response started',
          requestId,
          method,
          path,
          error: String(error),
        });
        res.destroy();
        return;
      }
      // With trusted issuers, a 401 names the metadata that leads a client to them (RFC 9728).
      const answer =
        state.auth.oidc === undefined
          ? error
          : withBearerChallenge(error, { req, path, resource: state.auth.resource });
      const response = errorShape === 'openai' ? sendOpenAiError(res, answer) : sendError(res, answer);
      if (response.status >= 500) {
        log({
          level: 'error',
          msg: 'request failed',
          requestId,
          method,
          path,
          status: response.status,
          error: describeError(error, { stack: true }),
        });
      }
    }
  };

  const handle: HttpHandler = (req, res) => {
    void dispatch(req, res);
  };
  return { handle, state };
}

/**
 * The backoff on failed authentications, when keys are configured and it is not turned off; its events go to the log
 * and onAuthEvent.
 */
function authThrottle(options: HttpServerOptions, log: (entry: LogEntry) => void): AuthThrottle | undefined {
  const settings = options.authBackoff;
  const limits = settings === false ? undefined : (settings?.limits ?? options.store.limits);
  const noAuth = options.apiKeys.length === 0 && options.oidc === undefined;
  if (noAuth || limits === undefined || settings === false) return undefined;
  return new AuthThrottle({
    ...settings,
    limits,
    trustedProxies:
      options.trustedProxies === undefined || options.trustedProxies.length === 0
        ? undefined
        : trustedProxyList(options.trustedProxies),
    onEvent: (event) => {
      // A refusal is in the request's own log line (429); a failure says more than a 401 does.
      if (event.type === 'failure')
        log({
          level: 'warn',
          msg: 'failed authentication',
          via: event.via,
          address: event.address,
          keyPrefix: event.keyPrefix,
          failures: event.failures,
        });
      options.onAuthEvent?.(event);
    },
    onError: (message) => log({ level: 'error', msg: message }),
  });
}

/**
 * Requests in flight per connection. Node's closeIdleConnections() skips a
 * connection that never sent a request (clients open spare ones), and one that
 * finishes its response after close() began would wait for its keep-alive
 * timeout: both are ended here instead.
 */
function trackIdleSockets(server: Server, state: ServerState): { endIdle(): void } {
  const inFlight = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (inFlight.get(socket) ?? 1) - 1;
      inFlight.set(socket, left);
      if (left === 0 && state.closing) socket.end();
    });
  });
  return {
    endIdle: () => {
      for (const [socket, count] of inFlight) if (count === 0) socket.end();
    },
  };
}

async function shutdown(options: {
  server: Server;
  state: ServerState;
  idle: { endIdle(): void };
  graceMs: number;
}): Promise<void> {
  const { server, state } = options;
  state.closing = true;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const stream of [...state.streams]) stream.close();
  options.idle.endIdle();
  const timer = setTimeout(() => server.closeAllConnections(), options.graceMs);
  try {
    await closed;
  } finally {
    clearTimeout(timer);
  }
}
