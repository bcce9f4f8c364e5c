import type { RolloutFigures, StatsFigures, StatsFilter, StatsKey, StatsRow, StatsSnapshot } from '../../core/index.ts';
import { StatsTally } from './stats-tally.ts';
import { BUCKETS_PER_WINDOW, type StatsWindow } from './stats-window.ts';

/** The window's figures as GET /v1/stats answers them: rows sorted by key, totals of the rows, series per bucket. */
export function snapshotOf(options: {
  window: StatsWindow;
  windowMs: number;
  now: number;
  filter: StatsFilter;
  rollouts: (tenant: string | undefined) => RolloutFigures[];
}): StatsSnapshot {
  const { window, now, filter } = options;
  const windowRows = window.rows(now, filter).sort((a, b) => compareKeys(a.key, b.key));
  const totals = new StatsTally();
  const totalBuckets = Array.from({ length: BUCKETS_PER_WINDOW }, () => new StatsTally());
  const rows: StatsRow[] = windowRows.map((row) => {
    totals.merge(row.merged);
    row.perBucket.forEach((tally, i) => {
      if (tally !== undefined) totalBuckets[i]?.merge(tally);
    });
    return { ...row.key, ...row.merged.figures(seriesOf(row.perBucket)) };
  });
  return {
    windowMs: options.windowMs,
    bucketMs: window.bucketMs,
    since: new Date(window.firstIndex(now) * window.bucketMs).toISOString(),
    until: new Date(now).toISOString(),
    rows,
    totals: totals.figures(seriesOf(totalBuckets)),
    rollouts: options.rollouts(filter.tenant),
  };
}

function seriesOf(perBucket: readonly (StatsTally | undefined)[]): StatsFigures['series'] {
  const series: StatsFigures['series'] = { completed: [], failed: [], toolP95Ms: [] };
  for (let i = 0; i < BUCKETS_PER_WINDOW; i++) {
    const tally = perBucket[i];
    series.completed.push(tally?.completed ?? 0);
    series.failed.push(tally?.failed ?? 0);
    series.toolP95Ms.push(tally?.tool.figures().p95 ?? 0);
  }
  return series;
}

function compareKeys(a: StatsKey, b: StatsKey): number {
  return (
    a.tenant.localeCompare(b.tenant) ||
    a.intent.localeCompare(b.intent) ||
    a.strategy.localeCompare(b.strategy) ||
    a.model.localeCompare(b.model)
  );
}
