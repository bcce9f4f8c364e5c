import type { ArmFigures, StatsFigures } from '../../core/index.ts';
import { LatencyHistogram } from './latency-histogram.ts';

/** What one key (or one rollout arm) gathered in one time bucket; merged over the window into figures. */
export class StatsTally {
  started = 0;
  completed = 0;
  failed = 0;
  cancelled = 0;
  readonly failures = new Map<string, number>();
  readonly guardTrips = new Map<string, number>();
  asked = 0;
  rejected = 0;
  steps = 0;
  inputTokens = 0;
  outputTokens = 0;
  costUsd = 0;
  /** The whole cost of the runs that ended in this bucket (for averages per run). */
  endedCostUsd = 0;
  readonly model = new LatencyHistogram();
  readonly tool = new LatencyHistogram();

  get ended(): number {
    return this.completed + this.failed + this.cancelled;
  }

  merge(other: StatsTally): this {
    this.started += other.started;
    this.completed += other.completed;
    this.failed += other.failed;
    this.cancelled += other.cancelled;
    addCounts(this.failures, other.failures);
    addCounts(this.guardTrips, other.guardTrips);
    this.asked += other.asked;
    this.rejected += other.rejected;
    this.steps += other.steps;
    this.inputTokens += other.inputTokens;
    this.outputTokens += other.outputTokens;
    this.costUsd += other.costUsd;
    this.endedCostUsd += other.endedCostUsd;
    this.model.merge(other.model);
    this.tool.merge(other.tool);
    return this;
  }

  /** Figures of this (merged) tally; `series` is given per bucket of the window by the caller. */
  figures(series: StatsFigures['series']): StatsFigures {
    const ended = this.ended;
    return {
      runs: { started: this.started, completed: this.completed, failed: this.failed, cancelled: this.cancelled },
      ...(ended === 0 ? {} : { completionRate: ratio(this.completed, ended) }),
      failures: Object.fromEntries([...this.failures].sort(([a], [b]) => a.localeCompare(b))),
      guardTrips: Object.fromEntries([...this.guardTrips].sort(([a], [b]) => a.localeCompare(b))),
      approvals: { asked: this.asked, rejected: this.rejected },
      steps: this.steps,
      tokens: { input: this.inputTokens, output: this.outputTokens },
      costUsd: roundUsd(this.costUsd),
      modelLatencyMs: this.model.figures(),
      toolLatencyMs: this.tool.figures(),
      series,
    };
  }

  /** Figures of a rollout arm: runs ended, their failure and completion rates, average cost and tool latency. */
  armFigures(): ArmFigures {
    const ended = this.ended;
    return {
      ended,
      failed: this.failed,
      ...(ended === 0
        ? {}
        : {
            failureRate: ratio(this.failed, ended),
            completionRate: ratio(this.completed, ended),
            avgCostUsd: roundUsd(this.endedCostUsd / ended),
          }),
      toolLatencyMs: this.tool.figures(),
    };
  }
}

/** Adds one to a count by name. */
export function bump(counts: Map<string, number>, name: string, by = 1): void {
  counts.set(name, (counts.get(name) ?? 0) + by);
}

function addCounts(into: Map<string, number>, from: ReadonlyMap<string, number>): void {
  for (const [name, n] of from) bump(into, name, n);
}

function ratio(part: number, whole: number): number {
  return Math.round((part / whole) * 10_000) / 10_000;
}

/** Micro-dollars: sums of many small costs stay exact enough without float noise in the JSON. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
