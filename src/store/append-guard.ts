import {
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  isTerminalEvent,
  type EventDraft,
  type RunEventType,
  type RunStatus,
} from '../core/index.ts';

/** What a store knows of a run's end without reading its log. */
export interface RunEnd {
  status: RunStatus;
  /** The type of the terminal event already in the log, if any. */
  endedBy: RunEventType | undefined;
}

const STATUS_OF_END: Readonly<Partial<Record<RunEventType, RunStatus>>> = {
  run_completed: 'completed',
  run_failed: 'failed',
  run_cancelled: 'cancelled',
};

/**
 * The rule every store applies inside its append, atomically with the write:
 * a run that has ended takes nothing more, and a batch may end a run only
 * with its last event. A late tool result after `run_failed` would otherwise
 * make the log contradict the outcome clients were already told.
 * Returns the terminal event type the batch ends the run with, if any.
 */
export function checkAppend(runId: string, run: RunEnd, drafts: readonly EventDraft[]): RunEventType | undefined {
  if (TERMINAL_RUN_STATUSES.has(run.status) || run.endedBy !== undefined) {
    const status =
      TERMINAL_RUN_STATUSES.has(run.status) || run.endedBy === undefined
        ? run.status
        : (STATUS_OF_END[run.endedBy] ?? run.status);
    throw new ToolgateError(
      'conflict',
      `run ${runId} has ended (${status}): nothing can be appended after its terminal event`,
    );
  }
  const end = drafts.findIndex(isTerminalEvent);
  const terminal = end === -1 ? undefined : drafts[end];
  if (terminal === undefined) return undefined;
  if (end < drafts.length - 1) {
    throw new ToolgateError(
      'conflict',
      `run ${runId}: ${terminal.type} is event ${end + 1} of ${drafts.length} in ` +
        `the batch, but nothing can be appended after its terminal event; put it last`,
    );
  }
  return terminal.type;
}
