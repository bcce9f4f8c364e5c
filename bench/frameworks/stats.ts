// From the children's results to the figures the report shows: per runner and
// workload, each repetition against its baseline (the one measured paired with
// it, else the one of the same repetition), then the median over repetitions.
import type { ChildOutcome } from './processes.ts';
import type { ChildResult } from './child.ts';

/** The figures of one runner on one workload (medians over repetitions). */
export interface Figures {
  runsPerSec: number;
  usPerStep: number;
  /** (runner wall − baseline wall) / steps, in µs. */
  overheadUsPerStep: number;
  /** runner wall ÷ baseline wall. */
  xBaseline: number;
  /**
   * Against the hand-written loop on undici's dispatcher (the floor), per step: for a toolgate runner measured in a
   * group with that loop (pairedUndici), directly against it; else this × baseline ÷ that loop's, on the same
   * workload (set by withUndiciLoopRatios when that loop was run). xUndiciLoopFrom says which.
   */
  xUndiciLoop?: number;
  /** 'group': measured in blocks taken in turn with the undici loop; 'ratios': the ratio of two × baseline. */
  xUndiciLoopFrom?: 'group' | 'ratios';
  cpuUsPerStep: number;
  p50Ms: number;
  p99Ms: number;
  /** Median first-token latency, ms (sequential streaming workloads only). */
  firstTokenMs?: number;
  /** First-token latency beyond the baseline's, µs. */
  firstTokenAddedUs?: number;
  rssReadyMb: number;
  peakRssMb: number;
  startupMs: number;
  repetitions: number;
  refusedHosts?: string[];
}

export interface Cell {
  runner: string;
  workload: string;
  figures?: Figures;
  /** Set when no repetition succeeded; else the failures of some repetitions, if any. */
  errors: string[];
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
}

interface PerRep {
  runsPerSec: number;
  usPerStep: number;
  overheadUsPerStep: number;
  xBaseline: number;
  /** Against the undici loop of its group, when it had one. */
  xUndiciLoop?: number;
  cpuUsPerStep: number;
  p50Ms: number;
  p99Ms: number;
  firstTokenMs?: number;
  firstTokenAddedUs?: number;
  rssReadyMb: number;
  peakRssMb: number;
  startupMs: number;
}

/**
 * The baseline a runner is compared with: the one measured in alternating
 * blocks with it (paired), else the one run alone in the same repetition.
 */
function referenceOf(
  result: ChildResult,
  baseline: ChildResult | undefined,
): { wallMs: number; firstTokenMs?: number[] } | undefined {
  return result.pairedBaseline ?? baseline;
}

function perRep(result: ChildResult, baseline: ChildResult | undefined): PerRep {
  const reference = referenceOf(result, baseline);
  const firstToken = result.firstTokenMs === undefined ? undefined : median(result.firstTokenMs);
  const baseFirst = reference?.firstTokenMs === undefined ? undefined : median(reference.firstTokenMs);
  const undici = result.pairedUndici;
  return {
    runsPerSec: result.runs / (result.wallMs / 1000),
    usPerStep: (result.wallMs * 1000) / result.steps,
    overheadUsPerStep:
      reference === undefined ? Number.NaN : ((result.wallMs - reference.wallMs) * 1000) / result.steps,
    xBaseline: reference === undefined ? Number.NaN : result.wallMs / reference.wallMs,
    // Per step, though both made the same steps (child.ts checks them against the workload).
    ...(undici === undefined ? {} : { xUndiciLoop: result.wallMs / result.steps / (undici.wallMs / undici.steps) }),
    cpuUsPerStep: (result.cpuMs * 1000) / result.steps,
    p50Ms: percentile(result.durationsMs, 50),
    p99Ms: percentile(result.durationsMs, 99),
    ...(firstToken === undefined ? {} : { firstTokenMs: firstToken }),
    ...(firstToken === undefined || baseFirst === undefined
      ? {}
      : { firstTokenAddedUs: (firstToken - baseFirst) * 1000 }),
    rssReadyMb: result.rssReadyMb,
    peakRssMb: result.peakRssMb,
    startupMs: result.startupMs,
  };
}

type Optional = 'firstTokenMs' | 'firstTokenAddedUs' | 'xUndiciLoop';

function optionalMedian(reps: PerRep[], key: Optional): number | undefined {
  const xs = reps.map((r) => r[key]).filter((x): x is number => x !== undefined);
  return xs.length === 0 ? undefined : median(xs);
}

/**
 * One cell per runner and workload. `outcomes[rep]` holds that repetition's
 * outcomes by runner and workload; each figure is compared with the baseline
 * of its own repetition (a noisy machine drifts between repetitions).
 */
export function aggregate(options: {
  outcomes: Map<string, ChildOutcome>[];
  runners: string[];
  workloads: string[];
  baseline: string;
}): Cell[] {
  const key = (runner: string, workload: string) => `${runner} ${workload}`;
  const cells: Cell[] = [];
  for (const workload of options.workloads) {
    for (const runner of options.runners) {
      const reps: PerRep[] = [];
      const errors: string[] = [];
      const refused = new Set<string>();
      for (const outcomes of options.outcomes) {
        const outcome = outcomes.get(key(runner, workload));
        if (outcome === undefined) continue;
        if (!outcome.ok) {
          errors.push(outcome.error);
          continue;
        }
        for (const host of outcome.refusedHosts ?? []) refused.add(host);
        const base = outcomes.get(key(options.baseline, workload));
        reps.push(perRep(outcome, base?.ok === true ? base : undefined));
      }
      if (reps.length === 0) {
        cells.push({ runner, workload, errors });
        continue;
      }
      const m = (k: Exclude<keyof PerRep, Optional>) => median(reps.map((r) => r[k]));
      const firstTokenMs = optionalMedian(reps, 'firstTokenMs');
      const firstTokenAddedUs = optionalMedian(reps, 'firstTokenAddedUs');
      const xUndiciLoop = optionalMedian(reps, 'xUndiciLoop');
      const figures: Figures = {
        runsPerSec: m('runsPerSec'),
        usPerStep: m('usPerStep'),
        overheadUsPerStep: m('overheadUsPerStep'),
        xBaseline: m('xBaseline'),
        ...(xUndiciLoop === undefined ? {} : { xUndiciLoop, xUndiciLoopFrom: 'group' }),
        cpuUsPerStep: m('cpuUsPerStep'),
        p50Ms: m('p50Ms'),
        p99Ms: m('p99Ms'),
        ...(firstTokenMs === undefined ? {} : { firstTokenMs }),
        ...(firstTokenAddedUs === undefined ? {} : { firstTokenAddedUs }),
        rssReadyMb: m('rssReadyMb'),
        peakRssMb: m('peakRssMb'),
        startupMs: m('startupMs'),
        repetitions: reps.length,
        ...(refused.size > 0 ? { refusedHosts: [...refused] } : {}),
      };
      cells.push({ runner, workload, figures, errors });
    }
  }
  return cells;
}

/**
 * One runner against another on one workload, each against the fetch baseline measured with it: the ratio of their
 * × baseline, free of the machine's drift between the two measurements (each was paired with a baseline of its own).
 * undefined when either was not measured.
 */
export function loopRatio(cells: Cell[], of: { runner: string; loop: string; workload: string }): number | undefined {
  const figures = (runner: string) => cells.find((c) => c.runner === runner && c.workload === of.workload)?.figures;
  const mine = figures(of.runner)?.xBaseline;
  const loop = figures(of.loop)?.xBaseline;
  return mine === undefined || loop === undefined || !Number.isFinite(mine / loop) ? undefined : mine / loop;
}

/**
 * The cells with `xUndiciLoop` set on every runner's figures where `loop` was measured (the loop's own: 1): as the
 * ratio of the two × baseline, for the runners not measured in a group with the loop (those keep their own).
 */
export function withUndiciLoopRatios(cells: Cell[], loop: string): Cell[] {
  return cells.map((cell) => {
    if (cell.figures?.xUndiciLoop !== undefined) return cell;
    const ratio = loopRatio(cells, { runner: cell.runner, loop, workload: cell.workload });
    return cell.figures === undefined || ratio === undefined
      ? cell
      : { ...cell, figures: { ...cell.figures, xUndiciLoop: ratio, xUndiciLoopFrom: 'ratios' } };
  });
}
