import type { IncomingMessage, ServerResponse } from 'node:http';
import { toolgateFrom } from '../app/create-toolgate.ts';
import { toolgateOptionsFromSettings } from '../app/toolgate-options.ts';
import { RunManager } from '../app/run-manager.ts';
import { apiKeysFromSettings } from '../app/api-keys.ts';
import { DEFAULT_STORE, openStore } from '../app/open-store.ts';
import { ToolgateMetrics } from '../app/metrics.ts';
import { ApprovalsRuntime } from '../app/approvals/approvals-runtime.ts';
import { createApprovalLinks } from '../app/approvals/link-service.ts';
import { checkToolConditions } from '../app/policy-from-settings.ts';
import type { Toolgate } from '../app/toolgate.ts';
import { loadConfig } from '../config/load-config.ts';
import { resolveSettings, type Settings } from '../config/resolve-settings.ts';
import type { RunEvent, RunStore, ToolSourceHealth } from '../core/index.ts';
import {
  startHttpServer,
  startMetricsServer,
  type ApiKeyEntry,
  type AuthBackoffSettings,
  type McpCaller,
  type RunningHttpServer,
} from '../server/index.ts';
import { OidcVerifier } from '../server/oidc/oidc-verifier.ts';
import { checkIssuers } from '../server/oidc/check-issuers.ts';
import { consoleDir } from './console-dir.ts';
import { optionalString, stringList, usageError, type CliIO } from './cli-io.ts';
import { DEMO_SCRIPT, DEMO_SERVER_ARGS } from './demo-command.ts';
import type { Logger } from 'pino';
import { createRunLog } from './serve-run-log.ts';
import { namedStore } from './pin-store.ts';
import { logToolHealth } from './serve-tool-health.ts';
import { startLiveStats } from './serve-live-stats.ts';
import { reportToolPatterns } from './tool-pattern-report.ts';

export const DEFAULT_SERVE_PORT = 8787;
/**
 * How long `serve` waits for its tool servers at start-up before it opens the port anyway (those still starting are
 * reported down and retried).
 */
export const DEFAULT_TOOL_START_TIMEOUT_MS = 15_000;

/** What `serve` and `gateway` share: settings, the store, a Toolgate, the run manager and metrics. */
export interface Serving {
  settings: Settings;
  apiKeys: ApiKeyEntry[];
  host: string;
  port: number;
  storeSpec: string;
  store: RunStore;
  metrics: ToolgateMetrics;
  toolgate: Toolgate;
  manager: RunManager;
  logger: Logger;
  /** Tool servers as they stood when start-up stopped waiting for them. */
  tools: ToolSourceHealth[];
  /** The HTTP server's URL, once it listens. */
  url: { value: string };
  /** Hands a gateway session's events to the same log and metrics as the runs' events. */
  observe: (events: readonly RunEvent[]) => void;
  /** Notifications and timeouts of waiting calls (docs/approvals.md): start with startApprovals. */
  approvals: ApprovalsRuntime;
  /** The trusted token issuers (auth.oidc), when any are configured. */
  oidc: OidcVerifier | undefined;
  /** auth.resource. */
  resource: string | undefined;
}

/**
 * Reads config and flags, opens the store, assembles toolgate and starts its tool servers. Close `toolgate` when done.
 */
export async function openServing(values: Record<string, unknown>, io: CliIO, logger: Logger): Promise<Serving> {
  const configFile = optionalString(values, 'config');
  const { config, file } = loadConfig({
    cwd: io.cwd,
    env: io.env,
    ...(configFile === undefined ? {} : { file: configFile }),
  });
  const model = optionalString(values, 'model');
  const baseUrl = optionalString(values, 'base-url');
  const apiKey = optionalString(values, 'api-key');
  let settings = resolveSettings(
    config,
    {
      mcp: stringList(values, 'mcp'),
      ...(model === undefined ? {} : { model }),
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(apiKey === undefined ? {} : { apiKey }),
    },
    io.env,
  );
  if (values['demo'] === true) settings = withDemoDefaults(settings);
  // Said now, naming the file, before the store is opened.
  checkToolConditions(settings.tools, file ?? 'the config');
  const apiKeys = apiKeysFromSettings(settings);
  const port = portFrom(optionalString(values, 'port')) ?? settings.server.port ?? DEFAULT_SERVE_PORT;
  const host = optionalString(values, 'host') ?? settings.server.host ?? '127.0.0.1';
  // The same choice as `toolgate tools --diff` makes, so both read one store.
  const storeSpec =
    namedStore({ flag: optionalString(values, 'store'), configured: settings.server.store, env: io.env }) ??
    DEFAULT_STORE;
  const concurrencyFlag = optionalString(values, 'concurrency');
  const concurrency =
    concurrencyFlag === undefined ? settings.server.concurrency : positive(concurrencyFlag, '--concurrency');

  const opened = await openStore(storeSpec, {
    cwd: io.cwd,
    ...(settings.server.sqliteSynchronous === undefined ? {} : { synchronous: settings.server.sqliteSynchronous }),
    ...(settings.server.sqliteBusyTimeoutMs === undefined
      ? {}
      : { busyTimeoutMs: settings.server.sqliteBusyTimeoutMs }),
    ...(settings.server.poolSize === undefined ? {} : { poolSize: settings.server.poolSize }),
  });
  // Metrics see what this process appends; the store they wrap times every append.
  const metrics = new ToolgateMetrics({ store: opened });
  const approvals = new ApprovalsRuntime({
    ...(config.approvals === undefined ? {} : { config: config.approvals }),
    ...(config.auth?.resource === undefined ? {} : { resource: config.auth.resource }),
    ...(settings.server.sessionSecret === undefined ? {} : { sessionSecret: settings.server.sessionSecret }),
  });
  // Every append of this process passes the approvals' watch: a call that begins to wait is notified.
  const store = approvals.watch(metrics.timeAppends(opened));
  const verbose = values['verbose'] === true;
  const toolgate = toolgateFrom(
    {
      ...toolgateOptionsFromSettings(settings),
      cwd: io.cwd,
      onToolHealth: logToolHealth(logger),
      ...(settings.server.toolRetryMaxDelayMs === undefined
        ? {}
        : { toolRetry: { maxDelayMs: settings.server.toolRetryMaxDelayMs } }),
      ...(verbose ? { onServerStderr: (server: string, line: string) => logger.info({ server }, line) } : {}),
    },
    store,
  );
  const url = { value: '' };
  // Where the log is JSON (stderr not a terminal), approvals' curl lines are also printed as they are, on the
  // command's own output, as the `try:` line is; not beside a --stdio gateway, whose stdout carries MCP.
  const echoCurl =
    io.stderr.isTTY === true || values['stdio'] === true ? undefined : (line: string) => io.stdout.write(line);
  const observe = observeBoth(
    createRunLog({ logger, store, baseUrl: () => url.value, hasApiKeys: apiKeys.length > 0, echoCurl }),
    (events) => metrics.observe(events),
  );
  const manager = new RunManager({
    toolgate,
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(settings.server.queueLimit === undefined ? {} : { queueLimit: settings.server.queueLimit }),
    ...(settings.server.queueLimitPerTenant === undefined
      ? {}
      : { queueLimitPerTenant: settings.server.queueLimitPerTenant }),
    onError: (message) => logger.error(message),
    onEvents: observe,
  });
  try {
    // The default model is made before anything starts (nothing is sent to it): an unknown
    // provider, an endpoint variable that is not a URL or a missing script fails here, not at the first run.
    if (settings.model !== undefined) await toolgate.model();
    // Tool servers start before the port opens, in parallel: /readyz then tells the truth from the first request.
    const tools = await toolgate.connectTools({
      timeoutMs: settings.server.toolStartTimeoutMs ?? DEFAULT_TOOL_START_TIMEOUT_MS,
    });
    await reportToolPatterns({
      toolgate,
      settings,
      strict: values['strict'] === true,
      warn: (text, finding) => logger.warn({ pattern: finding.pattern, where: finding.where }, text),
    });
    await startLiveStats({ toolgate, metrics, settings, logger });
    return {
      settings,
      apiKeys,
      host,
      port,
      storeSpec,
      store,
      metrics,
      toolgate,
      manager,
      logger,
      tools,
      url,
      observe,
      approvals,
      oidc:
        config.auth?.oidc === undefined || config.auth.oidc.length === 0
          ? undefined
          : new OidcVerifier({ issuers: config.auth.oidc, resource: config.auth.resource }),
      resource: config.auth?.resource,
    };
  } catch (error) {
    await toolgate.close();
    throw error;
  }
}

export interface Listening {
  http: RunningHttpServer;
  metricsServer: { url: string; close(): Promise<void> } | undefined;
}

/**
 * Starts the metrics port (if configured) and the HTTP server: the runs API, SSE, the console, and /mcp when `mcp` is
 * given.
 */
export async function listenHttp(
  serving: Serving,
  extra: { mcp?: (req: IncomingMessage, res: ServerResponse, caller: McpCaller) => Promise<void> } = {},
): Promise<Listening> {
  const { settings, logger, metrics, host, port } = serving;
  const metricsPort = settings.server.metricsPort;
  let metricsServer: { url: string; close(): Promise<void> } | undefined;
  if (metricsPort !== undefined) {
    metricsServer = await startMetricsServer({
      metrics: () => metrics.render(),
      host: settings.server.metricsHost ?? '127.0.0.1',
      port: metricsPort,
      log: ({ level, msg, ...fields }) => logger[level](fields, msg),
    }).catch((error: unknown) => {
      const code = error instanceof Error && 'code' in error ? error.code : undefined;
      if (code === 'EADDRINUSE')
        throw usageError(
          `server.metricsPort ${metricsPort} is already in use; choose another port (0 picks a free one)`,
        );
      throw error;
    });
    logger.info({ url: `${metricsServer.url}/metrics` }, 'metrics served on their own port');
  }
  const http = await startHttpServer({
    service: serving.manager,
    store: serving.store,
    apiKeys: serving.apiKeys,
    host,
    port,
    ...(settings.server.heartbeatMs === undefined ? {} : { heartbeatMs: settings.server.heartbeatMs }),
    ...(settings.server.sseBufferLimitBytes === undefined
      ? {}
      : { sseBufferLimitBytes: settings.server.sseBufferLimitBytes }),
    ...(settings.server.maxBodyBytes === undefined ? {} : { maxBodyBytes: settings.server.maxBodyBytes }),
    ...(settings.server.sseIdleTimeoutMs === undefined ? {} : { sseIdleTimeoutMs: settings.server.sseIdleTimeoutMs }),
    ...(settings.server.sseHistoryTimeoutMs === undefined
      ? {}
      : { sseHistoryTimeoutMs: settings.server.sseHistoryTimeoutMs }),
    ...(settings.server.ssePollMs === undefined ? {} : { ssePollMs: settings.server.ssePollMs }),
    corsOrigins: settings.server.cors?.origins,
    sessionSecret: settings.server.sessionSecret,
    sessionTtlSeconds: settings.server.sessionTtlSeconds,
    ...authBackoffFrom(settings.server.authBackoff),
    trustedProxies: settings.server.trustedProxies,
    onAuthEvent: (event) => metrics.authEvent(event),
    log: ({ level, msg, ...fields }) => logger[level](fields, msg),
    metrics: () => metrics.render(),
    stats: (filter) => serving.toolgate.stats.snapshot(filter),
    ...(metricsServer === undefined ? {} : { metricsElsewhere: metricsServer.url }),
    ...(extra.mcp === undefined
      ? {}
      : { mcp: extra.mcp, mcpEndpoints: Object.keys(settings.gatewayConfig.endpoints ?? {}) }),
    consoleDir: consoleDir(),
    chat: settings.chat,
    oidc: serving.oidc,
    resource: serving.resource,
    // Decisions from a notification's links: the same secret signs and checks them, decided through the runs' path.
    approvalLinks: createApprovalLinks({
      secret: serving.approvals.linkSecret,
      runs: serving.manager,
      store: serving.store,
    }),
  }).catch(async (error: unknown) => {
    await metricsServer?.close();
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'EADDRINUSE')
      throw usageError(
        `port ${port} on ${host} is already in use; pass --port N (0 picks a free one) or stop the other process`,
      );
    if (code === 'EACCES') throw usageError(`not allowed to listen on ${host}:${port}; use a port above 1023`);
    throw error;
  });
  serving.url.value = http.url;
  metrics.sse = () => http.sseStats();
  // An issuer that is down is a warning, not a reason to stay down: its tokens get a clear 503 until it answers.
  if (serving.oidc !== undefined) void checkIssuers(serving.oidc, (message) => logger.warn(message));
  return { http, metricsServer };
}

/**
 * Starts notifications and approval timeouts (a no-op without `approvals.notify`/`timeoutMs`); close the result on
 * shutdown, before the manager stops.
 */
export async function startApprovals(serving: Serving): Promise<{ close(): Promise<void> }> {
  const { approvals, logger, manager } = serving;
  if (approvals.active && approvals.randomSecret)
    logger.warn(
      'no approvals.linkSecret (nor server.sessionSecret): decision links are signed with a random secret and stop ' +
        'working when this process restarts; set approvals.linkSecret (env:NAME)',
    );
  await approvals.start({
    store: serving.store,
    serverUrl: () => serving.url.value,
    decide: (runId, input) => manager.submitInput({}, runId, input),
    knownTools: () => serving.toolgate.tools.knownTools(),
    log: (level, message, fields) => logger[level](fields ?? {}, message),
  });
  return approvals;
}

/** `server.authBackoff` as the HTTP server takes it (the store's limits count the failures). */
function authBackoffFrom(config: Settings['server']['authBackoff']): { authBackoff?: false | AuthBackoffSettings } {
  if (config === undefined) return {};
  const { enabled, ...settings } = config;
  return { authBackoff: enabled === false ? false : settings };
}

function observeBoth(
  a: (events: readonly RunEvent[]) => void,
  b: (events: readonly RunEvent[]) => void,
): (events: readonly RunEvent[]) => void {
  return (events) => {
    a(events);
    b(events);
  };
}

/** The demo: the power-exchange example and the scripted demo model, unless configured otherwise. */
export function withDemoDefaults(settings: Settings): Settings {
  const servers =
    Object.keys(settings.servers).length > 0
      ? settings.servers
      : { 'power-exchange': { command: process.execPath, args: [...DEMO_SERVER_ARGS] } };
  return { ...settings, servers, model: settings.model ?? `scripted:${DEMO_SCRIPT}` };
}

export function waitForStop(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => undefined);
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function portFrom(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw usageError(`--port must be 0–65535, got "${value}"`);
  return n;
}

function positive(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usageError(`${flag} must be a positive integer, got "${value}"`);
  return n;
}
