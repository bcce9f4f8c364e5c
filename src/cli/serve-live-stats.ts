import type { Logger } from 'pino';
import { registerLiveGauges } from '../app/live-stats/live-gauges.ts';
import type { ToolgateMetrics } from '../app/metrics.ts';
import type { Toolgate } from '../app/toolgate.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { describeError } from '../core/index.ts';

/**
 * How long `serve` reads the live statistics' window back from the store before it opens the port anyway (the timer's
 * refreshes finish the job).
 */
export const DEFAULT_STATS_WARMUP_MS = 10_000;

/**
 * The live statistics of `serve` and `gateway`: the warm-up (the window read back from the store — runs of before a
 * restart, and of other instances), bounded by DEFAULT_STATS_WARMUP_MS; then the refresh timer (`stats.refreshMs`),
 * which Toolgate.close stops; and their gauges on /metrics.
 */
export async function startLiveStats(options: {
  toolgate: Toolgate;
  metrics: ToolgateMetrics;
  settings: Settings;
  logger: Logger;
}): Promise<void> {
  const { toolgate, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), DEFAULT_STATS_WARMUP_MS);
  });
  try {
    const warm = await Promise.race([toolgate.stats.refresh().then(() => 'done' as const), late]);
    if (warm === 'late')
      logger.warn(`live statistics: the window is still being read after ${DEFAULT_STATS_WARMUP_MS} ms; going on`);
  } catch (error) {
    logger.warn(`live statistics: the window could not be read from the store (${describeError(error)}); going on`);
  } finally {
    clearTimeout(timer);
  }
  const refreshMs = options.settings.stats?.refreshMs;
  toolgate.stats.start({
    ...(refreshMs === undefined ? {} : { refreshMs }),
    onError: (message) => logger.warn(message),
  });
  registerLiveGauges({ snapshot: () => toolgate.stats.snapshot(), registry: options.metrics.registry });
}
