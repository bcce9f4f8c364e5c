import { ToolgateError, type ErrorInfo } from '../core/errors.ts';
import type { RunEvent } from '../core/events.ts';
import type { RunStore } from '../core/ports/run-store.ts';
import { describeError } from '../core/describe-error.ts';

export type FirstTurn = { ok: true } | { ok: false; error: ErrorInfo };

/**
 * Resolves once a new run's first model turn is settled: an answer or a tool
 * call from the model (or a pause for a person, or a cancel), or the run
 * failing before that. Reads the log, live and history, so the outcome is
 * seen whichever comes first. `signal` (the client went away) gives up.
 */
export function waitForFirstTurn(
  store: Pick<RunStore, 'readEvents' | 'subscribe'>,
  runId: string,
  signal: AbortSignal,
): Promise<FirstTurn> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: FirstTurn | Error): void => {
      if (settled) return;
      settled = true;
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const inspect = (events: readonly RunEvent[]): void => {
      for (const event of events) {
        const outcome = settles(event);
        if (outcome !== undefined) return finish(outcome);
      }
    };
    const onAbort = (): void => finish(new ToolgateError('cancelled', 'the client closed the request'));
    const unsubscribe = store.subscribe(runId, inspect);
    signal.addEventListener('abort', onAbort, { once: true });
    store
      .readEvents(runId)
      .then(inspect, (error: unknown) => finish(error instanceof Error ? error : new Error(describeError(error))));
  });
}

function settles(event: RunEvent): FirstTurn | undefined {
  switch (event.type) {
    case 'assistant_message':
    case 'approval_required':
    case 'run_completed':
    case 'run_cancelled':
      return { ok: true };
    case 'run_failed':
      return { ok: false, error: event.data.error };
    default:
      return undefined;
  }
}
