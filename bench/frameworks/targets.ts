// The targets toolgate is held to, each judged from the figures with its
// measured values: a target that does not hold is reported, never hidden.
import type { Cell, Figures } from './stats.ts';
import { BASELINE_HTTP_ID } from './runners-list.ts';
import { CONCURRENCY } from './workload.ts';

export interface Verdict {
  target: string;
  /** undefined: could not be judged (the runner was not run, or failed). */
  holds: boolean | undefined;
  measured: string;
}

const ONE_TOOL = ['seq', 'seq-stream', `conc${CONCURRENCY}`, `conc${CONCURRENCY}-stream`];
const STREAMING_SEQUENTIAL = ['seq-stream', 'seq-10tools-stream'];

function finder(cells: Cell[]): (runner: string, workload: string) => Figures | undefined {
  return (runner, workload) => cells.find((c) => c.runner === runner && c.workload === workload)?.figures;
}

function judge(
  target: string,
  values: { label: string; value: number | undefined; ok: (v: number) => boolean; show: (v: number) => string }[],
  context = '',
): Verdict {
  const known = values.filter(
    (v): v is typeof v & { value: number } => v.value !== undefined && Number.isFinite(v.value),
  );
  const measured =
    values
      .map((v) => `${v.label} ${v.value === undefined || !Number.isFinite(v.value) ? 'not measured' : v.show(v.value)}`)
      .join(', ') + context;
  if (known.length < values.length) return { target, holds: undefined, measured };
  return { target, holds: known.every((v) => v.ok(v.value)), measured };
}

const times = (v: number) => `${v.toFixed(2)}×`;

/**
 * The runner against the node:http loop (BASELINE_HTTP_ID), both against the fetch baseline measured with each:
 * how much of the runner's margin over the fetch loop is its HTTP client. Empty when that loop was not run.
 */
function againstNodeHttp(get: ReturnType<typeof finder>, runner: string): string {
  const parts = ONE_TOOL.map((w) => {
    const mine = get(runner, w)?.xBaseline;
    const loop = get(BASELINE_HTTP_ID, w)?.xBaseline;
    return mine === undefined || loop === undefined ? undefined : `${w} ${times(mine / loop)}`;
  }).filter((x) => x !== undefined);
  return parts.length === 0
    ? ''
    : ` (against the same loop over node:http, a lighter client than fetch: ${parts.join(', ')})`;
}

function ratioTarget(get: ReturnType<typeof finder>, runner: string, label: string, max: number): Verdict {
  return judge(
    `${label} ≤ ${max}× the baseline per step (1 tool; sequential and ${CONCURRENCY} concurrent; streaming and not)`,
    ONE_TOOL.map((w) => ({ label: w, value: get(runner, w)?.xBaseline, ok: (v: number) => v <= max, show: times })),
    againstNodeHttp(get, runner),
  );
}

export function judgeTargets(cells: Cell[], baseline: string): Verdict[] {
  const get = finder(cells);
  const verdicts = [
    ratioTarget(get, 'toolgate-memory', 'toolgate, memory store,', 1.2),
    ratioTarget(get, 'toolgate-sqlite', 'toolgate, SQLite store,', 1.5),
    ratioTarget(get, 'toolgate-http', 'toolgate through its HTTP server (SQLite)', 2),
  ];
  verdicts.push(
    judge(
      'toolgate (memory store): first token within 100 µs of the baseline',
      STREAMING_SEQUENTIAL.map((w) => ({
        label: w,
        value: get('toolgate-memory', w)?.firstTokenAddedUs,
        ok: (v: number) => v <= 100,
        show: (v: number) => `${v >= 0 ? '+' : ''}${Math.round(v)} µs`,
      })),
    ),
  );
  const rss = cells
    .filter((c) => c.runner === 'toolgate-memory' && c.figures !== undefined)
    .map((c) => c.figures?.rssReadyMb ?? Number.NaN);
  const baseRss = cells
    .filter((c) => c.runner === baseline && c.figures !== undefined)
    .map((c) => c.figures?.rssReadyMb ?? Number.NaN);
  const medianOf = (xs: number[]) =>
    xs.length === 0 ? undefined : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const baseRssMb = medianOf(baseRss);
  verdicts.push(
    judge(
      'toolgate (memory store): RSS at ready ≤ 80 MB',
      [
        {
          label: 'RSS at ready',
          value: medianOf(rss),
          ok: (v: number) => v <= 80,
          show: (v: number) => `${v.toFixed(0)} MB`,
        },
      ],
      baseRssMb === undefined
        ? ''
        : ` (the baseline process, Node and nothing else loaded: ${baseRssMb.toFixed(0)} MB)`,
    ),
  );
  // Each workload's × baseline is against a baseline measured with it, so the ratio of two of them is free of the
  // machine's drift between the workloads, which raw µs per step are not (they are measured minutes apart).
  const ratio = (runner: string, field: 'xBaseline' | 'usPerStep', many: string, one: string) => {
    const a = get(runner, many)?.[field];
    const b = get(runner, one)?.[field];
    return a === undefined || b === undefined ? undefined : a / b;
  };
  const raw = [
    ['not streaming', ratio('toolgate-memory', 'usPerStep', 'seq-10tools', 'seq')],
    ['streaming', ratio('toolgate-memory', 'usPerStep', 'seq-10tools-stream', 'seq-stream')],
    ["the baseline's own, not streaming", ratio(baseline, 'usPerStep', 'seq-10tools', 'seq')],
  ] as const;
  const shown = raw.filter(([, v]) => v !== undefined).map(([label, v]) => `${label} ${times(v as number)}`);
  verdicts.push(
    judge(
      'toolgate (memory store): 10 tools cost ≤ 1.1× per step what 1 tool costs (each × its paired baseline)',
      [
        {
          label: 'not streaming',
          value: ratio('toolgate-memory', 'xBaseline', 'seq-10tools', 'seq'),
          ok: (v: number) => v <= 1.1,
          show: times,
        },
        {
          label: 'streaming',
          value: ratio('toolgate-memory', 'xBaseline', 'seq-10tools-stream', 'seq-stream'),
          ok: (v: number) => v <= 1.1,
          show: times,
        },
      ],
      shown.length === 0 ? '' : ` (in raw µs per step, measured minutes apart: ${shown.join(', ')})`,
    ),
  );
  return verdicts;
}

export function verdictLine(v: Verdict): string {
  const word = v.holds === undefined ? 'CANNOT BE JUDGED' : v.holds ? 'holds' : 'DOES NOT HOLD';
  return `${word} — ${v.target}: ${v.measured}`;
}
