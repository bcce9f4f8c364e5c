import type { RunEvent, RunEventType } from '../core/index.ts';
import { abortableSleep } from '../core/abortable-sleep.ts';
import { isEventList, isRunEvent } from './answers.ts';
import { ToolgateApiError, ToolgateClientError } from './client-error.ts';
import type { ClientHttp, ClientRequest } from './client-http.ts';
import { readSse } from './sse.ts';
import type { ReadEventsOptions } from './types.ts';

/** Reconnections in a row that bring no new event before following gives up. */
export const DEFAULT_RETRY_ATTEMPTS = 10;
/** The wait before the first of those reconnections; it doubles with each one, up to DEFAULT_MAX_RETRY_DELAY_MS. */
export const DEFAULT_RETRY_DELAY_MS = 250;
export const DEFAULT_MAX_RETRY_DELAY_MS = 5000;
/**
 * A connection that stayed open this long counts as working even without an event (a run waiting for a person,
 * behind a proxy that ends idle connections): the retries start over after it.
 */
export const STABLE_CONNECTION_MS = 20_000;

export interface RetryOptions {
  /** Reconnections in a row without a new event before giving up (`Infinity`: never). Default 10. */
  attempts?: number;
  /** Default 250 ms, doubling with each attempt. */
  delayMs?: number;
  /** Default 5000 ms. */
  maxDelayMs?: number;
}

/** A connection opened, or one that ended and is about to be replaced (after `delayMs`). */
export type ConnectionChange =
  | { state: 'open'; after: number }
  | { state: 'retrying'; after: number; attempt: number; delayMs: number; cause: string };

export interface FollowEventsOptions {
  /** Events after this sequence number (default 0: the whole log). */
  after?: number;
  /** Stops following: the iterator throws the signal's reason. */
  signal?: AbortSignal;
  /** Resume after a dropped connection with Last-Event-ID (default true); false: end with the connection. */
  reconnect?: boolean;
  retry?: RetryOptions;
  /** Told when a connection opens and when one is being replaced (a connection indicator). */
  onConnection?: (change: ConnectionChange) => void;
}

/** Event types after which nothing more is appended to a run (TERMINAL_EVENT_TYPES in core). */
export const CLIENT_TERMINAL_EVENT_TYPES: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'run_completed',
  'run_failed',
  'run_cancelled',
]);

/** Answers that may pass once the server is back: a restart (503 shutting_down), a proxy (502, 504). */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);
const EVENTS_ROUTE = 'GET /v1/runs/{id}/events';

export function runPath(runId: string): string {
  return `/v1/runs/${encodeURIComponent(runId)}`;
}

/** GET /v1/runs/{id}/events?format=json: the stored events after `after`, in order. */
export async function readRunEvents(http: ClientHttp, runId: string, options: ReadEventsOptions): Promise<RunEvent[]> {
  const after = checkedAfter(options.after);
  const request: ClientRequest = {
    method: 'GET',
    path: `${runPath(runId)}/events?format=json&after=${after}`,
    route: EVENTS_ROUTE,
    signal: options.signal,
    runId,
  };
  return (await http.json(request, isEventList)).events;
}

interface FollowState {
  readonly http: ClientHttp;
  readonly runId: string;
  readonly options: FollowEventsOptions;
  /** The last event handed over. */
  last: number;
  /** When the current connection opened. */
  openedAt: number | undefined;
  /** A connection was opened once: failures after it are resumed, a first one is thrown (a wrong URL, a typo). */
  opened: boolean;
}

/**
 * The run's events over SSE, each once and in order, until its terminal event. A connection that drops or ends
 * early is resumed with Last-Event-ID; an event past the next one (something lost on the way) is filled in from the
 * stored log first.
 */
export function followEvents(
  http: ClientHttp,
  runId: string,
  options: FollowEventsOptions = {},
): AsyncGenerator<RunEvent> {
  // Checked here, so that a mistake throws at the call rather than at the first event.
  const state: FollowState = {
    http,
    runId,
    options,
    last: checkedAfter(options.after),
    openedAt: undefined,
    opened: false,
  };
  const attempts = options.retry?.attempts ?? DEFAULT_RETRY_ATTEMPTS;
  if (!(attempts >= 0))
    throw usage(`retry.attempts must be a number of attempts from 0 (or Infinity); got ${attempts}`);
  return follow(state, attempts);
}

async function* follow(state: FollowState, attempts: number): AsyncGenerator<RunEvent> {
  const { http, runId, options } = state;
  const reconnect = options.reconnect ?? true;
  let failures = 0;
  for (;;) {
    const before = state.last;
    state.openedAt = undefined;
    let cause = 'the server ended the stream before the run ended';
    try {
      if (yield* connectOnce(state)) return;
      if (!reconnect) return;
    } catch (error) {
      if (options.signal?.aborted === true) throw options.signal.reason ?? error;
      if (!reconnect || !state.opened || !isDrop(error)) throw error;
      // With its name ("TypeError: terminated", "ToolgateApiError: …"): what kind of failure it was matters here.
      cause = String(error);
    }
    const stable = state.openedAt !== undefined && Date.now() - state.openedAt >= STABLE_CONNECTION_MS;
    failures = state.last > before || stable ? 0 : failures + 1;
    if (failures > attempts) {
      throw new ToolgateClientError({
        reason: 'stream_gave_up',
        message:
          `the event stream of run ${runId} at ${http.url} ended ${failures} times in a row without a new event ` +
          `(last: ${cause}); try again later`,
        serverUrl: http.url,
        route: EVENTS_ROUTE,
        runId,
      });
    }
    const delayMs =
      failures === 0
        ? 0
        : Math.min(
            options.retry?.maxDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS,
            (options.retry?.delayMs ?? DEFAULT_RETRY_DELAY_MS) * 2 ** (failures - 1),
          );
    options.onConnection?.({ state: 'retrying', after: state.last, attempt: failures, delayMs, cause });
    await abortableSleep(delayMs, options.signal);
  }
}

/** One connection: yields its new events; true once the terminal event was yielded. */
async function* connectOnce(state: FollowState): AsyncGenerator<RunEvent, boolean> {
  const { http, runId, options } = state;
  const controller = new AbortController();
  const stop = (): void => controller.abort(options.signal?.reason);
  if (options.signal?.aborted === true) throw options.signal.reason;
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const request: ClientRequest = {
      method: 'GET',
      path: `${runPath(runId)}/events`,
      route: EVENTS_ROUTE,
      headers: { accept: 'text/event-stream', ...(state.last > 0 ? { 'last-event-id': String(state.last) } : {}) },
      signal: controller.signal,
      runId,
    };
    const response = await http.send(request);
    if (response.body === null || !(response.headers.get('content-type') ?? '').includes('text/event-stream'))
      throw http.unexpected(request, 'something that is not an event stream');
    state.openedAt = Date.now();
    state.opened = true;
    options.onConnection?.({ state: 'open', after: state.last });
    const sse = readSse(response.body, {
      tooLarge: (limit) => http.unexpected(request, `an event larger than ${limit} bytes`),
    });
    for await (const message of sse) {
      // `overflow`: the server fell behind and closes the stream; it is resumed like any other.
      if (message.id === undefined || message.event === 'overflow') continue;
      const event = parseEvent(message.data);
      if (event === undefined) throw http.unexpected(request, 'an event that is not a run event');
      if (event.id <= state.last) continue;
      if (event.id > state.last + 1) yield* fillGap(state, event.id);
      state.last = event.id;
      yield event;
      if (CLIENT_TERMINAL_EVENT_TYPES.has(event.type)) return true;
    }
    return false;
  } finally {
    controller.abort();
    options.signal?.removeEventListener('abort', stop);
  }
}

/** The stored events between the last one handed over and `next`: the log has what the stream skipped. */
async function* fillGap(state: FollowState, next: number): AsyncGenerator<RunEvent> {
  const signal = state.options.signal;
  const missed = await readRunEvents(state.http, state.runId, {
    after: state.last,
    ...(signal === undefined ? {} : { signal }),
  });
  for (const event of missed) {
    if (event.id >= next) return;
    if (event.id <= state.last) continue;
    state.last = event.id;
    yield event;
  }
}

function parseEvent(data: string): RunEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  return isRunEvent(value) ? value : undefined;
}

/** A connection lost or refused, or a server on its way back: worth another try. */
function isDrop(error: unknown): boolean {
  if (error instanceof ToolgateClientError) return error.reason === 'unreachable';
  if (error instanceof ToolgateApiError) return RETRIED_STATUSES.has(error.status);
  // What fetch throws when a body it is reading is cut (Node: "terminated"; browsers: "network error").
  return error instanceof TypeError;
}

function checkedAfter(after: number | undefined): number {
  if (after === undefined) return 0;
  if (!Number.isSafeInteger(after) || after < 0)
    throw usage(`after must be an event's sequence number (an integer from 0); got ${after}`);
  return after;
}

function usage(message: string): ToolgateClientError {
  return new ToolgateClientError({ reason: 'usage', message });
}
