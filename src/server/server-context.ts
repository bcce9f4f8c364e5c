import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApprovalLinks } from '../core/ports/approval-links.ts';
import type { Caller, RunService } from '../core/ports/run-service.ts';
import type { RunStore } from '../core/ports/run-store.ts';
import type { LimitStore } from '../core/ports/limit-store.ts';
import type { StatsFilter, StatsSnapshot } from '../core/stats.ts';
import type { ApiKeyEntry } from './auth.ts';
import type { AuthBackoffSettings, AuthThrottleEvent } from './auth-throttle.ts';
import type { RequestAuth } from './request-auth.ts';
import type { OidcVerifier } from './oidc/oidc-verifier.ts';

export type LogEntry = { level: 'info' | 'warn' | 'error'; msg: string; [key: string]: unknown };

/**
 * Who called /mcp: the caller and the fingerprint of its API key (a gateway session counts against the key's share).
 */
export interface McpCaller extends Caller {
  keyId?: string | undefined;
}

export interface HttpServerOptions {
  service: RunService;
  /** Its `limits`, when it has them, count failed authentications (authBackoff). */
  store: Pick<RunStore, 'readEvents' | 'subscribe' | 'watch'> & { readonly limits?: LimitStore };
  /** Empty: no authentication, every request is the anonymous caller `{}` (loopback only). */
  apiKeys: ApiKeyEntry[];
  /** Interval of `: ping` comments on idle SSE streams (default DEFAULT_HEARTBEAT_MS). */
  heartbeatMs?: number;
  /** Unsent bytes per SSE connection before it gets `overflow` (default DEFAULT_SSE_BUFFER_LIMIT). */
  sseBufferLimitBytes?: number;
  /**
   * An SSE connection with bytes waiting that accepts none for this long is dropped (default
   * DEFAULT_SSE_IDLE_TIMEOUT_MS).
   */
  sseIdleTimeoutMs?: number;
  /**
   * Longest catch-up on a run's history before the stream ends and the client resumes (default
   * DEFAULT_SSE_HISTORY_TIMEOUT_MS).
   */
  sseHistoryTimeoutMs?: number;
  /** Largest request body accepted (default DEFAULT_MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /**
   * How often the live SSE streams of a run read the store (one read per run,
   * shared by its streams) for events another process appended (several
   * processes sharing one store); 0 turns it off. Default DEFAULT_SSE_POLL_MS.
   */
  ssePollMs?: number;
  log?: (entry: LogEntry) => void;
  /**
   * Gateway mode's MCP endpoint (Streamable HTTP at /mcp), called for an
   * authenticated caller after the Origin and CORS checks; absent: /mcp is 404.
   */
  mcp?: ((req: IncomingMessage, res: ServerResponse, caller: McpCaller) => Promise<void>) | undefined;
  /** The gateway's virtual servers' paths (`gateway.endpoints`, e.g. `/mcp/trading`): only these have metadata. */
  mcpEndpoints?: readonly string[] | undefined;
  /** The Prometheus exposition (GET /metrics); absent: /metrics is 404. */
  metrics?: MetricsSource | undefined;
  /** Metrics are served on a port of their own: GET /metrics on the API port says where. */
  metricsElsewhere?: string | undefined;
  /** Live outcome statistics (GET /v1/stats); absent: /v1/stats is 404. */
  stats?: StatsSource | undefined;
  /**
   * Origins of browser apps allowed to call this API cross-origin
   * (`server.cors.origins`), each as browsers send it: `https://app.example.com`.
   */
  corsOrigins?: readonly string[] | undefined;
  /**
   * Signs session cookies (`server.sessionSecret`, at least 32 characters).
   * Absent: random bytes at start, so sessions end with the process; several
   * instances behind one name need the same secret.
   */
  sessionSecret?: string | undefined;
  /** Lifetime of a session cookie (default DEFAULT_SESSION_TTL_SECONDS, 12 h). */
  sessionTtlSeconds?: number | undefined;
  /**
   * Bearer JWTs of these issuers are accepted beside API keys (config `auth.oidc`, docs/security.md); with them auth
   * is required even when no API key is configured.
   */
  oidc?: OidcVerifier | undefined;
  /** `auth.resource`: the URL this server is known by (token audience, RFC 9728 metadata); absent: the Host's. */
  resource?: string | undefined;
  /**
   * Failed authentications (wrong bearer keys, POST /v1/session) slow the
   * guesser down (docs/security.md), counted in `limits` (default: the
   * store's). Applies when API keys are configured; `false` turns it off.
   */
  authBackoff?: (AuthBackoffSettings & { limits?: LimitStore | undefined }) | false | undefined;
  /**
   * Proxies whose X-Forwarded-For names the client (`server.trustedProxies`:
   * addresses and CIDR ranges). Absent: the socket's peer is the client.
   */
  trustedProxies?: readonly string[] | undefined;
  /**
   * Told of each failed authentication and each request the backoff refused (for metrics; the log gets them already).
   */
  onAuthEvent?: ((event: AuthThrottleEvent) => void) | undefined;
  /**
   * A built browser console: `GET /` serves its index.html, `GET /console/<file>`
   * its files. Absent: `/` is a 404 like any unknown path.
   */
  consoleDir?: string | undefined;
  /** The chat protocols' settings (config `chat:`); absent values take their defaults. */
  chat?: ChatSettings | undefined;
  /** Decision links (`/v1/approvals/{token}`); absent: those routes answer 404. */
  approvalLinks?: ApprovalLinks | undefined;
}

/** How the chat routes (POST /v1/chat/completions) answer a call that waits for a person. */
export interface ChatSettings {
  /** The answer that says a call waits: `{tool}`, `{runId}` and `{reason}` are filled in. */
  approvalMessage?: string | undefined;
  /** How long a request with `toolgate.wait` stays open for a decision before it answers with that message. */
  approvalTimeoutMs?: number | undefined;
}

export type MetricsSource = () => Promise<{ contentType: string; body: string }>;

/** The live statistics of the window, narrowed by the filter (LiveStats.snapshot). */
export type StatsSource = (filter: StatsFilter) => StatsSnapshot;

/** Numbers about the SSE layer, for metrics. */
export interface SseStats {
  subscribers: number;
  overflows: number;
}

/** Something open that a graceful shutdown must end (an SSE stream). */
export interface Closable {
  close(): void;
}

/** What every route handler sees: the server's settings and one request. */
export interface ServerState {
  service: RunService;
  store: Pick<RunStore, 'readEvents' | 'subscribe' | 'watch'>;
  heartbeatMs: number;
  sseBufferLimitBytes: number;
  sseIdleTimeoutMs: number;
  sseHistoryTimeoutMs: number;
  ssePollMs: number;
  maxBodyBytes: number;
  log: (entry: LogEntry) => void;
  /** Open SSE streams, ended on shutdown. */
  streams: Set<Closable>;
  /** SSE streams ended because the client read too slowly, since start. */
  sseOverflows: number;
  metrics: MetricsSource | undefined;
  metricsElsewhere: string | undefined;
  stats: StatsSource | undefined;
  /** ServerOptions.mcpEndpoints. */
  mcpEndpoints: ReadonlySet<string>;
  closing: boolean;
  /** Bearer keys and session cookies. */
  auth: RequestAuth;
  /** ChatSettings with their defaults. */
  chat: { approvalMessage: string; approvalTimeoutMs: number };
  approvalLinks: ApprovalLinks | undefined;
}

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  caller: Caller;
  state: ServerState;
}

export type RouteHandler = (ctx: RequestContext) => Promise<void>;
