import { ToolgateError } from '../core/index.ts';
import { matchToolPattern } from '../gate/index.ts';
import {
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SAMPLING,
  Gateway,
  GatewayHttp,
  RateLimiter,
  checkToolPins,
  defaultMaxSessionsPerKey,
  defaultMaxSessionsPerTenant,
  limitedTools,
  serveGatewayStdio,
  sweepLostGatewaySessions,
  endpointAt,
  endpointRefusal,
  type GatewayEndpoint,
  type GatewayEndpoints,
  type GatewayIdentity,
  type RateLimits,
  type SamplingDecision,
} from '../gateway/index.ts';
import type { RunEvent } from '../core/index.ts';
import type { Settings } from '../config/resolve-settings.ts';
import type { Toolgate } from './toolgate.ts';
import { sessionToolsFactory } from './session-tools.ts';

export interface CreateGatewayOptions {
  toolgate: Toolgate;
  /** The config's `gateway:` section (default: the Toolgate's settings'). */
  config?: Settings['gatewayConfig'];
  /** `--dry-run`: every session's writes are dry runs. */
  dryRun?: boolean;
  /** Who a stdio session acts for, over `gateway.identity` (flags `--tenant`, `--user`). */
  identity?: { tenantId?: string | undefined; userId?: string | undefined; endpoint?: string | undefined };
  onEvents?: (events: readonly RunEvent[]) => void;
  onError?: (message: string) => void;
}

export interface GatewayApp {
  gateway: Gateway;
  /** Serves /mcp for an authenticated caller of the HTTP server. */
  http: GatewayHttp;
  /** Whether a tenant's sessions are dry runs (`gateway.dryRun`, `--dry-run`). */
  dryRunFor(tenantId: string | undefined): boolean;
  /** Ends the sessions a gateway that went away left waiting for a decision; returns their run ids. */
  sweepLostSessions(): Promise<string[]>;
  /** Serves the gateway on stdin/stdout; `closed` settles when the client goes away. */
  serveStdio(): { close(reason: string): Promise<void>; closed: Promise<string> };
  /** Ends every session (their runs complete with `reason`). */
  close(reason?: string): Promise<void>;
}

/** Gateway mode assembled from a Toolgate and its settings' `gateway:` section (docs/gateway.md). */
export function createGateway(options: CreateGatewayOptions): GatewayApp {
  const { toolgate } = options;
  const config = options.config ?? toolgate.settings.gatewayConfig;
  const maxResultBytes = config.maxResultBytes ?? toolgate.settings.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const dryRunFor = (tenantId: string | undefined): boolean =>
    options.dryRun === true ||
    config.dryRun === true ||
    (Array.isArray(config.dryRun) && tenantId !== undefined && config.dryRun.includes(tenantId));
  const gateway = new Gateway({
    store: toolgate.store,
    owner: `${toolgate.engine.owner}/gateway`,
    leaseMs: toolgate.engine.leaseMs,
    environment: {
      tools: limitedTools(toolgate.tools, maxResultBytes),
      policy: toolgate.policy,
      validator: toolgate.validator,
      hooks: toolgate.hooks,
      redact: toolgate.settings.redact,
      toolTimeoutMs: toolgate.settings.toolTimeoutMs,
    },
    listTools: async () => (await toolgate.tools.listing()).tools,
    refreshTools: () => toolgate.tools.refresh(),
    ...(config.pinning === false
      ? {}
      : { checkPins: (tools) => checkToolPins(toolgate.store, tools, () => new Date().toISOString()) }),
    approvalTimeoutMs: config.approvalTimeoutMs,
    sessionIdleMs: config.sessionIdleMs,
    sessionUpstreamIdleMs: config.sessionUpstreamIdleMs,
    maxSessions: config.maxSessions,
    ...sessionShares(config, toolgate.settings.tenants),
    maxResultBytes,
    ...(config.rateLimits === undefined
      ? {}
      : { rateLimiter: new RateLimiter(rateLimitsFrom(config.rateLimits), toolgate.store.limits) }),
    elicitation: config.elicitation,
    forwardLogs: config.forwardLogs,
    endpoints: gatewayEndpoints(config.endpoints),
    sessionTools: sessionToolsFactory({
      settings: toolgate.settings,
      shared: toolgate.tools.sources,
      maxResultBytes,
      onServerStderr: toolgate.onServerStderr,
    }),
    sampling: samplingFor(config.sampling),
    roots: config.roots,
    stateSecret: config.stateSecret,
    onEvents: options.onEvents,
    onError: options.onError,
  });
  const http = new GatewayHttp(gateway, toolgate.tools.passthrough);
  const stdioIdentity = (): { identity: GatewayIdentity; endpoint?: GatewayEndpoint | undefined } => {
    const tenantId = options.identity?.tenantId ?? config.identity?.tenant;
    const userId = options.identity?.userId ?? config.identity?.user;
    if (
      tenantId !== undefined &&
      toolgate.settings.tenants[tenantId] === undefined &&
      Object.keys(toolgate.settings.tenants).length > 0
    ) {
      throw new ToolgateError(
        'usage',
        `gateway.identity names tenant "${tenantId}", which is not in ` +
          `tenants: (known: ${Object.keys(toolgate.settings.tenants).join(', ')})`,
      );
    }
    const path = options.identity?.endpoint ?? config.identity?.endpoint;
    const at = path === undefined ? { endpoint: undefined } : endpointAt(gateway.options.endpoints, path);
    if ('unknown' in at) throw new ToolgateError('usage', `--endpoint: ${at.unknown}`);
    const { endpoint } = at;
    const refused = endpoint === undefined ? undefined : endpointRefusal(endpoint, tenantId);
    if (refused !== undefined) throw new ToolgateError('usage', `${refused}; set --tenant or gateway.identity.tenant`);
    return { identity: { tenantId, userId, dryRun: dryRunFor(tenantId) || endpoint?.dryRun === true }, endpoint };
  };
  return {
    gateway,
    http,
    dryRunFor,
    sweepLostSessions: () =>
      sweepLostGatewaySessions(toolgate.store, { owner: toolgate.engine.owner, ttlMs: toolgate.engine.leaseMs }),
    serveStdio: () => serveGatewayStdio(gateway, stdioIdentity(), toolgate.tools.passthrough),
    close: async (reason) => {
      await gateway.close(reason);
      await http.close();
    },
  };
}

/**
 * Each tenant's and key's share of the sessions: configured, or the defaults that depend on how many tenants and keys
 * there are.
 */
function sessionShares(
  config: Settings['gatewayConfig'],
  tenants: Settings['tenants'],
): { maxSessionsPerTenant: number; maxSessionsPerKey: (tenantId: string | undefined) => number } {
  const keysOf = (tenantId: string | undefined): number =>
    tenantId === undefined ? 0 : (tenants[tenantId]?.apiKeys?.length ?? 0);
  const withKeys = Object.keys(tenants).filter((id) => keysOf(id) > 0).length;
  const perTenant =
    config.maxSessionsPerTenant ?? defaultMaxSessionsPerTenant(config.maxSessions ?? DEFAULT_MAX_SESSIONS, withKeys);
  const perKey = config.maxSessionsPerKey;
  return {
    maxSessionsPerTenant: perTenant,
    maxSessionsPerKey: (tenantId) => perKey ?? defaultMaxSessionsPerKey(perTenant, keysOf(tenantId)),
  };
}

function rateLimitsFrom(config: NonNullable<Settings['gatewayConfig']['rateLimits']>): RateLimits {
  const tools = Object.entries(config.tools ?? {}).map(([pattern, limit]) => ({
    pattern,
    limit,
    matches: (tool: { name: string; server: string; tool: string }) =>
      matchToolPattern(pattern, { server: tool.server, tool: tool.tool, exposedName: tool.name }),
  }));
  return {
    ...(config.tenant === undefined ? {} : { tenant: config.tenant }),
    ...(tools.length === 0 ? {} : { tools }),
  };
}

/** `gateway.sampling` as a decision per server: one for all, or by name with "*" for the others (default approve). */
function samplingFor(config: Settings['gatewayConfig']['sampling']): (server: string) => SamplingDecision {
  if (config === undefined || typeof config === 'string') return () => config ?? DEFAULT_SAMPLING;
  return (server) => config[server] ?? config['*'] ?? DEFAULT_SAMPLING;
}

/** `gateway.endpoints` by path (the config's keys were checked when it was loaded). */
function gatewayEndpoints(config: Settings['gatewayConfig']['endpoints']): GatewayEndpoints | undefined {
  if (config === undefined) return undefined;
  return new Map(Object.entries(config).map(([path, endpoint]) => [path, { ...endpoint, path }]));
}
