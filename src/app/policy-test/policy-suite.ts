import type { CallCondition } from './call-condition.ts';
import type { GateDecisionName } from './suite-schema.ts';

/** One expectation of a suite, checked on every run's replay. `name` is what the report calls it. */
export type Expectation =
  /** No call the original allowed (or executed) is denied now. */
  | { kind: 'noNewDenials'; name: string }
  /** No call the original did not hold for a person needs approval now. */
  | { kind: 'noNewApprovals'; name: string }
  /** Every replayed call to a matching tool (for which `when` holds) gets one of `decisions`. */
  | { kind: 'decision'; name: string; tool: string; when?: CallCondition; decisions: GateDecisionName[] }
  /** No replayed call of the tenant's runs (every run's, without a tenant) to a matching tool is allowed or run. */
  | { kind: 'never'; name: string; tenant?: string; never: string }
  /** Each replay ends with the original's answer. */
  | { kind: 'answerUnchanged'; name: string };

/** Where a suite's recorded runs come from: a JSONL export (absolute path) or a run id in the store. */
export type SuiteRun = { file: string } | { id: string };

/** A suite file, checked, with its paths resolved against the suite's folder. */
export interface PolicySuite {
  /** The suite file (absolute). */
  file: string;
  description?: string;
  /** The configuration under test (absolute); absent: the one the CLI finds. */
  config?: string;
  /** A policy file (tools:, tenants:) replacing the configuration's (absolute). */
  policy?: string;
  runs: SuiteRun[];
  expect: Expectation[];
}
