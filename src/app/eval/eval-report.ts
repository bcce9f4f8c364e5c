import type { CaseResult } from './run-eval.ts';

export interface GroupSummary {
  strategy: string;
  model: string;
  passed: number;
  total: number;
  passRate: number;
  avgCostUsd: number;
  p50LatencyMs: number;
}

/** Per intent class and strategy, over every model: what the router reads. */
export interface IntentSummary {
  intent: string;
  strategy: string;
  passRate: number;
  avgCostUsd: number;
  runs: number;
}

export interface EvalReport {
  suite: string;
  finishedAt: string;
  results: CaseResult[];
  summary: GroupSummary[];
  byIntent: IntentSummary[];
}

export function buildReport(suite: string, results: readonly CaseResult[]): EvalReport {
  return {
    suite,
    finishedAt: new Date().toISOString(),
    results: [...results],
    summary: summarize(results),
    byIntent: summarizeByIntent(results),
  };
}

function summarize(results: readonly CaseResult[]): GroupSummary[] {
  const groups = new Map<string, CaseResult[]>();
  for (const r of results) {
    const key = `${r.strategy}\u0000${r.modelLabel}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()].map((rs) => {
    const passed = rs.filter((r) => r.passed).length;
    return {
      strategy: rs[0]?.strategy ?? '',
      model: rs[0]?.modelLabel ?? '',
      passed,
      total: rs.length,
      passRate: rs.length === 0 ? 0 : passed / rs.length,
      avgCostUsd: average(rs.map((r) => r.costUsd)),
      p50LatencyMs: median(rs.map((r) => r.latencyMs)),
    };
  });
}

function summarizeByIntent(results: readonly CaseResult[]): IntentSummary[] {
  const groups = new Map<string, CaseResult[]>();
  for (const r of results) {
    if (r.intent === undefined) continue;
    const key = `${r.intent}\u0000${r.strategy}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()].map((rs) => ({
    intent: rs[0]?.intent ?? '',
    strategy: rs[0]?.strategy ?? '',
    passRate: rs.filter((r) => r.passed).length / rs.length,
    avgCostUsd: average(rs.map((r) => r.costUsd)),
    runs: rs.length,
  }));
}

/** The summary as a table, then one line per failed run with its run id and what failed. */
export function renderReport(report: EvalReport): string {
  const rows = [
    ['strategy', 'model', 'passed', 'rate', 'avg cost', 'p50 latency'],
    ...report.summary.map((g) => [
      g.strategy,
      g.model,
      `${g.passed}/${g.total}`,
      `${Math.round(g.passRate * 100)}%`,
      `$${g.avgCostUsd.toFixed(4)}`,
      `${g.p50LatencyMs} ms`,
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const lines = rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const failed = report.results.filter((r) => !r.passed);
  if (failed.length > 0) {
    lines.push('', 'failed:');
    for (const r of failed)
      lines.push(
        `  ✗ ${r.case} [${r.strategy} × ${r.modelLabel} ` +
          `#${r.repeat}]${r.runId === '' ? '' : ` ${r.runId}`}: ${r.failures.join('; ')}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

function average(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : Math.round(((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2);
}
