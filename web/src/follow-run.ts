// Follows a run's SSE stream the way the API promises it can be followed: every
// event once, in order. The stream is read with fetch (the session cookie goes
// along; no key in the URL), resumed with Last-Event-ID after any drop, and a
// gap (an id past the next one) is filled from the log before going on.
import type { RunEvent } from '../../src/core/events.ts';
import { api } from './api.ts';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'error';

export interface FollowOptions {
  runId: string;
  /** Last event id already shown. */
  after: number;
  onEvent(event: RunEvent): void;
  onState(state: StreamState, detail?: string): void;
}

const TERMINAL = new Set(['run_completed', 'run_failed', 'run_cancelled']);
const MAX_BACKOFF_MS = 5000;

export function followRun(options: FollowOptions): { close(): void; reconnects(): number } {
  let last = options.after;
  let closed = false;
  let reconnects = 0;
  let controller: AbortController | undefined;
  /** The last connection got through: the next retry starts from the shortest wait. */
  let live = false;

  const deliver = async (event: RunEvent): Promise<boolean> => {
    if (event.id <= last) return false;
    if (event.id > last + 1) {
      // Something was missed (a dropped frame, a proxy): the log has it.
      const { events } = await api.events(options.runId, last);
      for (const missed of events) {
        if (missed.id >= event.id) break;
        if (missed.id === last + 1) {
          last = missed.id;
          options.onEvent(missed);
        }
      }
    }
    if (event.id !== last + 1) return false;
    last = event.id;
    options.onEvent(event);
    return TERMINAL.has(event.type);
  };

  const readOnce = async (): Promise<'ended' | 'dropped' | 'fatal'> => {
    controller = new AbortController();
    const res = await fetch(`/v1/runs/${encodeURIComponent(options.runId)}/events`, {
      credentials: 'same-origin',
      headers: { Accept: 'text/event-stream', ...(last > 0 ? { 'Last-Event-ID': String(last) } : {}) },
      signal: controller.signal,
    });
    if (!res.ok || res.body === null) {
      if (res.status === 401 || res.status === 403 || res.status === 404) {
        options.onState(
          'error',
          `${res.status}: the stream was refused (${res.status === 404 ? 'no such run' : 'sign in again'})`,
        );
        return 'fatal';
      }
      return 'dropped';
    }
    options.onState('live');
    live = true;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    while (true) {
      const { value, done } = await reader.read();
      if (done) return 'dropped';
      buffer += value.replace(/\r\n?/g, '\n');
      let blank = buffer.indexOf('\n\n');
      while (blank >= 0) {
        const block = buffer.slice(0, blank);
        buffer = buffer.slice(blank + 2);
        blank = buffer.indexOf('\n\n');
        let type = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) type = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length === 0) continue;
        // The server ends a stream that fell behind with `overflow`: resume from the last id.
        if (type === 'overflow') return 'dropped';
        let event: RunEvent;
        try {
          event = JSON.parse(data.join('\n')) as RunEvent;
        } catch {
          continue;
        }
        if (await deliver(event)) {
          await reader.cancel().catch(() => undefined);
          return 'ended';
        }
      }
    }
  };

  void (async () => {
    let backoff = 250;
    options.onState('connecting');
    while (!closed) {
      let outcome: 'ended' | 'dropped' | 'fatal';
      try {
        outcome = await readOnce();
      } catch {
        outcome = 'dropped';
      }
      if (closed) return;
      if (outcome === 'ended') {
        options.onState('ended');
        return;
      }
      if (outcome === 'fatal') return;
      reconnects += 1;
      if (live) backoff = 250;
      live = false;
      options.onState('reconnecting', `resuming after event ${last}`);
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
  })();

  return {
    close: () => {
      closed = true;
      controller?.abort();
    },
    reconnects: () => reconnects,
  };
}
