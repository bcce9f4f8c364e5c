// Follows a run's SSE stream the way the API promises it can be followed: every event once, in order. The client
// (toolgate/client) reads it with fetch (the session cookie goes along; no key in the URL), resumes it with
// Last-Event-ID after any drop, and fills a gap (an id past the next one) from the log before going on. The console
// never gives up on a stream: it keeps retrying, at most every few seconds, and says so.
import type { RunEvent } from '../../src/core/events.ts';
import { ApiError, client } from './api.ts';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'error';

export interface FollowOptions {
  runId: string;
  /** Last event id already shown. */
  after: number;
  onEvent(event: RunEvent): void;
  onState(state: StreamState, detail?: string): void;
}

/** Answers after which retrying cannot help: the run is not there, or the session is gone. */
const REFUSED = new Set([401, 403, 404]);

export function followRun(options: FollowOptions): { close(): void; reconnects(): number } {
  const controller = new AbortController();
  let reconnects = 0;
  options.onState('connecting');
  const stream = client.events(options.runId, {
    after: options.after,
    signal: controller.signal,
    retry: { attempts: Infinity },
    onConnection: (change) => {
      if (change.state === 'open') options.onState('live');
      else {
        reconnects += 1;
        options.onState('reconnecting', `resuming after event ${change.after}`);
      }
    },
  });
  void (async () => {
    try {
      for await (const event of stream) options.onEvent(event);
      options.onState('ended');
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof ApiError && REFUSED.has(error.status)) {
        options.onState(
          'error',
          `${error.status}: the stream was refused (${error.status === 404 ? 'no such run' : 'sign in again'})`,
        );
      } else options.onState('error', error instanceof Error ? error.message : String(error));
    }
  })();
  return {
    close: () => controller.abort(),
    reconnects: () => reconnects,
  };
}
