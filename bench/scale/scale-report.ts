// The scale benchmark's report: the tables in Markdown, the figures as JSON,
// and a plot of memory and step latency against runs in flight (vega-lite,
// rendered to SVG headless by vega), saved as bench/results/<date>-scale.*.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { TopLevelSpec } from 'vega-lite';
import { join } from 'node:path';
import {
  RSS_LIMIT_MB,
  STEP_P99_LIMIT_MS,
  verdictLine,
  type LatencyRow,
  type Series,
  type Verdict,
  type WaitingRow,
} from './scale-targets.ts';

export interface ScaleResults {
  date: string;
  quick: boolean;
  machine: string;
  settings: string;
  verdicts: Verdict[];
  waiting: Series<WaitingRow>[];
  latency: Series<LatencyRow>[];
}

const f = (n: number, digits = 1): string => n.toFixed(digits);

function table(rows: string[][]): string[] {
  const [head = [], ...body] = rows;
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ];
}

function handles(resources: Record<string, number>): string {
  const kinds = Object.entries(resources).map(([kind, n]) => `${kind} ${n}`);
  return kinds.length === 0 ? 'none' : kinds.join(', ');
}

export function reportLines(results: ScaleResults, svgName: string | undefined): string[] {
  const lines = [
    `# Scale benchmark ${results.date}${results.quick ? ' (quick)' : ''}`,
    '',
    results.machine,
    '',
    results.settings,
    '',
    '## Targets',
    '',
    ...results.verdicts.map((v) => `- ${verdictLine(v)}`),
    '',
    ...(svgName === undefined ? [] : [`![memory and step latency against runs in flight](${svgName})`, '']),
    '## Runs waiting for an approval',
    '',
    'RSS: resident memory after the runs were parked; after idle: at the end of the idle window, no collection ' +
      'forced (what V8 hands back on its own); after GC: after a full collection that hands back what the ' +
      'young generation grew to while they were parked. CPU: user + system of the process over the idle window, ' +
      "per second. Timers: setTimeout/setInterval alive (unref'd ones included). Handles: what keeps the process " +
      'alive (process.getActiveResourcesInfo()).',
    '',
  ];
  for (const series of results.waiting) {
    lines.push(`### ${series.label}`, '');
    if (series.error !== undefined) lines.push(`FAILED: ${series.error}`, '');
    lines.push(
      ...table([
        [
          'runs waiting',
          'RSS MB',
          'RSS after idle MB',
          'RSS after GC MB',
          'JS heap MB',
          'CPU ms/s',
          'timers',
          'handles',
        ],
        ...series.rows.map((r) => [
          String(r.level),
          f(r.rssMb),
          f(r.rssAfterIdleMb),
          f(r.rssAfterGcMb),
          f(r.heapUsedMb),
          f(r.cpuMsPerSecond, 2),
          String(r.timers),
          handles(r.resources),
        ]),
      ]),
      '',
    );
  }
  lines.push(
    '## Runs driven concurrently',
    '',
    "Step latency: for each run, the time from the end of one model answer to the arrival of the run's next " +
      "request, on the mock model's clock (the model's own time excluded). Run overhead p99: a run's wall time " +
      'beyond its model calls. CPU busy: the share of one core the process used. Cores needed: CPU per model ' +
      'call × runs in flight / the model delay, what keeping pace with the model takes (above 1, one event loop ' +
      'cannot: steps queue). CPU wait: share of the time the process was ready to run but waited for a CPU ' +
      "(the machine's other work). Loop p99: the process's event-loop delay. Mock late p99 / CPU wait: how late " +
      "the mock's answers went out and its own wait for a CPU (its lag). Conns: connections opened in the level.",
    '',
  );
  for (const series of results.latency) {
    lines.push(`### ${series.label}`, '');
    if (series.error !== undefined) lines.push(`FAILED: ${series.error}`, '');
    lines.push(
      ...table([
        [
          ...['runs in flight', 'steps', 'p50 ms', 'p99 ms', 'max ms', 'run overhead p99 ms', 'CPU ms/step'],
          ...['CPU busy', 'cores needed', 'CPU wait', 'loop p99 ms', 'mock late p99 ms', 'mock CPU wait', 'conns'],
        ],
        ...series.rows.map((r) => [
          String(r.level),
          String(r.steps),
          f(r.p50),
          f(r.p99),
          f(r.max),
          f(r.runOverheadP99),
          f(r.cpuMsPerStep, 2),
          `${f(r.cpuBusy * 100, 0)} %`,
          f(r.coresNeeded, 2),
          `${f(r.runQueueShare * 100, 0)} %`,
          f(r.loopP99),
          f(r.mockLateP99),
          `${f(r.mockRunQueueShare * 100, 0)} %`,
          String(r.connections),
        ]),
      ]),
      '',
    );
  }
  return lines;
}

/** Each measure's line style, fixed and named in the chart's subtitle (a legend of dashes does not draw them). */
const SOLID = [1, 0];
const DASHED = [6, 4];
const DOTTED = [2, 3];
function dashes(domain: string[], range: number[][]) {
  return { field: 'measure', type: 'nominal', legend: null, scale: { domain, range } } as const;
}

/** Memory against runs waiting, and step latency against runs in flight, side by side. */
export async function plotSvg(results: ScaleResults): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const memory = results.waiting.flatMap((s) =>
    s.rows.flatMap((r) => [
      { series: s.label, runs: r.level, measure: 'RSS after GC', mb: r.rssAfterGcMb },
      { series: s.label, runs: r.level, measure: 'RSS', mb: r.rssMb },
      { series: s.label, runs: r.level, measure: 'RSS after idle', mb: r.rssAfterIdleMb },
    ]),
  );
  const latency = results.latency.flatMap((s) =>
    s.rows.flatMap((r) => [
      { series: s.label, runs: r.level, measure: 'p99', ms: Math.max(0.1, r.p99) },
      { series: s.label, runs: r.level, measure: 'p50', ms: Math.max(0.1, r.p50) },
    ]),
  );
  const color = {
    field: 'series',
    type: 'nominal',
    title: null,
    legend: { orient: 'bottom', columns: 1, labelLimit: 0 },
  } as const;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `toolgate with many runs in flight (${results.date})`,
    hconcat: [
      {
        width: 360,
        height: 260,
        title: {
          text: 'Memory with runs waiting for an approval',
          subtitle: 'solid: RSS as parked · dashed: after the idle window · dotted: after a full collection',
        },
        layer: [
          {
            data: { values: memory },
            mark: { type: 'line', point: true },
            encoding: {
              x: { field: 'runs', type: 'quantitative', title: 'runs waiting' },
              y: { field: 'mb', type: 'quantitative', title: 'resident memory (MB)' },
              color,
              strokeDash: dashes(['RSS', 'RSS after idle', 'RSS after GC'], [SOLID, DASHED, DOTTED]),
            },
          },
          {
            data: { values: [{ limit: RSS_LIMIT_MB }] },
            mark: { type: 'rule', color: 'firebrick', strokeDash: [4, 4] },
            encoding: { y: { field: 'limit', type: 'quantitative' } },
          },
        ],
      },
      {
        width: 360,
        height: 260,
        title: {
          text: "Step latency over the model's, runs driven concurrently",
          subtitle: 'solid: p99 · dotted: p50',
        },
        layer: [
          {
            data: { values: latency },
            mark: { type: 'line', point: true },
            encoding: {
              x: { field: 'runs', type: 'quantitative', title: 'runs in flight', scale: { type: 'log' } },
              y: { field: 'ms', type: 'quantitative', title: 'step latency (ms, log)', scale: { type: 'log' } },
              color,
              strokeDash: dashes(['p99', 'p50'], [SOLID, DOTTED]),
            },
          },
          {
            data: { values: [{ limit: STEP_P99_LIMIT_MS }] },
            mark: { type: 'rule', color: 'firebrick', strokeDash: [4, 4] },
            encoding: { y: { field: 'limit', type: 'quantitative' } },
          },
        ],
      },
    ],
    resolve: { scale: { color: 'independent', strokeDash: 'independent' } },
  };
  const compiled = vegaLite.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

/** Writes <dir>/<date>-scale<suffix>.md, .json and .svg; returns the .md path. */
export async function saveScaleReport(options: {
  dir: string;
  suffix: string;
  results: ScaleResults;
}): Promise<string> {
  const { dir, suffix, results } = options;
  mkdirSync(dir, { recursive: true });
  const base = `${results.date}-scale${suffix}`;
  writeFileSync(join(dir, `${base}.svg`), await plotSvg(results));
  writeFileSync(join(dir, `${base}.md`), `${reportLines(results, `${base}.svg`).join('\n')}\n`);
  writeFileSync(join(dir, `${base}.json`), `${JSON.stringify(results, null, 2)}\n`);
  return join(dir, `${base}.md`);
}
