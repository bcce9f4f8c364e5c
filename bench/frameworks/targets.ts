// The targets toolgate is held to, each judged from the figures with its
// measured values: a target that does not hold is reported, never hidden.
import { loopRatio, type Cell, type Figures } from './stats.ts';
import { BASELINE_HTTP_ID, BASELINE_UNDICI_ID } from './runners-list.ts';
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

/** The hand-written loops on lighter clients than fetch, each shown beside the targets against the fetch loop. */
const LIGHTER_LOOPS = [
  { id: BASELINE_HTTP_ID, name: 'node:http' },
  { id: BASELINE_UNDICI_ID, name: "undici's dispatcher" },
];

/**
 * The runner against the loops on lighter clients, each against the fetch baseline measured with it
 * (loopRatio): how much of the runner's margin over the fetch loop is its HTTP client. The undici loop is left
 * out where it has a target of its own, printed next. Empty when no such loop was run.
 */
function againstLighterLoops(cells: Cell[], target: TargetOf): string {
  const shown = LIGHTER_LOOPS.filter((loop) => loop.id !== BASELINE_UNDICI_ID || target.undiciShown !== true)
    .map((loop) => {
      const parts = ONE_TOOL.map((w) => {
        const v =
          loop.id === BASELINE_UNDICI_ID
            ? finder(cells)(target.runner, w)?.xUndiciLoop
            : loopRatio(cells, { runner: target.runner, loop: loop.id, workload: w });
        return v === undefined ? undefined : `${w} ${times(v)}`;
      }).filter((x) => x !== undefined);
      return parts.length === 0 ? undefined : `against the same loop over ${loop.name}: ${parts.join(', ')}`;
    })
    .filter((x) => x !== undefined);
  return shown.length === 0 ? '' : ` (${shown.join('; ')})`;
}

interface TargetOf {
  runner: string;
  label: string;
  max: number;
  /** The runner has a target against the undici loop of its own (undiciLoopTarget). */
  undiciShown?: boolean;
}

function ratioTarget(cells: Cell[], target: TargetOf): Verdict {
  const get = finder(cells);
  const { runner, label, max } = target;
  return judge(
    `${label} ≤ ${max}× the baseline per step (1 tool; sequential and ${CONCURRENCY} concurrent; streaming and not)`,
    ONE_TOOL.map((w) => ({ label: w, value: get(runner, w)?.xBaseline, ok: (v: number) => v <= max, show: times })),
    againstLighterLoops(cells, target),
  );
}

/** How each workload's × undici loop was taken, as the target's wording says it. */
function undiciLoopHow(from: Set<Figures['xUndiciLoopFrom']>): string {
  const group = 'measured with that loop and the fetch loop in blocks taken in turn';
  const ratios = "each × its fetch baseline, over the undici loop's";
  if (from.size > 1) return `${group} where marked "in group", else ${ratios}`;
  return from.has('group') ? group : ratios;
}

/** The runner against the loop written directly on undici, the floor on this machine (runners/baseline-undici.ts). */
function undiciLoopTarget(cells: Cell[], { runner, label, max }: TargetOf): Verdict {
  const get = finder(cells);
  const figures = ONE_TOOL.map((w) => get(runner, w));
  // In a group with the loop, or else as the ratio of two × baseline (BENCH_PAIRED=0): said, per value if mixed.
  const from = new Set(figures.map((f) => f?.xUndiciLoopFrom).filter((x) => x !== undefined));
  const mixed = from.size > 1;
  return judge(
    `${label} ≤ ${max}× the hand-written undici loop per step (1 tool; sequential and ${CONCURRENCY} concurrent; ` +
      `streaming and not; ${undiciLoopHow(from)})`,
    ONE_TOOL.map((w, i) => ({
      label: w,
      value: figures[i]?.xUndiciLoop,
      ok: (v: number) => v <= max,
      show: (v: number) => `${times(v)}${mixed && figures[i]?.xUndiciLoopFrom === 'group' ? ' in group' : ''}`,
    })),
  );
}

/**
 * The HTTP server on PostgreSQL against the same on SQLite with runs in flight: the ratio of their × baseline (each
 * against the fetch baseline measured with it), the raw runs/s beside it.
 */
function postgresTarget(cells: Cell[], max: number): Verdict {
  const get = finder(cells);
  const workloads = [`conc${CONCURRENCY}`, `conc${CONCURRENCY}-stream`];
  const raw = workloads
    .map((w) => {
      const pg = get('toolgate-http-pg', w)?.runsPerSec;
      const sqlite = get('toolgate-http', w)?.runsPerSec;
      return pg === undefined || sqlite === undefined
        ? undefined
        : `${w} ${pg.toFixed(0)} runs/s on PostgreSQL, ${sqlite.toFixed(0)} on SQLite`;
    })
    .filter((x) => x !== undefined);
  return judge(
    `toolgate through its HTTP server on PostgreSQL ≤ ${max}× the same on SQLite per step, ${CONCURRENCY} in flight ` +
      `(each × its paired baseline)`,
    workloads.map((w) => ({
      label: w,
      value: loopRatio(cells, { runner: 'toolgate-http-pg', loop: 'toolgate-http', workload: w }),
      ok: (v: number) => v <= max,
      show: times,
    })),
    raw.length === 0 ? '' : ` (${raw.join('; ')})`,
  );
}

export function judgeTargets(cells: Cell[], baseline: string): Verdict[] {
  const get = finder(cells);
  const verdicts = [
    ratioTarget(cells, { runner: 'toolgate-memory', label: 'toolgate, memory store,', max: 1.2, undiciShown: true }),
    undiciLoopTarget(cells, { runner: 'toolgate-memory', label: 'toolgate, memory store,', max: 1.5 }),
    ratioTarget(cells, { runner: 'toolgate-sqlite', label: 'toolgate, SQLite store,', max: 1.5, undiciShown: true }),
    undiciLoopTarget(cells, { runner: 'toolgate-sqlite', label: 'toolgate, SQLite store,', max: 1.8 }),
    ratioTarget(cells, { runner: 'toolgate-http', label: 'toolgate through its HTTP server (SQLite)', max: 2 }),
    postgresTarget(cells, 1.5),
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
