import type { RunEvent } from '../core/events.ts';
import type { RunStore } from '../core/ports/run-store.ts';
import { describeError } from '../core/describe-error.ts';

/** Events read from the store per round trip when a follower reads what another process appended. */
const FEED_PAGE_SIZE = 500;

export type FeedListener = (events: readonly RunEvent[]) => void;

export type FeedLog = (entry: { level: 'info' | 'warn' | 'error'; msg: string; [key: string]: unknown }) => void;

export interface RunFeedsOptions {
  store: Pick<RunStore, 'readEvents' | 'subscribe' | 'watch'>;
  /** How often a followed run's log is read for appends another process made without a wake-up; 0: never. */
  pollMs: number;
  log?: FeedLog;
}

export interface JoinOptions {
  listener: FeedListener;
  /**
   * The run's last event id as read before joining, for a follower this join starts: never past the log's end
   * (lower only makes its first read longer; 0 is always right).
   */
  position: number;
}

/** A stream's place in its run's feed. */
export interface FeedMembership {
  /** Stops listening; the last one to leave ends the run's follower. */
  leave(): void;
}

/**
 * One follower per run for every SSE stream of that run on this server: the
 * store is subscribed to, watched (other processes' appends) and polled once
 * per run, not once per stream, and a wake-up costs one read of the log
 * whatever the number of streams. The follower hands its streams the run's
 * events in order, each once, past its position: what this process appended
 * (the subscription) and what it read after a wake-up or a poll. A stream still
 * checks that each event follows the last one it sent, so a follower's
 * position never has to match a stream's.
 */
export class RunFeeds {
  readonly #options: RunFeedsOptions;
  readonly #followers = new Map<string, RunFollower>();

  constructor(options: RunFeedsOptions) {
    this.#options = options;
  }

  /** Runs followed now (one follower each, whatever the number of streams). */
  get followed(): number {
    return this.#followers.size;
  }

  /**
   * Adds a stream to its run's follower, starting one if needed; resolves once
   * the follower listens, so what is appended after that reaches the listener
   * (what was appended before, the stream reads itself).
   */
  async join(runId: string, options: JoinOptions): Promise<FeedMembership> {
    let follower = this.#followers.get(runId);
    if (follower === undefined) {
      const created = new RunFollower({
        ...this.#options,
        runId,
        onEmpty: () => {
          if (this.#followers.get(runId) === created) this.#followers.delete(runId);
        },
      });
      follower = created;
      this.#followers.set(runId, created);
      created.start(options.position);
    }
    const member = follower.add(options.listener);
    await follower.ready;
    return member;
  }
}

interface RunFollowerInit extends RunFeedsOptions {
  runId: string;
  onEmpty: () => void;
}

class RunFollower {
  readonly #init: RunFollowerInit;
  readonly #listeners = new Set<FeedListener>();
  /** The last event id handed to the listeners (or known to be in the log when the follower started). */
  #last = 0;
  /** The highest last event id a wake-up announced. */
  #wanted = 0;
  #reading = false;
  #readAgain = false;
  #closed = false;
  #unsubscribe: (() => void) | undefined;
  #unwatch: (() => void) | undefined;
  #poll: NodeJS.Timeout | undefined;
  /** Resolves once the follower is watching the run (or could not, and polls). */
  ready: Promise<void> = Promise.resolve();

  constructor(init: RunFollowerInit) {
    this.#init = init;
  }

  start(position: number): void {
    const { store, runId } = this.#init;
    this.#last = position;
    this.#unsubscribe = store.subscribe(runId, (events) => this.#onLocal(events));
    this.ready = this.#listen();
  }

  add(listener: FeedListener): FeedMembership {
    // A wrapper of its own: the same function added twice is two members.
    const member: FeedListener = (events) => listener(events);
    this.#listeners.add(member);
    return {
      leave: () => {
        this.#listeners.delete(member);
        if (this.#listeners.size === 0) this.#close();
      },
    };
  }

  /** Never rejects: a follower that cannot watch still hears this process and polls. */
  async #listen(): Promise<void> {
    const { store, runId, pollMs, log } = this.#init;
    if (store.watch !== undefined) {
      try {
        const unwatch = await store.watch(runId, (lastEventId) => this.#wake(lastEventId));
        if (this.#closed) unwatch();
        else this.#unwatch = unwatch;
      } catch (error) {
        log?.({
          level: 'warn',
          msg: 'SSE could not watch the run: following it by polling',
          runId,
          error: String(error),
        });
      }
    }
    if (pollMs > 0 && !this.#closed) {
      this.#poll = setInterval(() => void this.#read(), pollMs);
      this.#poll.unref();
    }
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#poll);
    this.#unsubscribe?.();
    this.#unwatch?.();
    this.#listeners.clear();
    this.#init.onEmpty();
  }

  #wake(lastEventId: number): void {
    this.#wanted = Math.max(this.#wanted, lastEventId);
    if (lastEventId > this.#last) void this.#read();
  }

  #onLocal(events: readonly RunEvent[]): void {
    if (this.#closed) return;
    const gap = this.#accept(events);
    // Another process appended in between: its events are in the log.
    if (gap !== undefined) this.#wake(gap);
  }

  /** Hands out the events that follow the position, in order; returns the id of an event past a gap, if any. */
  #accept(events: readonly RunEvent[]): number | undefined {
    let next = this.#last + 1;
    const fresh: RunEvent[] = [];
    let gap: number | undefined;
    for (const event of events) {
      if (event.id < next) continue;
      if (event.id !== next) {
        gap = events.at(-1)?.id;
        break;
      }
      fresh.push(event);
      next++;
    }
    if (fresh.length > 0) {
      this.#last = next - 1;
      this.#publish(fresh);
    }
    return gap;
  }

  /**
   * One read at a time for all listeners. A wake-up during a read makes one more only if that read did not reach
   * the id it announced.
   */
  async #read(): Promise<void> {
    if (this.#closed) return;
    if (this.#reading) {
      this.#readAgain = true;
      return;
    }
    this.#reading = true;
    const { store, runId, log } = this.#init;
    try {
      do {
        this.#readAgain = false;
        let page: RunEvent[];
        do {
          page = await store.readEvents(runId, { after: this.#last, limit: FEED_PAGE_SIZE });
          if (this.#closed) return;
          this.#accept(page);
        } while (page.length === FEED_PAGE_SIZE);
      } while (this.#readAgain && !this.#closed && this.#wanted > this.#last);
    } catch (error) {
      // The position stays: the next wake-up or poll reads from it again, nothing is lost.
      log?.({ level: 'warn', msg: 'SSE could not read the run events', runId, error: String(error) });
    } finally {
      this.#reading = false;
    }
  }

  #publish(events: readonly RunEvent[]): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(events);
      } catch (error) {
        // One stream's failure is its own: the others still get the batch (the follower's position has moved on).
        process.emitWarning(`an SSE stream's listener failed: ${describeError(error)}`, 'ToolgateWarning');
      }
    }
  }
}
