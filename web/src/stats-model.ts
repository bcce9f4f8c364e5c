// What the Stats view shows, shaped from GET /v1/stats (a StatsSnapshot) by pure functions: the filters' choices, the
// totals as lines of text, one line per row with its sparkline series, and the per-strategy bars. The view only draws.
import type { LatencyFigures, StatsFigures, StatsRow, StatsSnapshot } from '../../src/core/stats.ts';

/** The dimensions the view filters by; '' is "any". */
export const STATS_FILTER_KEYS = ['tenant', 'strategy', 'model'] as const;
export type StatsFilterKey = (typeof STATS_FILTER_KEYS)[number];
export type StatsChoice = Record<StatsFilterKey, string>;
export type FilterOptions = Record<StatsFilterKey, string[]>;

export const NO_CHOICE: StatsChoice = { tenant: '', strategy: '', model: '' };

/** One figure of the totals: `value` is the raw number (for tests and titles), `text` what the page shows. */
export interface FigureLine {
  name: string;
  label: string;
  text: string;
  value?: number;
}

/** uPlot's data: x (seconds since the epoch, one per bucket), then one array per series. */
export type ChartData = [number[], ...(number | null)[][]];

export interface RowLine {
  /** tenant · intent · strategy · model */
  key: string;
  row: StatsRow;
  cells: { ended: number; completionRate: string; failed: number; toolP95: string; costUsd: string };
  /** x, completed, failed */
  outcomes: ChartData;
  /** x, tool p95 in ms */
  toolP95: ChartData;
}

export interface StrategyBars {
  strategies: string[];
  /** 0..100 per strategy; null when none of its runs ended. */
  completionPercent: (number | null)[];
  /** The highest tool p95 among the strategy's rows (exact when it has one row); null without tool calls. */
  toolP95Ms: (number | null)[];
}

/**
 * The selects' options: every value seen in the rows so far (a filtered answer only holds the chosen value, so the
 * others are kept from earlier answers), the chosen one always included, sorted.
 */
export function filterOptions(
  snapshot: StatsSnapshot,
  options: { previous?: FilterOptions; choice?: StatsChoice } = {},
): FilterOptions {
  const pick = (key: StatsFilterKey): string[] => {
    const values = new Set(options.previous?.[key] ?? []);
    for (const row of snapshot.rows) values.add(row[key]);
    const chosen = options.choice?.[key] ?? '';
    if (chosen !== '') values.add(chosen);
    return [...values].sort();
  };
  return { tenant: pick('tenant'), strategy: pick('strategy'), model: pick('model') };
}

/** "No runs in the last 15 minutes." when nothing started or ended in the window; undefined otherwise. */
export function emptyMessage(snapshot: StatsSnapshot): string | undefined {
  const { runs } = snapshot.totals;
  const none = runs.started + runs.completed + runs.failed + runs.cancelled === 0 && snapshot.rows.length === 0;
  return none ? `No runs in the last ${formatWindow(snapshot.windowMs)}.` : undefined;
}

export function formatWindow(ms: number): string {
  const minutes = ms / 60_000;
  if (minutes < 1) return plural(Math.round(ms / 1000), 'second');
  if (minutes >= 120 && minutes % 60 === 0) return plural(minutes / 60, 'hour');
  return plural(Math.round(minutes * 10) / 10, 'minute');
}

function plural(n: number, unit: string): string {
  return n === 1 ? unit : `${n} ${unit}s`;
}

export function formatPercent(rate: number | undefined): string {
  return rate === undefined ? '—' : `${(rate * 100).toFixed(1)}%`;
}

export function formatCost(usd: number): string {
  return `$${usd.toFixed(usd !== 0 && usd < 0.01 ? 4 : 2)}`;
}

export function formatLatencyMs(ms: number | undefined): string {
  if (ms === undefined) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** `code 2, other 1` by count, most first; `none` when empty. */
export function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  return entries.length === 0 ? 'none' : entries.map(([code, n]) => `${code} ${n}`).join(', ');
}

function latency(figures: LatencyFigures): string {
  if (figures.count === 0) return 'no calls';
  return `p50 ${formatLatencyMs(figures.p50)} · p95 ${formatLatencyMs(figures.p95)} (${figures.count} calls)`;
}

function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/** The totals as the page lists them, in order. */
export function totalsLines(totals: StatsFigures): FigureLine[] {
  const { runs } = totals;
  const lines: FigureLine[] = [
    {
      name: 'runs',
      label: 'Runs',
      text:
        `${runs.started} started · ${runs.completed} completed · ` +
        `${runs.failed} failed · ${runs.cancelled} cancelled`,
      value: runs.completed + runs.failed + runs.cancelled,
    },
    {
      name: 'completion-rate',
      label: 'Completion rate',
      text: formatPercent(totals.completionRate),
      ...(totals.completionRate === undefined ? {} : { value: totals.completionRate }),
    },
    { name: 'failures', label: 'Failures', text: formatCounts(totals.failures), value: sum(totals.failures) },
    { name: 'guard-trips', label: 'Guard trips', text: formatCounts(totals.guardTrips), value: sum(totals.guardTrips) },
    {
      name: 'approvals',
      label: 'Approvals',
      text: `${totals.approvals.asked} asked · ${totals.approvals.rejected} rejected`,
      value: totals.approvals.asked,
    },
    { name: 'steps', label: 'Model calls', text: String(totals.steps), value: totals.steps },
    {
      name: 'tokens',
      label: 'Tokens',
      text: `${totals.tokens.input} in · ${totals.tokens.output} out`,
      value: totals.tokens.input + totals.tokens.output,
    },
    { name: 'cost', label: 'Cost', text: formatCost(totals.costUsd), value: totals.costUsd },
    { name: 'model-latency', label: 'Model latency', text: latency(totals.modelLatencyMs) },
    { name: 'tool-latency', label: 'Tool latency', text: latency(totals.toolLatencyMs) },
  ];
  return lines;
}

/** The x values of a window's buckets: the start of each, in seconds, the last one ending at `until`. */
export function bucketTimes(snapshot: StatsSnapshot, count: number): number[] {
  const until = Date.parse(snapshot.until);
  return Array.from({ length: count }, (_, i) => (until - (count - i) * snapshot.bucketMs) / 1000);
}

/** One line per row, most runs ended first. */
export function rowLines(snapshot: StatsSnapshot): RowLine[] {
  return snapshot.rows
    .map((row) => {
      const ended = row.runs.completed + row.runs.failed + row.runs.cancelled;
      const x = bucketTimes(snapshot, row.series.completed.length);
      return {
        key: [row.tenant, row.intent, row.strategy, row.model].join(' · '),
        row,
        cells: {
          ended,
          completionRate: formatPercent(row.completionRate),
          failed: row.runs.failed,
          toolP95: formatLatencyMs(row.toolLatencyMs.p95),
          costUsd: formatCost(row.costUsd),
        },
        outcomes: [x, row.series.completed, row.series.failed] satisfies ChartData,
        toolP95: [bucketTimes(snapshot, row.series.toolP95Ms.length), row.series.toolP95Ms] satisfies ChartData,
      };
    })
    .sort((a, b) => b.cells.ended - a.cells.ended || a.key.localeCompare(b.key));
}

/** Completion rate and tool p95 per strategy, strategies sorted by name. */
export function strategyBars(snapshot: StatsSnapshot): StrategyBars {
  const byStrategy = new Map<string, { ended: number; completed: number; p95?: number }>();
  for (const row of snapshot.rows) {
    const entry = byStrategy.get(row.strategy) ?? { ended: 0, completed: 0 };
    entry.ended += row.runs.completed + row.runs.failed + row.runs.cancelled;
    entry.completed += row.runs.completed;
    const p95 = row.toolLatencyMs.p95;
    if (p95 !== undefined && row.toolLatencyMs.count > 0) entry.p95 = Math.max(entry.p95 ?? 0, p95);
    byStrategy.set(row.strategy, entry);
  }
  const strategies = [...byStrategy.keys()].sort();
  return {
    strategies,
    completionPercent: strategies.map((s) => {
      const entry = byStrategy.get(s);
      return entry === undefined || entry.ended === 0 ? null : (100 * entry.completed) / entry.ended;
    }),
    toolP95Ms: strategies.map((s) => byStrategy.get(s)?.p95 ?? null),
  };
}
