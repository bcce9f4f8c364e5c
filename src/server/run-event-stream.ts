import type { ServerResponse } from 'node:http';
import { isTerminalEvent, type RunEvent } from '../core/events.ts';
import type { RunStore } from '../core/ports/run-store.ts';
import type { FeedMembership, RunFeeds } from './run-feeds.ts';
import { encodeFrame, SseWriter } from './sse-writer.ts';

/** Events read from the store per round trip while catching up. */
export const HISTORY_PAGE_SIZE = 500;
/** How long one catch-up on history may take before the stream ends (the client resumes with Last-Event-ID). */
export const DEFAULT_SSE_HISTORY_TIMEOUT_MS = 5 * 60_000;
/** How often a followed run's log is read for events other processes appended (once per run, not per stream). */
export const DEFAULT_SSE_POLL_MS = 1000;

export type StreamLog = (entry: { level: 'info' | 'warn' | 'error'; msg: string; [key: string]: unknown }) => void;

export interface RunEventStreamOptions {
  res: ServerResponse;
  runId: string;
  /** Send events with an id greater than this. */
  after: number;
  store: Pick<RunStore, 'readEvents'>;
  /** The live feed of the server's followed runs: one follower per run, shared by its streams. */
  feeds: RunFeeds;
  /** The run's last event id as read before the stream started, for RunFeeds.join (0 is always right). */
  position: number;
  heartbeatMs: number;
  bufferLimitBytes: number;
  /** Bytes waiting and no 'drain' for this long: the socket is destroyed. */
  idleTimeoutMs: number;
  /** Longest time one catch-up on history may take: then the stream ends cleanly. */
  historyTimeoutMs: number;
  /** Whether the run has ended, for a run whose terminal event is already behind the resume point. */
  isFinished: () => Promise<boolean>;
  headers?: Record<string, string>;
  log?: StreamLog;
  /** Told when the client read too slowly and got `overflow`. */
  onOverflow?: () => void;
}

/**
 * One run's events over SSE: history, then live, with no gap and no duplicate
 * at the seam. It joins the run's feed (RunFeeds: one follower per run hears
 * this process's appends and reads other processes' for all its streams)
 * before reading history and holds live events back while reading;
 * afterwards only events past the last one sent go out. Each
 * event must be the successor of the last one sent: a jump means the live feed
 * ran ahead of what was read, so the store is read again rather than a gap sent.
 *
 * History is paced by the client (the next event waits for 'drain'); live
 * events are not, and a client that falls behind them gets `overflow`. A
 * client that takes nothing for idleTimeoutMs loses its connection; one still
 * catching up after historyTimeoutMs gets a clean end and resumes with
 * Last-Event-ID, so no connection lasts forever on a client's pace.
 *
 * The stream ends on the run's terminal event, even one at or before the
 * resume point (which is not sent): a client that resumes past the end of a
 * live log waits for the run, not forever.
 */
export class RunEventStream {
  readonly #options: RunEventStreamOptions;
  readonly #writer: SseWriter;
  readonly #done: Promise<void>;
  #resolveDone: () => void = () => {};
  #membership: FeedMembership | undefined;
  #held: RunEvent[] = [];
  /** Live events were dropped while reading (too many to hold): read the store once more before going live. */
  #heldDropped = false;
  #reading = true;
  #lastSent: number;
  #finished = false;

  constructor(options: RunEventStreamOptions) {
    this.#options = options;
    this.#lastSent = options.after;
    this.#writer = new SseWriter({
      res: options.res,
      heartbeatMs: options.heartbeatMs,
      bufferLimitBytes: options.bufferLimitBytes,
      idleTimeoutMs: options.idleTimeoutMs,
      lastEventId: options.after,
      onOverflow: (lastEventId) => {
        options.onOverflow?.();
        options.log?.({
          level: 'warn',
          msg: 'SSE subscriber too slow: sent overflow',
          runId: options.runId,
          lastEventId,
        });
        this.close();
      },
      onIdleTimeout: () => {
        options.log?.({
          level: 'warn',
          msg: 'SSE client made no progress: connection dropped',
          runId: options.runId,
          idleTimeoutMs: options.idleTimeoutMs,
        });
      },
    });
    this.#done = new Promise((resolve) => (this.#resolveDone = resolve));
  }

  /** Resolves when the stream has ended, for whatever reason. */
  get done(): Promise<void> {
    return this.#done;
  }

  /**
   * Joins the run's feed, reads the first page of history and opens the stream. Errors up
   * to that point reject (the caller answers with a plain HTTP error); later
   * ones end the stream and the client resumes.
   */
  async start(): Promise<void> {
    const { res, runId, store, feeds, position } = this.#options;
    res.once('close', () => this.close());
    let firstPage: RunEvent[];
    try {
      const membership = await feeds.join(runId, { listener: (events) => this.#onLive(events), position });
      if (this.#finished) {
        membership.leave();
        return;
      }
      this.#membership = membership;
      firstPage = await store.readEvents(runId, { after: this.#lastSent, limit: HISTORY_PAGE_SIZE });
    } catch (error) {
      this.close();
      throw error;
    }
    if (this.#finished) return;
    this.#writer.open(this.#options.headers);
    await this.#catchUp(firstPage);
    // A run that had ended when its log was read has its terminal event, the log's last, among what was read:
    // only a stream that found nothing past its resume point needs to ask whether the run is over.
    if (!this.#finished && this.#lastSent === this.#options.after) await this.#endIfRunFinished();
  }

  /** Ends the stream (shutdown, client gone, overflow, history limit): the client resumes with Last-Event-ID. */
  close(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#membership?.leave();
    this.#membership = undefined;
    this.#held = [];
    this.#writer.end();
    this.#resolveDone();
  }

  #onLive(events: readonly RunEvent[]): void {
    if (this.#finished) return;
    this.#held.push(...events);
    if (!this.#reading) {
      this.#release();
    } else if (this.#held.length > HISTORY_PAGE_SIZE) {
      // They are in the store: reading again is cheaper than holding a fast run's events for a slow reader.
      this.#held = [];
      this.#heldDropped = true;
    }
  }

  /** Sends held live events in order; a jump past the next id triggers a read of the store. */
  #release(afterCatchUp = false): void {
    this.#reading = false;
    const held = this.#held;
    this.#held = [];
    for (const [i, event] of held.entries()) {
      if (this.#finished) return;
      if (event.id <= this.#lastSent) {
        // Behind the resume point, but still the end of the run: nothing more will come.
        if (isTerminalEvent(event)) this.close();
        continue;
      }
      if (event.id !== this.#lastSent + 1) {
        this.#held = [...held.slice(i), ...this.#held];
        if (afterCatchUp) {
          // The store has not got events the live feed already delivered: end, the client resumes later.
          this.#options.log?.({
            level: 'warn',
            msg: 'SSE live feed ahead of the store: ending the stream',
            runId: this.#options.runId,
          });
          this.close();
        } else {
          void this.#catchUp();
        }
        return;
      }
      this.#send(event);
    }
  }

  /** Reads the store from the last event sent until it has no more, then goes live. */
  async #catchUp(firstPage?: RunEvent[]): Promise<void> {
    this.#reading = true;
    const { store, runId, historyTimeoutMs } = this.#options;
    const limit = setTimeout(() => {
      this.#options.log?.({
        level: 'info',
        msg: 'SSE history took longer than the limit: stream ended, the client resumes',
        runId,
        historyTimeoutMs,
        lastEventId: this.#lastSent,
      });
      this.close();
    }, historyTimeoutMs).unref();
    let page = firstPage;
    try {
      while (!this.#finished) {
        page ??= await store.readEvents(runId, { after: this.#lastSent, limit: HISTORY_PAGE_SIZE });
        await this.#sendPaced(page);
        const more = page.length === HISTORY_PAGE_SIZE || this.#heldDropped;
        this.#heldDropped = false;
        page = undefined;
        if (!more) break;
      }
    } catch (error) {
      this.#options.log?.({ level: 'error', msg: 'SSE stream could not read run events', runId, error: String(error) });
      this.close();
      return;
    } finally {
      clearTimeout(limit);
    }
    if (!this.#finished) this.#release(true);
  }

  async #sendPaced(events: readonly RunEvent[]): Promise<void> {
    for (const event of events) {
      if (this.#writer.congested) await this.#writer.whenWritable();
      if (this.#finished) return;
      if (event.id === this.#lastSent + 1) this.#send(event);
    }
  }

  #send(event: RunEvent): void {
    this.#lastSent = event.id;
    const open = this.#writer.sendEncoded({ id: event.id, bytes: frameOf(event) });
    if (!open || isTerminalEvent(event)) this.close();
  }

  /** A run that ended before the resume point has no terminal event left to send: end now. */
  async #endIfRunFinished(): Promise<void> {
    let finished: boolean;
    try {
      finished = await this.#options.isFinished();
    } catch (error) {
      this.#options.log?.({
        level: 'warn',
        msg: 'SSE stream could not check the run status',
        runId: this.#options.runId,
        error: String(error),
      });
      return;
    }
    if (!finished || this.#finished) return;
    // Its last events may still be on their way through the live feed: read them from the store.
    await this.#catchUp();
    this.close();
  }
}

/** Encoded frames of the events in memory: a live event goes to every stream of its run, serialised once. */
const frames = new WeakMap<RunEvent, Buffer>();

function frameOf(event: RunEvent): Buffer {
  let bytes = frames.get(event);
  if (bytes === undefined) {
    bytes = encodeFrame({ id: event.id, event: event.type, data: JSON.stringify(event) });
    frames.set(event, bytes);
  }
  return bytes;
}
