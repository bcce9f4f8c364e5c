// The live statistics recomputed from scratch from every run's log, the way docs/observability.md defines them, with
// exact percentiles: what LiveStats must agree with. Written apart from src/app/live-stats on purpose.
import {
  costOf,
  type LatencyFigures,
  type RunStore,
  type StatsFigures,
  type StatsRow,
  type StatsSnapshot,
} from '../../src/core/index.ts';

interface Acc {
  row: Omit<StatsRow, 'modelLatencyMs' | 'toolLatencyMs' | 'series' | 'completionRate'>;
  model: number[];
  tool: number[];
}

/** Every run of the store (all assumed inside the window), as GET /v1/stats would count them. */
export async function recomputeStats(store: RunStore): Promise<StatsSnapshot> {
  const accs = new Map<string, Acc>();
  const at = (key: { tenant: string; intent: string; strategy: string; model: string }): Acc => {
    const name = [key.tenant, key.intent, key.strategy, key.model].join('\u0000');
    let acc = accs.get(name);
    if (acc === undefined) {
      acc = {
        row: {
          ...key,
          runs: { started: 0, completed: 0, failed: 0, cancelled: 0 },
          failures: {},
          guardTrips: {},
          approvals: { asked: 0, rejected: 0 },
          steps: 0,
          tokens: { input: 0, output: 0 },
          costUsd: 0,
        },
        model: [],
        tool: [],
      };
      accs.set(name, acc);
    }
    return acc;
  };
  let cursor: string | undefined;
  do {
    const page = await store.listRuns({ limit: 200, ...(cursor === undefined ? {} : { cursor }) });
    for (const run of page.runs) {
      if (run.threadId === 'toolgate:rollouts') continue;
      const gateway = run.settings?.gateway !== undefined;
      const strategy = gateway ? 'gateway' : (run.settings?.strategy ?? 'react');
      let key = { tenant: run.tenantId ?? '(none)', intent: '-', strategy, model: gateway ? '-' : run.model };
      const calls = new Set<string>();
      // A fork's first events are copies of the original's, counted there: up to run_forked only the start counts.
      let copying = run.metadata?.['forkOf'] !== undefined;
      for (const event of await store.readEvents(run.id)) {
        if (event.type === 'run_forked') copying = false;
        if (copying && event.type !== 'run_started' && event.type !== 'intent_routed') continue;
        if (event.type === 'intent_routed') {
          const route = event.data.route;
          const derived = route === 'answer' ? 'answer' : route === 'plan' ? 'change' : 'lookup';
          key = { ...key, intent: event.data.intent ?? derived, strategy: route };
          at(key).row.runs.started += 1;
        } else if (event.type === 'run_started') {
          if (strategy !== 'auto') at(key).row.runs.started += 1;
        } else if (event.type === 'run_completed') at(key).row.runs.completed += 1;
        else if (event.type === 'run_cancelled') at(key).row.runs.cancelled += 1;
        else if (event.type === 'run_failed') {
          const row = at(key).row;
          row.runs.failed += 1;
          row.failures[event.data.error.code] = (row.failures[event.data.error.code] ?? 0) + 1;
        } else if (event.type === 'guard_tripped') {
          const row = at(key).row;
          row.guardTrips[event.data.code] = (row.guardTrips[event.data.code] ?? 0) + 1;
        } else if (event.type === 'approval_required') at(key).row.approvals.asked += 1;
        else if (event.type === 'input_received') {
          const input = event.data.input;
          if (input.type === 'approval' && input.decision === 'reject') at(key).row.approvals.rejected += 1;
        } else if (event.type === 'assistant_message') {
          const acc = at(key);
          const usage = event.data.usage;
          acc.row.steps += 1;
          acc.row.tokens.input += usage?.promptTokens ?? 0;
          acc.row.tokens.output += usage?.completionTokens ?? 0;
          const price = run.settings?.price;
          if (usage !== undefined && price !== undefined) acc.row.costUsd += costOf(usage, price);
          acc.model.push(event.data.latencyMs);
        } else if (event.type === 'tool_call') calls.add(event.data.toolCallId);
        else if (event.type === 'tool_result' && calls.delete(event.data.toolCallId))
          at(key).tool.push(event.data.latencyMs);
      }
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const rows = [...accs.values()]
    .map((acc): StatsRow => ({ ...acc.row, ...figuresOf(acc) }))
    .sort(
      (a, b) =>
        a.tenant.localeCompare(b.tenant) ||
        a.intent.localeCompare(b.intent) ||
        a.strategy.localeCompare(b.strategy) ||
        a.model.localeCompare(b.model),
    );
  const all = { model: [...accs.values()].flatMap((a) => a.model), tool: [...accs.values()].flatMap((a) => a.tool) };
  const totals = rows.reduce(
    (sum, row) => ({
      ...sum,
      runs: {
        started: sum.runs.started + row.runs.started,
        completed: sum.runs.completed + row.runs.completed,
        failed: sum.runs.failed + row.runs.failed,
        cancelled: sum.runs.cancelled + row.runs.cancelled,
      },
      steps: sum.steps + row.steps,
      costUsd: sum.costUsd + row.costUsd,
    }),
    { runs: { started: 0, completed: 0, failed: 0, cancelled: 0 }, steps: 0, costUsd: 0 },
  );
  const now = new Date().toISOString();
  return {
    windowMs: 0,
    bucketMs: 0,
    since: now,
    until: now,
    rows,
    totals: {
      ...totals,
      failures: {},
      guardTrips: {},
      approvals: { asked: 0, rejected: 0 },
      tokens: { input: 0, output: 0 },
      modelLatencyMs: latency(all.model),
      toolLatencyMs: latency(all.tool),
      series: { completed: [], failed: [], toolP95Ms: [] },
    },
    rollouts: [],
  };
}

function figuresOf(acc: Acc): Omit<StatsFigures, 'runs' | 'failures' | 'guardTrips' | 'approvals' | 'steps'> & {
  completionRate?: number;
} {
  const { completed, failed, cancelled } = acc.row.runs;
  const ended = completed + failed + cancelled;
  return {
    ...(ended === 0 ? {} : { completionRate: Math.round((completed / ended) * 10_000) / 10_000 }),
    tokens: acc.row.tokens,
    costUsd: Math.round(acc.row.costUsd * 1e6) / 1e6,
    modelLatencyMs: latency(acc.model),
    toolLatencyMs: latency(acc.tool),
    series: { completed: [completed], failed: [failed], toolP95Ms: [] },
  };
}

/** Exact nearest-rank percentiles. */
function latency(values: readonly number[]): LatencyFigures {
  if (values.length === 0) return { count: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number): number => sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] ?? 0;
  return { count: sorted.length, p50: rank(0.5), p95: rank(0.95), max: sorted.at(-1) ?? 0 };
}
