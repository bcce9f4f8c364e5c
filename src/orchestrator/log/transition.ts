import {
  draft,
  type EventDraft,
  type PendingApproval,
  type RunEvent,
  type RunPatch,
  type RunStatus,
} from '../../core/index.ts';
import type { ConversationState } from '../state/run-state.ts';

export interface AppendOptions {
  /**
   * May be committed with the next append rather than on its own (see
   * RunWriter): for a model turn's answer, which nothing acts on before the
   * next append. Applied to the run's state at once either way.
   */
  defer?: boolean;
  /**
   * With `defer`: commit on its own after this long if no other append has
   * carried it by then (a read that is still running shows as running).
   */
  flushAfterMs?: number;
}

/**
 * What an append changes on the run. A pending approval names no event id:
 * the run writer sets it to the id its approval_required event gets in the
 * log, so nobody predicts where an append lands.
 */
export type AppendPatch = Omit<RunPatch, 'pendingApproval'> & {
  pendingApproval?: Omit<PendingApproval, 'eventId'> | null;
};

/**
 * Appends to the run's log (the loop follows the log, so its state updates from
 * there). `append([])` commits whatever was deferred, and nothing else.
 */
export type AppendFn = (drafts: EventDraft[], patch?: AppendPatch, options?: AppendOptions) => Promise<RunEvent[]>;

/** A status change and what goes with it. */
export interface StatusChange {
  to: RunStatus;
  /** The companion events, after the run_status event (when the status changes). */
  events?: EventDraft[];
  patch?: AppendPatch;
  reason?: string;
  append?: AppendOptions;
}

/**
 * Changes the run's status together with its companion events, in one atomic
 * append: a reader never sees a status without its `run_status` event.
 */
export async function transition(append: AppendFn, state: ConversationState, change: StatusChange): Promise<void> {
  const from = state.status;
  const { to, events = [] } = change;
  const status = draft('run_status', { from, to, ...(change.reason === undefined ? {} : { reason: change.reason }) });
  const drafts: EventDraft[] = from === to ? events : [status, ...events];
  await append(drafts, { ...change.patch, status: to, usage: state.usage, steps: state.step }, change.append);
}
