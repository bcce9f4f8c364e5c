import { describeStore } from '../app/open-store.ts';
import { EXIT, optionalString, parseFlags, usageError, type CliIO } from './cli-io.ts';
import { createServeLogger, resolveLogLevel } from './serve-logger.ts';
import { authHeader } from './serve-run-log.ts';
import { listenHttp, openServing, startApprovals, waitForStop } from './serving.ts';
import { SERVE_SPEC } from './specs/serve-spec.ts';
import { toolHealthSummary } from './serve-tool-health.ts';
import { startServeRetention } from './serve-retention.ts';

/**
 * `toolgate serve`: the runs API (HTTP + SSE) on a durable store. Runs that
 * were interrupted by a stop or a crash are resumed from their logs at start.
 * SIGTERM/SIGINT: stop taking runs, let running ones reach a safe point, close
 * MCP servers and the store.
 */
export async function serveCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, SERVE_SPEC);
  if (positionals.length > 0) throw usageError(`toolgate serve takes no arguments (got ${positionals.join(' ')})`);
  const logger = createServeLogger({
    io,
    level: resolveLogLevel({ flag: optionalString(values, 'log-level'), env: io.env }),
  });
  const serving = await openServing(values, io, logger);
  const { settings, apiKeys, toolgate, manager, storeSpec } = serving;
  try {
    // Rollbacks recorded before this start (or by other instances) hold from the first run on.
    toolgate.rollouts.onRolledBack(({ message, ...fields }) => logger.warn(fields, message));
    await toolgate.rollouts.refresh();
    const { http, metricsServer } = await listenHttp(serving);
    const recovered = await manager.recover();
    const approvals = await startApprovals(serving);
    io.stdout.write(
      `toolgate serving on ${http.url}  (store ${describeStore(storeSpec)}, ` +
        `model ${settings.model ?? 'none: pass "model" per run'})\n`,
    );
    io.stdout.write(
      `  console: ${http.url}/${apiKeys.length > 0 ? '  (sign in with an API key of your tenant)' : ''}\n`,
    );
    const summary = toolHealthSummary(serving.tools);
    if (summary !== undefined) io.stdout.write(`  ${summary}\n`);
    if (apiKeys.length === 0 && serving.oidc === undefined)
      logger.warn(
        `no API keys configured: listening on loopback only ` +
          `(${serving.host}); add tenants.<id>.apiKeys to accept other machines`,
      );
    if (recovered.length > 0) logger.info({ runIds: recovered }, `resuming ${recovered.length} interrupted run(s)`);
    // Retention (docs/observability.md): on a timer that does not keep the process alive; stopped before the store.
    const retention = startServeRetention({ store: serving.store, retention: settings.retention, logger });
    if (values['demo'] === true && settings.model?.startsWith('scripted:') === true) {
      logger.info(
        'demo: the model is SCRIPTED (examples/demo/demo-script.json), the power-exchange tools are real; ' +
          ('its order waits for approval, and the log prints the curl line that approves ' +
            'it. Use a real model with --model openai:<model> or model: in toolgate.yaml.'),
      );
    }
    const auth = authHeader(apiKeys.length > 0);
    io.stdout.write(
      `  try: curl -N -X POST '${http.url}/v1/runs?stream=true' -H 'content-type: ` +
        `application/json'${auth} -d '{"input":"How is the market?"}'\n`,
    );
    if (auth !== '')
      io.stdout.write('       (export TOOLGATE_API_KEY=<one of the keys in tenants.<id>.apiKeys> first)\n');

    await waitForStop(io.signal);
    logger.info('stopping: no new runs; letting running steps reach a safe point');
    const graceMs = settings.server.shutdownGraceMs ?? 10_000;
    await Promise.all([approvals.close(), retention.stop()]);
    await Promise.all([http.close({ graceMs }), manager.shutdown({ graceMs }), metricsServer?.close()]);
    return EXIT.ok;
  } finally {
    await toolgate.close();
  }
}
