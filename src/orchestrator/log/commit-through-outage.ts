import { ToolgateError, type EventDraft, type RunEvent, type RunStore } from '../../core/index.ts';

/** First wait before a commit that met an unavailable store is tried again; it doubles up to the maximum. */
export const COMMIT_RETRY_MS = 100;
export const COMMIT_RETRY_MAX_MS = 1_000;

export interface CommitThroughOutageOptions {
  store: Pick<RunStore, 'readEvents'>;
  runId: string;
  drafts: readonly EventDraft[];
  /** The commit itself (an append fenced by the pass's lease). */
  commit: () => Promise<RunEvent[]>;
  /** The last event id this pass knows to be in the log, at or before where the drafts land: where to look for them. */
  committedUpTo: () => number;
  /** How long to keep trying: past the lease, the store refuses the append anyway. */
  giveUpAfterMs: number;
  /** The pass stopped (a cancel, a lost lease): give up at once. */
  stopped: () => boolean;
}

/**
 * A pass's commit that rides out a store unavailable for a moment (a
 * connection cut, a failover, a lock held a little too long): the pass keeps
 * its work — a model answer, a tool's result — and waits in place instead of
 * stopping. A commit that failed with `store_unavailable` may have landed all
 * the same (the connection died after COMMIT was sent), so before each new try
 * the log is read from `committedUpTo()`: drafts found there, in order and
 * whole, are that commit, and are not appended twice. Any other error, and
 * `store_unavailable` after `giveUpAfterMs`, is thrown as it is; the run is
 * then driven again from its log later (decision 0023).
 */
export function commitThroughOutage(options: CommitThroughOutageOptions): Promise<RunEvent[]> {
  const started = Date.now();
  // The first try's promise is handed back as it is (this is on every commit of every run): the retries are only
  // entered once it failed.
  let first: Promise<RunEvent[]>;
  try {
    first = options.commit();
  } catch (error) {
    first = Promise.reject(error);
  }
  return first.catch((error: unknown) => rideOut(options, { error, started }));
}

async function rideOut(
  options: CommitThroughOutageOptions,
  first: { error: unknown; started: number },
): Promise<RunEvent[]> {
  const { started } = first;
  let delayMs = COMMIT_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    let failure: ToolgateError;
    try {
      if (attempt > 1) return await options.commit();
      throw first.error;
    } catch (error) {
      if (!(error instanceof ToolgateError && error.code === 'store_unavailable')) throw error;
      failure = error;
    }
    if (attempt === 1 && !options.stopped()) {
      process.emitWarning(
        `run ${options.runId}: ${failure.message}; the run waits for ` +
          `the store (up to ${options.giveUpAfterMs} ms, then it is paused)`,
        'ToolgateWarning',
      );
    }
    for (;;) {
      if (options.stopped() || Date.now() - started + delayMs > options.giveUpAfterMs) throw failure;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, COMMIT_RETRY_MAX_MS);
      let landed: RunEvent[] | undefined;
      try {
        landed =
          options.drafts.length === 0
            ? undefined
            : findCommitted(
                await options.store.readEvents(options.runId, { after: options.committedUpTo() }),
                options.drafts,
              );
      } catch (error) {
        if (!(error instanceof ToolgateError && error.code === 'store_unavailable')) throw error;
        // Still gone: wait on.
        failure = error;
        continue;
      }
      if (landed !== undefined) return landed;
      break;
    }
  }
}

/**
 * The events that are `drafts`, one after another, in `events` (read from the log); undefined when they are not there.
 */
export function findCommitted(events: readonly RunEvent[], drafts: readonly EventDraft[]): RunEvent[] | undefined {
  const wanted = drafts.map((d) => `${d.type}\u0000${JSON.stringify(d.data)}`);
  for (let start = 0; start + wanted.length <= events.length; start++) {
    const slice = events.slice(start, start + wanted.length);
    if (slice.every((event, i) => `${event.type}\u0000${JSON.stringify(event.data)}` === wanted[i])) return slice;
  }
  return undefined;
}
