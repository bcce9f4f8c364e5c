import type { RunEvent, RunInput, RunStore } from '../../core/index.ts';
import type { ApprovalDecision } from '../state/run-state.ts';

/** How often the log is read for a decision made by another process when the store cannot say so itself. */
export const DEFAULT_DECISION_POLL_MS = 250;

export interface ApprovalWatchOptions {
  store: RunStore;
  runId: string;
  toolCallId: string;
  /** The id of the approval_required event: the decision comes after it. */
  afterEventId: number;
  pollMs?: number;
}

export type WatchedDecision =
  | { kind: 'decided'; decision: ApprovalDecision }
  | { kind: 'ended'; event: RunEvent }
  | { kind: 'cancel_requested'; reason: string };

/**
 * Waits for the decision on one held call, wherever it is made: the runs API
 * or the console of this process (the store tells its subscribers), another
 * process sharing the store (PostgreSQL's watch, or a poll of the log), or
 * this gateway itself (an elicitation answer is recorded like any decision).
 * Resolves with the first decision, cancel request or end found in the log.
 */
export function watchForDecision(options: ApprovalWatchOptions, signal: AbortSignal): Promise<WatchedDecision> {
  const { store, runId, toolCallId } = options;
  let seen = options.afterEventId;
  let reading = false;
  let again = false;
  return new Promise<WatchedDecision>((resolve, reject) => {
    let done = false;
    const cleanups: (() => void)[] = [];
    const finish = (outcome: WatchedDecision | Error): void => {
      if (done) return;
      done = true;
      for (const cleanup of cleanups) cleanup();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const inspect = (events: readonly RunEvent[]): void => {
      for (const event of events) {
        if (event.id <= seen) continue;
        seen = event.id;
        const found = decisionIn(event, toolCallId);
        if (found !== undefined) {
          finish(found);
          return;
        }
      }
    };
    const read = async (): Promise<void> => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          inspect(await store.readEvents(runId, { after: seen }));
        } while (again && !done);
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      } finally {
        reading = false;
      }
    };
    const onAbort = (): void => finish(signal.reason instanceof Error ? signal.reason : new Error('stopped waiting'));
    signal.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => signal.removeEventListener('abort', onAbort));
    cleanups.push(store.subscribe(runId, (events) => inspect(events)));
    const timer = setInterval(() => void read(), options.pollMs ?? DEFAULT_DECISION_POLL_MS);
    timer.unref();
    cleanups.push(() => clearInterval(timer));
    if (store.watch !== undefined) {
      void store
        .watch(runId, () => void read())
        .then(
          (unwatch) => (done ? unwatch() : cleanups.push(unwatch)),
          () => undefined,
        );
    }
    if (signal.aborted) onAbort();
    // What was appended before the subscription started.
    else void read();
  });
}

function decisionIn(event: RunEvent, toolCallId: string): WatchedDecision | undefined {
  if (event.type === 'input_received') {
    const input: RunInput = event.data.input;
    if (input.type !== 'approval' || input.toolCallId !== toolCallId) return undefined;
    return {
      kind: 'decided',
      decision: {
        decision: input.decision,
        ...(input.arguments === undefined ? {} : { arguments: input.arguments }),
        ...(input.reason === undefined ? {} : { reason: input.reason }),
        ...(input.result === undefined ? {} : { result: input.result }),
        ...(input.userId === undefined ? {} : { userId: input.userId }),
      },
    };
  }
  if (event.type === 'cancel_requested') return { kind: 'cancel_requested', reason: event.data.reason };
  if (event.type === 'run_completed' || event.type === 'run_failed' || event.type === 'run_cancelled')
    return { kind: 'ended', event };
  return undefined;
}
