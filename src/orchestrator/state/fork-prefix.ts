import {
  ToolgateError,
  draft,
  isTerminalEvent,
  type EventDraft,
  type RunEvent,
  type RunEventType,
} from '../../core/index.ts';

/**
 * Events that tell of the original run's life rather than its conversation: a fork has a life of its own (its status
 * starts at `queued`, nobody asked to cancel it, it has not ended, it was not compared with anything yet).
 */
const LIFE_EVENTS: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'run_status',
  'cancel_requested',
  'run_completed',
  'run_failed',
  'run_cancelled',
  // Appended with the run_completed that hands calls back: the end of the original, not a turn of its conversation.
  'client_tool_calls',
  // Where the original came from (a replay, an earlier fork): the fork's own run_forked says where it comes from.
  'replay_compared',
  'run_forked',
]);

/** The ids a fork may start after: from the run's first user message to the event before its end. */
export interface ForkRange {
  first: number;
  last: number;
}

/**
 * The range of `afterEventId` a run's log can be forked at, or undefined when it has not started (no user message
 * yet). Forking after the terminal event would fork a finished run at its end: nothing is left to drive.
 */
export function forkRange(events: readonly RunEvent[]): ForkRange | undefined {
  const first = events.find((e) => e.type === 'user_message')?.id;
  if (first === undefined) return undefined;
  const terminal = events.find((e) => isTerminalEvent(e));
  const last = terminal === undefined ? (events.at(-1)?.id ?? first) : terminal.id - 1;
  return { first, last: Math.max(first, last) };
}

/**
 * Checks `afterEventId` against the log: a usage error names the valid range (and the last id, for one past the log).
 * A log that has not started yet cannot be forked (`conflict`).
 */
export function checkForkPoint(runId: string, events: readonly RunEvent[], afterEventId: number): void {
  const range = forkRange(events);
  if (range === undefined) {
    throw new ToolgateError(
      'conflict',
      `run ${runId} has not started yet (no user message in its log): nothing to fork; try again once it runs`,
    );
  }
  const lastId = events.at(-1)?.id ?? 0;
  const valid = `afterEventId must be from ${range.first} (its first user message) to ${range.last}`;
  if (!Number.isInteger(afterEventId) || afterEventId > lastId) {
    throw new ToolgateError(
      'usage',
      `afterEventId ${String(afterEventId)} is past the log of run ${runId}: its last event is ${lastId}; ${valid}`,
    );
  }
  if (afterEventId < range.first || afterEventId > range.last) {
    const after = afterEventId > range.last ? ` (event ${range.last + 1} ends the run)` : '';
    throw new ToolgateError('usage', `cannot fork run ${runId} after event ${afterEventId}${after}; ${valid}`);
  }
}

/**
 * What a fork's log starts with: copies (same type and data) of the original's events 1..afterEventId that make its
 * conversation and position, so the one reducer rebuilds them — without the events of its life (LIFE_EVENTS), an
 * approval whose call had not started at the cut (pending, or decided but not yet acted on: the fork asks again, so a
 * person decides for the fork — the original may have done that very write already), and streamed text of a turn the
 * prefix does not finish (the fork asks the model for that turn again, under the same step number). A decision whose
 * call started in the prefix stays; a write whose tool_call has no result in the prefix is an unknown outcome, which
 * the engine asks a person about rather than repeat.
 */
export function forkPrefix(events: readonly RunEvent[], afterEventId: number): EventDraft[] {
  const prefix = events.filter((e) => e.id <= afterEventId);
  const finishedSteps = new Set(prefix.flatMap((e) => (e.type === 'assistant_message' ? [e.data.step] : [])));
  // Calls the original acted on before the cut: sent (tool_call) or answered (tool_result: run, rejected, marked done).
  const acted = new Set(
    prefix.flatMap((e) => (e.type === 'tool_call' || e.type === 'tool_result' ? [e.data.toolCallId] : [])),
  );
  const copies: EventDraft[] = [];
  for (const event of prefix) {
    if (LIFE_EVENTS.has(event.type)) continue;
    if (event.type === 'assistant_delta' && !finishedSteps.has(event.data.step)) continue;
    if (event.type === 'approval_required' && !acted.has(event.data.toolCallId)) continue;
    if (
      event.type === 'input_received' &&
      event.data.input.type === 'approval' &&
      !acted.has(event.data.input.toolCallId)
    )
      continue;
    copies.push(copyOf(event));
  }
  return copies;
}

function copyOf<K extends RunEventType>(event: RunEvent<K>): EventDraft<K> {
  return draft(event.type, structuredClone(event.data));
}
