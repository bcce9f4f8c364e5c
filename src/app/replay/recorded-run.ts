import type { Run, RunEvent } from '../../core/index.ts';

/** A stored run with its whole log, as a replay, an export or a policy test reads it. */
export interface RecordedRun {
  run: Run;
  /** Every event of the run, in order (ids 1, 2, 3…). */
  events: RunEvent[];
}
