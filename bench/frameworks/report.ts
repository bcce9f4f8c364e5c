// The comparison as text: one table per workload (runners as rows), the
// targets with their verdicts, and the machine and package versions; printed,
// and saved as bench/results/<date>-frameworks.md with a .json beside it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASELINE_UNDICI_ID, type RunnerEntry } from './runners-list.ts';
import type { Cell, Figures } from './stats.ts';
import { verdictLine, type Verdict } from './targets.ts';
import { MODEL_STEPS, TOOL_STEPS, type Workload } from './workload.ts';

/** A runner not run because a service it needs is missing (compare.ts checks before any child starts). */
export interface SkippedRunner {
  runner: string;
  /** Names the service without its password. */
  reason: string;
}

export interface ReportInput {
  date: string;
  machine: string;
  quick: boolean;
  repetitions: number;
  elapsedS: number;
  versions: [string, string][];
  /** Every runner selected, the skipped ones included: they are shown, with no figures. */
  runners: RunnerEntry[];
  skipped: SkippedRunner[];
  workloads: Workload[];
  cells: Cell[];
  verdicts: Verdict[];
  /** Each runner was measured in a group with a baseline of its own (compare.ts, measure-grouped.ts). */
  paired: boolean;
}

const HEAD = [
  'runner',
  'runs/s',
  'µs/step',
  '+µs/step vs baseline',
  '× baseline',
  '× undici loop',
  'CPU µs/step',
  'p50 ms',
  'p99 ms',
  '1st token +µs',
  'RSS ready MB',
  'RSS peak MB',
  'start-up ms',
];

function fixed(v: number | undefined, digits: number): string {
  return v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits);
}

/**
 * The × undici loop column: as measured in a group with that loop, or, marked `*` when paired, as the ratio of two
 * separately paired × baseline (the loop's own row is 1 by definition).
 */
function undiciLoopCell(input: ReportInput, runner: string, f: Figures): string {
  if (runner === BASELINE_UNDICI_ID && f.xUndiciLoop !== undefined) return '1.00';
  const marked = input.paired && f.xUndiciLoopFrom === 'ratios';
  return `${fixed(f.xUndiciLoop, 2)}${marked ? '*' : ''}`;
}

function signed(v: number | undefined): string {
  return v === undefined || !Number.isFinite(v) ? '–' : `${v >= 0 ? '+' : ''}${Math.round(v)}`;
}

/** A markdown table whose columns are padded, so that it also reads well in a terminal. */
function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length))) ?? [];
  const line = (r: string[]) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const [head, ...body] = rows;
  return [
    line(head ?? []),
    `|${widths.map((w, i) => (i === 0 ? ':' : '-').padEnd(w + 1, '-') + (i === 0 ? '-' : ':')).join('|')}|`,
    ...body.map(line),
  ];
}

export function describeWorkload(w: Workload): string {
  const how = w.concurrency === 1 ? 'sequential runs' : `runs, ${w.concurrency} at a time`;
  return (
    `${w.id}: ${w.runs} ${how}, ${w.tools === 1 ? '1 tool' : `${w.tools} tools`}, ` +
    `${w.stream ? 'streaming' : 'not streaming'}`
  );
}

function workloadTable(input: ReportInput, w: Workload): string[] {
  const rows: string[][] = [HEAD];
  const failures: string[] = [];
  for (const runner of input.runners) {
    if (input.skipped.some((s) => s.runner === runner.id)) {
      rows.push([runner.id, 'skipped', ...HEAD.slice(2).map(() => '')]);
      continue;
    }
    const cell = input.cells.find((c) => c.runner === runner.id && c.workload === w.id);
    if (cell === undefined) continue;
    const f = cell.figures;
    if (f === undefined) {
      rows.push([runner.id, 'FAILED', ...HEAD.slice(2).map(() => '')]);
      failures.push(`${runner.id} failed: ${(cell.errors[0] ?? 'no result').split('\n')[0] ?? ''}`);
      continue;
    }
    const partial = f.repetitions < input.repetitions ? ` (${f.repetitions}/${input.repetitions} reps)` : '';
    if (partial !== '')
      failures.push(
        `${runner.id} failed in ${input.repetitions - f.repetitions} ` +
          `repetition(s): ${(cell.errors[0] ?? '').split('\n')[0] ?? ''}`,
      );
    if (f.refusedHosts !== undefined)
      failures.push(`${runner.id} tried to connect outside this machine (refused): ${f.refusedHosts.join(', ')}`);
    rows.push([
      `${runner.id}${partial}`,
      fixed(f.runsPerSec, 0),
      fixed(f.usPerStep, 0),
      runner.id === 'baseline' ? '' : signed(f.overheadUsPerStep),
      runner.id === 'baseline' ? '1.00' : fixed(f.xBaseline, 2),
      undiciLoopCell(input, runner.id, f),
      fixed(f.cpuUsPerStep, 0),
      fixed(f.p50Ms, 2),
      fixed(f.p99Ms, 2),
      f.firstTokenMs === undefined
        ? ''
        : runner.id === 'baseline'
          ? `(${Math.round(f.firstTokenMs * 1000)} µs)`
          : signed(f.firstTokenAddedUs),
      fixed(f.rssReadyMb, 0),
      fixed(f.peakRssMb, 0),
      fixed(f.startupMs, 0),
    ]);
  }
  return [
    `### ${describeWorkload(w)}`,
    '',
    ...table(rows),
    ...(failures.length > 0 ? ['', ...failures.map((f) => `- ${f}`)] : []),
    '',
  ];
}

function undiciLoopWording(paired: boolean): string {
  if (!paired) return "the row's × baseline over that loop's";
  return (
    'for the toolgate rows, their wall per step over that of an undici loop measured in the same group (the fetch ' +
    'loop, the undici loop and the runner, each block taken by all three in turn, in an order rotated from one ' +
    "block to the next); marked *, the row's × baseline over that loop's own row's (two ratios measured apart)"
  );
}

export function reportLines(input: ReportInput): string[] {
  const runs = input.workloads.map((w) => `${w.id} ${w.runs}`).join(', ');
  return [
    `# toolgate and the agent frameworks — ` +
      `${input.date}${input.quick ? ' (quick mode: few runs, one repetition)' : ''}`,
    '',
    `${input.machine}; ${input.repetitions} repetition(s), medians over them; ${input.elapsedS.toFixed(0)} s in all.`,
    `Each run: ${TOOL_STEPS} tool steps (one lookup call each) and the answer = ${MODEL_STEPS} model steps, ` +
      `against a mock OpenAI-compatible server in its own process. Runs measured: ${runs} (after warm-up runs).`,
    '',
    '## Targets',
    '',
    ...input.verdicts.map((v) => `- ${verdictLine(v)}`),
    '',
    '## Figures',
    '',
    `µs/step: wall time ÷ model steps. +µs/step and × baseline: ` +
      (`${
        input.paired
          ? 'against a run of the hand-written loop measured with the runner, the processes ' +
            ('alive together and their runs measured in blocks taken in turn (the baseline ' +
              'row is the loop run alone, so the columns need not subtract exactly)')
          : 'against ' + 'the hand-written loop of the same repetition'
      }. × undici loop: against ${BASELINE_UNDICI_ID}, the same loop written directly on undici's dispatcher ` +
        `(toolgate's HTTP client), on the same workload: ${undiciLoopWording(input.paired)}. ` +
        (`CPU: user + system of the runner process (the mock excluded). p50/p99: one run, prompt to answer. ` +
          (`1st token: median time from the answer's model request to the first answer text the runner ` +
            (`sees, beyond the baseline's (the baseline row's own in brackets). RSS ready: after ` +
              `imports and setup; peak: the process's high-water mark. Start-up: process start to ready.`)))),
    '',
    ...(input.skipped.length === 0 ? [] : [...input.skipped.map((s) => `Skipped: ${s.runner}, ${s.reason}.`), '']),
    ...input.workloads.flatMap((w) => workloadTable(input, w)),
    '## Versions',
    '',
    ...table([['package', 'version'], ...input.versions]),
    '',
    '## Runners',
    '',
    ...input.runners.map(
      (r) => `- ${r.id}: ${r.label} (${r.file})${input.skipped.some((s) => s.runner === r.id) ? ', skipped' : ''}`,
    ),
    '',
  ];
}

/** Writes <dir>/<date>-frameworks<suffix>.md and .json; returns the .md path. */
export function saveReport(options: {
  dir: string;
  suffix: string;
  input: ReportInput;
  lines: string[];
  raw: unknown;
}): string {
  mkdirSync(options.dir, { recursive: true });
  const base = join(options.dir, `${options.input.date}-frameworks${options.suffix}`);
  writeFileSync(`${base}.md`, `${options.lines.join('\n')}\n`);
  const { runners, ...rest } = options.input;
  writeFileSync(
    `${base}.json`,
    `${JSON.stringify({ ...rest, runners: runners.map((r) => r.id), raw: options.raw }, null, 2)}\n`,
  );
  return `${base}.md`;
}
