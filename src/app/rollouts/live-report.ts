import type { ArmFigures, RolloutFigures, StatsSnapshot } from '../../core/index.ts';
import { twoProportionTest } from './two-proportion-test.ts';

/** One rollout's treated and control arms over the window, their differences and the test of the failure rates. */
export interface RolloutComparison {
  name: string;
  treated: ArmFigures;
  control: ArmFigures;
  /** treated − control, where both arms have a figure. */
  difference: { completionRate?: number; failureRate?: number; avgCostUsd?: number; toolP95Ms?: number };
  /** Two-proportion z-test of the failure rates (absent while an arm has no ended run, or neither arm differs). */
  test?: { z: number; pValue: number };
  rolledBack?: NonNullable<RolloutFigures['rolledBack']>;
}

/** `toolgate eval --live --json`. */
export interface LiveReport {
  windowMs: number;
  since: string;
  until: string;
  rollouts: RolloutComparison[];
}

export function liveReport(snapshot: StatsSnapshot, only?: string): LiveReport {
  return {
    windowMs: snapshot.windowMs,
    since: snapshot.since,
    until: snapshot.until,
    rollouts: snapshot.rollouts.filter((r) => only === undefined || r.name === only).map(compareArms),
  };
}

export function compareArms(figures: RolloutFigures): RolloutComparison {
  const { treated, control } = figures;
  const test = twoProportionTest({ x: treated.failed, n: treated.ended }, { x: control.failed, n: control.ended });
  return {
    name: figures.name,
    treated,
    control,
    difference: {
      ...diff('completionRate', treated.completionRate, control.completionRate),
      ...diff('failureRate', treated.failureRate, control.failureRate),
      ...diff('avgCostUsd', treated.avgCostUsd, control.avgCostUsd),
      ...diff('toolP95Ms', treated.toolLatencyMs.p95, control.toolLatencyMs.p95),
    },
    ...(test === undefined ? {} : { test }),
    ...(figures.rolledBack === undefined ? {} : { rolledBack: figures.rolledBack }),
  };
}

function diff<K extends string>(key: K, a: number | undefined, b: number | undefined): Partial<Record<K, number>> {
  if (a === undefined || b === undefined) return {};
  const out: Partial<Record<K, number>> = {};
  out[key] = a - b;
  return out;
}

/** The comparison as a table per rollout, with a line on the test and on a rollback. */
export function renderLiveReport(report: LiveReport): string {
  const window = `${duration(report.windowMs)} (${report.since} – ${report.until})`;
  if (report.rollouts.length === 0)
    return `no rollout runs ended in the last ${window}\n(rollouts are configured under rollout: in the config)\n`;
  const rows: string[][] = [['rollout', 'arm', 'ended', 'completed', 'failed', 'avg cost', 'p95 tool']];
  const notes = new Map<number, string[]>();
  for (const r of report.rollouts) {
    rows.push([r.name, 'treated', ...armCells(r.treated)], ['', 'control', ...armCells(r.control)]);
    const d = r.difference;
    rows.push([
      '',
      'difference',
      '',
      points(d.completionRate),
      points(d.failureRate),
      usd(d.avgCostUsd, true),
      ms(d.toolP95Ms, true),
    ]);
    const lines = [
      r.test === undefined
        ? '  p-value: – (an arm has no ended run, or no arm failed)'
        : `  p-value ${r.test.pValue.toFixed(3)}: the chance of a failure-rate gap at least this large ` +
          'if both arms failed equally often (two-proportion z-test)',
    ];
    if (r.rolledBack !== undefined)
      lines.push(
        `  rolled back at ${r.rolledBack.at}: ${percent(r.rolledBack.failureRate)} of treated runs failed ` +
          `(threshold ${percent(r.rolledBack.threshold)})`,
      );
    notes.set(rows.length - 1, lines);
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  const out = [`rollouts over the last ${window}`, ''];
  rows.forEach((row, index) => {
    out.push(
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
    out.push(...(notes.get(index) ?? []));
  });
  return `${out.join('\n')}\n`;
}

function armCells(arm: ArmFigures): string[] {
  return [
    String(arm.ended),
    arm.completionRate === undefined ? '–' : percent(arm.completionRate),
    arm.failureRate === undefined ? '–' : percent(arm.failureRate),
    usd(arm.avgCostUsd, false),
    ms(arm.toolLatencyMs.p95, false),
  ];
}

/** 90 min, 24 h, 7 d. */
function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes % 1440 === 0) return `${minutes / 1440} d`;
  if (minutes % 60 === 0 && minutes > 60) return `${minutes / 60} h`;
  return `${minutes} min`;
}

function percent(rate: number): string {
  return `${Math.round(rate * 100)}%`;
}

/** A difference of rates, in percentage points. */
function points(delta: number | undefined): string {
  return delta === undefined ? '–' : `${delta >= 0 ? '+' : ''}${Math.round(delta * 100)} pp`;
}

function usd(value: number | undefined, signed: boolean): string {
  if (value === undefined) return '–';
  return `${signed && value >= 0 ? '+' : ''}${value < 0 ? '-' : ''}$${Math.abs(value).toFixed(4)}`;
}

function ms(value: number | undefined, signed: boolean): string {
  if (value === undefined) return '–';
  return `${signed && value >= 0 ? '+' : ''}${Math.round(value)} ms`;
}
