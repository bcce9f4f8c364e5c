/**
 * Live outcome statistics (GET /v1/stats, docs/observability.md): figures per tenant × intent × strategy × model over
 * a sliding window, kept from the events appended, each event counted once in the window that holds its time.
 */

/** A latency distribution in milliseconds: percentiles within 2% of the exact values (a log-bucket histogram). */
export interface LatencyFigures {
  count: number;
  p50?: number;
  p95?: number;
  max?: number;
}

/** What happened in the window, for one key or in total. */
export interface StatsFigures {
  /** Runs that started, ended completed, failed or cancelled in the window. */
  runs: { started: number; completed: number; failed: number; cancelled: number };
  /** completed / (completed + failed + cancelled); absent when none ended. */
  completionRate?: number;
  /** Failed runs by error code (run_failed's code). */
  failures: Record<string, number>;
  /** Guard trips by code. */
  guardTrips: Record<string, number>;
  /** approval_required events, and decisions that rejected. */
  approvals: { asked: number; rejected: number };
  /** Model calls (steps), side calls included. */
  steps: number;
  tokens: { input: number; output: number };
  /** At the configured prices; runs without a price count 0. */
  costUsd: number;
  modelLatencyMs: LatencyFigures;
  toolLatencyMs: LatencyFigures;
  /**
   * Per bucket of the window, oldest first (StatsSnapshot.bucketMs each): runs ended completed and failed, and the
   * tool-call p95 in milliseconds (0 when no call ended in the bucket). For sparklines.
   */
  series: { completed: number[]; failed: number[]; toolP95Ms: number[] };
}

/**
 * The dimensions of a row. `intent` is the auto router's (answer, lookup, change), `-` for runs of another strategy;
 * `strategy` is what ran the run: for auto runs the route taken (answer, react, plan, reflect), `auto` before one was
 * taken. `tenant` is `-` for runs without one.
 */
export interface StatsKey {
  tenant: string;
  intent: string;
  strategy: string;
  model: string;
}

export type StatsRow = StatsKey & StatsFigures;

/** One rollout's treated and control shares over the window (config `rollout`). */
export interface RolloutFigures {
  name: string;
  treated: ArmFigures;
  control: ArmFigures;
  /** Set once the rollout was rolled back (rollout_rolled_back): new runs are all control. */
  rolledBack?: { at: string; failureRate: number; threshold: number };
}

export interface ArmFigures {
  /** Runs of this arm that ended in the window, and of them failed. */
  ended: number;
  failed: number;
  failureRate?: number;
  completionRate?: number;
  avgCostUsd?: number;
  toolLatencyMs: LatencyFigures;
}

/** The answer of GET /v1/stats. */
export interface StatsSnapshot {
  windowMs: number;
  bucketMs: number;
  /** The window: from `since` to `until` (ISO 8601). */
  since: string;
  until: string;
  rows: StatsRow[];
  totals: StatsFigures;
  rollouts: RolloutFigures[];
}

/** GET /v1/stats filters: each narrows the rows (and totals) to one value of a dimension. */
export interface StatsFilter {
  tenant?: string;
  intent?: string;
  strategy?: string;
  model?: string;
}
