import type { EventDraft, RunEvent } from '../events.ts';
import type { NewRun, Run, RunPatch, RunStatus } from '../runs.ts';

export interface ReadEventsOptions {
  /** Only events with an id greater than this (resume point). */
  after?: number;
  limit?: number;
}

export interface ListRunsQuery {
  tenantId?: string;
  status?: RunStatus;
  threadId?: string;
  limit?: number;
  /** Opaque cursor from a previous page. */
  cursor?: string;
}

export interface RunPage {
  runs: Run[];
  nextCursor?: string;
}

export type EventListener = (events: readonly RunEvent[]) => void;

/**
 * Where runs and their event logs live. The log is the single source of
 * truth: live subscribers, resume, recovery and audit all read it.
 *
 * Contract (checked by test/contract/run-store.contract.ts on every implementation):
 * - `append` numbers events 1, 2, 3… per run with no gap, stamps their time,
 *   and applies `patch` to the run in the same atomic step: a reader never
 *   sees the status change without its event, or the event without it.
 * - Once `append` resolves, the events are durable (as far as the store is)
 *   and every subscriber of that run has been handed them, in order, once.
 * - Appending to an unknown run rejects with `not_found`.
 */
export interface RunStore {
  createRun(init: NewRun): Promise<Run>;
  getRun(runId: string): Promise<Run | undefined>;
  listRuns(query?: ListRunsQuery): Promise<RunPage>;
  append(runId: string, drafts: readonly EventDraft[], patch?: RunPatch): Promise<RunEvent[]>;
  readEvents(runId: string, options?: ReadEventsOptions): Promise<RunEvent[]>;
  /** Live events appended after this call, for one run. Returns the unsubscribe function. */
  subscribe(runId: string, listener: EventListener): () => void;
  close(): Promise<void>;
}
