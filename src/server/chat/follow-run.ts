import { isTerminalEvent, type RunEvent } from '../../core/events.ts';
import type { RunStore } from '../../core/ports/run-store.ts';

/** Events read from the store per round trip while catching up. */
const PAGE_SIZE = 500;

export interface FollowRunOptions {
  runId: string;
  /** Yield only events with an id greater than this (default 0: the whole log). */
  after?: number;
  /** Stops following: the iterator returns. */
  signal: AbortSignal;
  /** How often the store is read for events other processes appended (0: never; this process's are heard at once). */
  pollMs: number;
}

/**
 * One run's events in order, with no gap and no duplicate: history first,
 * then live. It subscribes before reading, so nothing appended meanwhile is
 * missed; a live event that does not follow the last one yielded (the feed ran
 * ahead of the read) sends it back to the store. Returns after a terminal
 * event, or when `signal` is aborted. A consumer that stops early (a `break`)
 * unsubscribes through the generator's `finally`.
 */
export async function* followRun(
  store: Pick<RunStore, 'readEvents' | 'subscribe'>,
  options: FollowRunOptions,
): AsyncGenerator<RunEvent> {
  const { runId, signal } = options;
  let last = options.after ?? 0;
  // The store is read at the start, after a gap in the live feed, and at every poll.
  let readDue = true;
  let wake: (() => void) | undefined;
  const buffered: RunEvent[] = [];
  const poke = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const unsubscribe = store.subscribe(runId, (events) => {
    buffered.push(...events);
    poke();
  });
  signal.addEventListener('abort', poke);
  try {
    for (;;) {
      if (signal.aborted) return;
      while (buffered.length > 0) {
        const event = buffered.shift();
        if (event === undefined || event.id <= last) continue;
        if (event.id !== last + 1) {
          readDue = true;
          buffered.length = 0;
          break;
        }
        last = event.id;
        yield event;
        if (isTerminalEvent(event)) return;
      }
      if (readDue) {
        readDue = false;
        const page = await store.readEvents(runId, { after: last, limit: PAGE_SIZE });
        for (const event of page) {
          if (event.id <= last) continue;
          last = event.id;
          yield event;
          if (isTerminalEvent(event)) return;
        }
        if (page.length === PAGE_SIZE) readDue = true;
        continue;
      }
      if (buffered.length > 0) continue;
      await new Promise<void>((resolve) => {
        const timer =
          options.pollMs > 0
            ? setTimeout(() => {
                readDue = true;
                poke();
              }, options.pollMs)
            : undefined;
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    signal.removeEventListener('abort', poke);
    unsubscribe();
  }
}
