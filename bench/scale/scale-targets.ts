// The targets for runs in flight (issue 45, point 3), each judged from
// the figures of one run of the scale benchmark.

export interface WaitingRow {
  level: number;
  rssMb: number;
  /** At the end of the idle window, no collection forced. */
  rssAfterIdleMb: number;
  rssAfterGcMb: number;
  heapUsedMb: number;
  cpuMsPerSecond: number;
  timers: number;
  resources: Record<string, number>;
}

export interface LatencyRow {
  level: number;
  steps: number;
  p50: number;
  p99: number;
  max: number;
  runOverheadP99: number;
  cpuMsPerStep: number;
  cpuBusy: number;
  /** Cores needed to keep pace with the model (CPU per call × runs in flight / the model's delay). */
  coresNeeded: number;
  /** Share of the wall time the process was ready to run but waited for a CPU (Linux; 0 elsewhere). */
  runQueueShare: number;
  /** The process's event-loop delay, p99 (ms). */
  loopP99: number;
  /** How late the mock's answers went out, p99 (ms), and its share of the wall time waiting for a CPU. */
  mockLateP99: number;
  mockRunQueueShare: number;
  /** Connections opened to the mock during the level. */
  connections: number;
}

export interface Series<Row> {
  label: string;
  rows: Row[];
  /** Set when the child failed: its rows are what it printed before. */
  error?: string;
}

export interface Verdict {
  target: string;
  holds: boolean | undefined;
  measured: string;
}

export const RSS_LIMIT_MB = 200;
/** CPU the process may spend while its runs wait, beyond what it spends with none waiting: 0.5 % of a core. */
export const IDLE_CPU_SLACK_MS_PER_S = 5;
/** Timers alive beyond those with none waiting (a sweep or a scan may be under way at the moment of the census). */
export const TIMER_SLACK = 2;
export const STEP_P99_LIMIT_MS = 50;

const fmt = (n: number, digits = 1): string => n.toFixed(digits);

function judge(target: string, parts: { holds: boolean | undefined; measured: string }[]): Verdict {
  const holds = parts.some((p) => p.holds === undefined) ? undefined : parts.every((p) => p.holds);
  return { target, holds, measured: parts.map((p) => p.measured).join('; ') };
}

/** The largest level a series reached, and its first (normally 0 runs). */
function ends<Row extends { level: number }>(series: Series<Row>): { first: Row | undefined; last: Row | undefined } {
  const rows = [...series.rows].sort((a, b) => a.level - b.level);
  return { first: rows[0], last: rows.at(-1) };
}

export function scaleVerdicts(input: {
  waiting: Series<WaitingRow>[];
  latency: Series<LatencyRow>[];
  resumed: Record<string, string | undefined>;
  waitingGoal: number;
  latencyGoal: number;
}): Verdict[] {
  const memory = input.waiting.map((series) => {
    const { last } = ends(series);
    if (last === undefined || last.level < input.waitingGoal || series.error !== undefined)
      return { holds: undefined, measured: `${series.label}: did not reach ${input.waitingGoal} runs waiting` };
    return {
      holds: last.rssAfterGcMb < RSS_LIMIT_MB,
      measured:
        `${series.label}: ${fmt(last.rssAfterGcMb)} MB after a GC ` +
        `(${fmt(last.rssMb)} MB once parked, ${fmt(last.rssAfterIdleMb)} MB after the idle window) ` +
        `with ${last.level} waiting`,
    };
  });
  const idle = input.waiting.map((series) => {
    const { first, last } = ends(series);
    if (first === undefined || last === undefined || last.level < input.waitingGoal)
      return { holds: undefined, measured: `${series.label}: not measured` };
    const cpuGrowth = last.cpuMsPerSecond - first.cpuMsPerSecond;
    const timerGrowth = last.timers - first.timers;
    return {
      holds: cpuGrowth <= IDLE_CPU_SLACK_MS_PER_S && timerGrowth <= TIMER_SLACK,
      measured:
        `${series.label}: CPU ${fmt(first.cpuMsPerSecond)} → ${fmt(last.cpuMsPerSecond)} ms/s, ` +
        `timers ${first.timers} → ${last.timers} (${first.level} → ${last.level} waiting)`,
    };
  });
  const resumed = Object.entries(input.resumed).map(([label, status]) => ({
    holds: status === undefined ? undefined : status === 'completed',
    measured: `${label}: ${status ?? 'not tried'}`,
  }));
  const latency = input.latency.map((series) => {
    const row = series.rows.find((r) => r.level === input.latencyGoal);
    if (row === undefined || series.error !== undefined)
      return { holds: undefined, measured: `${series.label}: did not reach ${input.latencyGoal} in flight` };
    return {
      holds: row.p99 < STEP_P99_LIMIT_MS,
      measured:
        `${series.label}: p99 ${fmt(row.p99)} ms, p50 ${fmt(row.p50)} ms ` +
        `(CPU ${fmt(row.cpuMsPerStep, 2)} ms/step, ${fmt(row.cpuBusy * 100, 0)} % of a core used, ` +
        `${fmt(row.coresNeeded, 2)} cores needed to keep the model's pace, ` +
        `${fmt(row.runQueueShare * 100, 0)} % of the time waiting for a CPU)`,
    };
  });
  return [
    judge(`${input.waitingGoal} runs waiting for approval in one process: RSS under ${RSS_LIMIT_MB} MB`, memory),
    judge(
      `nothing per second while they wait: CPU within ${IDLE_CPU_SLACK_MS_PER_S} ms/s and timers within ` +
        `${TIMER_SLACK} of those with none waiting`,
      idle,
    ),
    judge('a waiting run resumes when approved (runs on to completed)', resumed),
    judge(
      `${input.latencyGoal} runs in flight: p99 step latency under ${STEP_P99_LIMIT_MS} ms over the model's`,
      latency,
    ),
  ];
}

export function verdictLine(v: Verdict): string {
  const word = v.holds === undefined ? 'CANNOT BE JUDGED' : v.holds ? 'holds' : 'DOES NOT HOLD';
  return `${word} — ${v.target}: ${v.measured}`;
}
