import { draft, type EventDraft, type RunEvent, type RunPatch, type RunStatus } from '../core/index.ts';
import type { ConversationState } from './conversation-state.ts';

export interface AppendOptions {
  /**
   * May be committed with the next append rather than on its own (see
   * PassAppender): for a model turn's answer, which nothing acts on before the
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
 * Appends to the run's log (the loop follows the log, so its state updates from
 * there). `append([])` commits whatever was deferred, and nothing else.
 */
export type AppendFn = (drafts: EventDraft[], patch?: RunPatch, options?: AppendOptions) => Promise<RunEvent[]>;

/**
 * Changes the run's status together with its companion events, in one atomic
 * append: a reader never sees a status without its `run_status` event.
 */
export async function transition(
  append: AppendFn,
  state: ConversationState,
  to: RunStatus,
  events: EventDraft[],
  options: { patch?: RunPatch; reason?: string; append?: AppendOptions } = {},
): Promise<void> {
  const from = state.status;
  const change = draft('run_status', { from, to, ...(options.reason === undefined ? {} : { reason: options.reason }) });
  const drafts: EventDraft[] = from === to ? events : [change, ...events];
  await append(drafts, { ...options.patch, status: to, usage: state.usage, steps: state.step }, options.append);
}
