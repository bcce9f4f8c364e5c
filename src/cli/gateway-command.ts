import { describeStore } from '../app/open-store.ts';
import { EXIT, optionalString, parseFlags, usageError, type CliIO } from './cli-io.ts';
import { createServeLogger, resolveLogLevel } from './serve-logger.ts';
import { toolHealthSummary } from './serve-tool-health.ts';
import { listenHttp, openServing, startApprovals, waitForStop, type Listening } from './serving.ts';
import { GATEWAY_SPEC } from './specs/gateway-spec.ts';

/**
 * `toolgate gateway`: the configured MCP servers as one MCP server, every
 * tools/call through the gate, each client session recorded as a run. Over
 * HTTP (/mcp beside the runs API) and/or stdio. SIGTERM/SIGINT, or the stdio
 * client going away: sessions end (their runs complete), then everything closes.
 */
export async function gatewayCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, GATEWAY_SPEC);
  if (positionals.length > 0) throw usageError(`toolgate gateway takes no arguments (got ${positionals.join(' ')})`);
  const stdio = values['stdio'] === true;
  const tenantFlag = optionalString(values, 'tenant');
  const userFlag = optionalString(values, 'user');
  const endpointFlag = optionalString(values, 'endpoint');
  if (!stdio && (tenantFlag !== undefined || userFlag !== undefined || endpointFlag !== undefined)) {
    throw usageError(
      '--tenant, --user and --endpoint set the identity of a --stdio session; over ' +
        'HTTP each client is identified by its API key (tenants.<id>.apiKeys) and its path names the endpoint',
    );
  }
  // With --stdio, stdout carries MCP messages only: what is said goes to stderr.
  const say = stdio ? io.stderr : io.stdout;
  const logger = createServeLogger({
    io,
    level: resolveLogLevel({ flag: optionalString(values, 'log-level'), env: io.env }),
  });
  const serving = await openServing(values, io, logger);
  const { settings, toolgate, manager } = serving;
  try {
    if (Object.keys(settings.servers).length === 0) {
      throw usageError(
        'toolgate gateway: no MCP servers configured; add --mcp "<command ' +
          'line>" or --mcp <url>, or a servers: section in toolgate.yaml',
      );
    }
    const { createGateway } = await import('../app/create-gateway.ts');
    const app = createGateway({
      toolgate,
      config: settings.gatewayConfig,
      dryRun: values['dry-run'] === true,
      identity: { tenantId: tenantFlag, userId: userFlag, endpoint: endpointFlag },
      onEvents: serving.observe,
      onError: (message) => logger.error(message),
    });
    let listening: Listening | undefined;
    if (!stdio || optionalString(values, 'port') !== undefined) {
      listening = await listenHttp(serving, {
        mcp: (req, res, caller) => app.http.handle(req, res, { ...caller, dryRun: app.dryRunFor(caller.tenantId) }),
      });
    }
    // Sessions of a gateway that stopped without ending them are ended here (their clients are gone).
    await manager.recover();
    const approvals = await startApprovals(serving);
    const lost = await app.sweepLostSessions();
    if (lost.length > 0)
      logger.warn({ runIds: lost }, `ended ${lost.length} gateway session(s) left waiting by a gateway that went away`);
    // Another gateway sharing the store may go away later: its waiting sessions are ended once its leases expire.
    const sweeper = setInterval(() => {
      void app.sweepLostSessions().then(
        (ended) =>
          ended.length > 0 &&
          logger.warn(
            { runIds: ended },
            `ended ${ended.length} gateway session(s) left waiting by a gateway that went away`,
          ),
        (error: unknown) => logger.error(`sweep for lost gateway sessions failed: ${String(error)}`),
      );
    }, 2 * toolgate.engine.leaseMs);
    sweeper.unref();
    const stdioHandle = stdio ? app.serveStdio() : undefined;
    const where = [
      ...(stdioHandle === undefined ? [] : ['MCP on stdio']),
      ...(listening === undefined
        ? []
        : [`MCP at ${listening.http.url}/mcp, runs API and console at ${listening.http.url}/`]),
    ];
    say.write(`toolgate gateway: ${where.join('; ')}  (store ${describeStore(serving.storeSpec)})\n`);
    const summary = toolHealthSummary(serving.tools);
    if (summary !== undefined) say.write(`  ${summary}\n`);
    if (listening !== undefined && serving.apiKeys.length === 0 && serving.oidc === undefined)
      logger.warn(
        `no API keys configured: listening on loopback only ` +
          `(${serving.host}); add tenants.<id>.apiKeys to accept other machines`,
      );

    const reason = await Promise.race([
      waitForStop(io.signal).then(() => 'the gateway was stopped'),
      ...(stdioHandle === undefined ? [] : [stdioHandle.closed]),
    ]);
    logger.info(`stopping: ${reason}; ending gateway sessions`);
    clearInterval(sweeper);
    await approvals.close();
    const graceMs = settings.server.shutdownGraceMs ?? 10_000;
    await stdioHandle?.close(reason);
    await app.close(reason);
    await Promise.all([
      listening?.http.close({ graceMs }),
      manager.shutdown({ graceMs }),
      listening?.metricsServer?.close(),
    ]);
    return EXIT.ok;
  } finally {
    await toolgate.close();
  }
}
