/**
 * Run lifecycle: queued → an active status → (a waiting status ⇄ an active
 * status) → completed | failed | cancelled. `running` is the ReAct loop's one
 * active status; the plan and reflect strategies move through `planning`,
 * `executing`, `monitoring` and `reflecting` (docs/strategies.md). A run
 * waits for a person in `waiting_approval` (a call or a plan to decide) or
 * `escalated` (its strategy asked for help: a message resumes it).
 */
export const RUN_STATUSES = [
  'queued',
  'running',
  'waiting_approval',
  'completed',
  'failed',
  'cancelled',
  'planning',
  'executing',
  'monitoring',
  'reflecting',
  'escalated',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const TERMINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>(['completed', 'failed', 'cancelled']);
/** Statuses of a run that is being driven (or must be, after a restart): an owner may claim it. */
export const ACTIVE_RUN_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>([
  'queued',
  'running',
  'planning',
  'executing',
  'monitoring',
  'reflecting',
]);
/** Statuses of a run that waits for a person. */
export const WAITING_RUN_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>(['waiting_approval', 'escalated']);
