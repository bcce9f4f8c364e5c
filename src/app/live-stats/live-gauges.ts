import { Gauge, type Registry } from 'prom-client';
import type { StatsRow, StatsSnapshot } from '../../core/index.ts';

/** One snapshot serves every live gauge of a scrape. */
const SNAPSHOT_REUSE_MS = 500;
const LABELS = ['tenant', 'intent', 'strategy', 'model'] as const;
type Label = (typeof LABELS)[number];

/**
 * The live statistics' window figures as gauges, computed at scrape time from the snapshot (docs/observability.md):
 * labels are the rows' keys, bounded by the statistics' key cap.
 */
export function registerLiveGauges(options: { snapshot: () => StatsSnapshot; registry: Registry }): void {
  const registers = [options.registry];
  let last: { at: number; snapshot: StatsSnapshot } | undefined;
  const rows = (): StatsRow[] => {
    const now = Date.now();
    if (last === undefined || now - last.at > SNAPSHOT_REUSE_MS) last = { at: now, snapshot: options.snapshot() };
    return last.snapshot.rows;
  };
  const gauge = (metric: { name: string; help: string; value: (row: StatsRow) => number | undefined }): void => {
    const g: Gauge<Label> = new Gauge({
      name: metric.name,
      help: metric.help,
      labelNames: LABELS,
      registers,
      collect: () => {
        // Keys that left the window leave the exposition too.
        g.reset();
        for (const row of rows()) {
          const value = metric.value(row);
          if (value !== undefined) g.set(labelsOf(row), value);
        }
      },
    });
  };
  const runs: Gauge<Label | 'outcome'> = new Gauge({
    name: 'toolgate_live_runs',
    help: 'Runs that ended in the live statistics window, by outcome (completed, failed, cancelled)',
    labelNames: [...LABELS, 'outcome'],
    registers,
    collect: () => {
      runs.reset();
      for (const row of rows())
        for (const outcome of ['completed', 'failed', 'cancelled'] as const)
          runs.set({ ...labelsOf(row), outcome }, row.runs[outcome]);
    },
  });
  gauge({
    name: 'toolgate_live_completion_ratio',
    help: 'Completed / ended runs in the live statistics window (no sample when none ended)',
    value: (row) => row.completionRate,
  });
  gauge({
    name: 'toolgate_live_tool_latency_p95_seconds',
    help: '95th percentile of tool-call latency in the live statistics window',
    value: (row) => seconds(row.toolLatencyMs.p95),
  });
  gauge({
    name: 'toolgate_live_model_latency_p95_seconds',
    help: '95th percentile of model-call latency in the live statistics window',
    value: (row) => seconds(row.modelLatencyMs.p95),
  });
  gauge({
    name: 'toolgate_live_cost_usd',
    help: 'Model cost in US dollars at the configured prices in the live statistics window',
    value: (row) => row.costUsd,
  });
}

function labelsOf(row: StatsRow): Record<Label, string> {
  return { tenant: row.tenant, intent: row.intent, strategy: row.strategy, model: row.model };
}

function seconds(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : ms / 1000;
}
