import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { pruneRuns } from '../app/retention/prune-runs.ts';
import type { Settings } from '../config/resolve-settings.ts';
import { describeError, type RunStore } from '../core/index.ts';

/** `retention.intervalMinutes` when unset. */
export const DEFAULT_RETENTION_INTERVAL_MINUTES = 60;
/** The first pass comes this long after start, once recovery and start-up work are out of the way. */
export const DEFAULT_RETENTION_FIRST_PASS_MS = 60_000;

export interface ServeRetentionOptions {
  store: RunStore;
  retention: Settings['retention'];
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Tests: sooner than DEFAULT_RETENTION_FIRST_PASS_MS. */
  firstPassMs?: number;
}

/**
 * `serve` applies the config's retention policy on a timer: every `retention.intervalMinutes` (default 60; 0: never),
 * the first pass a minute after start. Each pass archives into `retention.archiveDir` when set (a file per pass, named
 * by its time), prunes, compacts, and logs one line with the counts. A failed pass is logged and the next one tries
 * again. Passes never overlap; the timer does not keep the process alive. Returns the stop function (waits for a pass
 * in progress).
 */
export function startServeRetention(options: ServeRetentionOptions): { stop(): Promise<void> } {
  const { retention, logger } = options;
  const minutes = retention?.intervalMinutes ?? DEFAULT_RETENTION_INTERVAL_MINUTES;
  const hasPolicy =
    retention !== undefined &&
    (retention.completedAfterDays !== undefined ||
      retention.failedAfterDays !== undefined ||
      retention.cancelledAfterDays !== undefined);
  if (!hasPolicy || minutes === 0) return { stop: () => Promise.resolve() };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const schedule = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().finally(() => {
        running = undefined;
        schedule(minutes * 60_000);
      });
    }, ms);
    timer.unref();
  };
  const pass = async (): Promise<void> => {
    const now = new Date();
    const archive =
      retention.archiveDir === undefined
        ? undefined
        : join(retention.archiveDir, `runs-${now.toISOString().replaceAll(':', '-')}.jsonl.gz`);
    try {
      if (retention.archiveDir !== undefined) await mkdir(retention.archiveDir, { recursive: true });
      const report = await pruneRuns({
        store: options.store,
        policy: retention,
        now,
        // No VACUUM while serving: it would hold the process for the whole rewrite (`toolgate runs prune` compacts).
        compact: false,
        ...(archive === undefined ? {} : { archive }),
      });
      logger.info(
        { retention: report },
        `retention: pruned ${report.pruned} run(s) with ${report.events} event(s); ` +
          `kept ${report.keptOpen} not ended, ${report.keptApprovals} with approvals` +
          (report.archive === undefined ? '' : `; archived to ${report.archive.path}`),
      );
    } catch (error) {
      logger.warn(`retention: the pass failed: ${describeError(error)}; the next one tries again in ${minutes} min`);
    }
  };
  schedule(options.firstPassMs ?? DEFAULT_RETENTION_FIRST_PASS_MS);
  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
