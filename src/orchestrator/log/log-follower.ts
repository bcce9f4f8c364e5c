import { ToolgateError, type RunEvent, type RunStore } from '../../core/index.ts';
import { applyEvents, type ConversationState } from '../state/run-state.ts';

const READ_PAGE = 1000;

/**
 * Keeps a run's conversation state equal to its log, in log order, whoever
 * wrote the events: this engine, input received by this process (handed over
 * by the store's subscription), or input and cancel requests written by
 * another process sharing the store (which no subscription here hears). Events
 * that arrive after a gap wait until the gap has been read from the store.
 */
export class LogFollower {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly state: ConversationState;
  readonly #onApplied: (events: readonly RunEvent[]) => void;
  /** Events past a gap, by id, until the gap is read. */
  readonly #ahead = new Map<number, RunEvent>();
  #reading: Promise<void> | undefined;

  constructor(options: {
    store: RunStore;
    runId: string;
    state: ConversationState;
    onApplied?: (events: readonly RunEvent[]) => void;
  }) {
    this.#store = options.store;
    this.#runId = options.runId;
    this.state = options.state;
    this.#onApplied = options.onApplied ?? (() => undefined);
  }

  /** Events as they were appended (a subscription, an own append): applied now when they continue the log. */
  offer(events: readonly RunEvent[]): void {
    // The usual case: nothing waits past a gap and the events continue the log (or were applied already).
    if (this.#ahead.size === 0) {
      const from = events.findIndex((event) => event.id > this.state.lastEventId);
      if (from === -1) return;
      if (this.#continues(events, from)) {
        const applied = from === 0 ? events : events.slice(from);
        applyEvents(this.state, applied);
        this.#onApplied(applied);
        return;
      }
    }
    for (const event of events) if (event.id > this.state.lastEventId) this.#ahead.set(event.id, event);
    this.#drain();
  }

  /** Whether events[from..] are the next ids of the log, one after another. */
  #continues(events: readonly RunEvent[], from: number): boolean {
    let expected = this.state.lastEventId + 1;
    for (let i = from; i < events.length; i += 1, expected += 1) if (events[i]?.id !== expected) return false;
    return true;
  }

  /** Whether every event up to `id` has been applied. */
  has(id: number): boolean {
    return this.state.lastEventId >= id;
  }

  /** Reads whatever the log holds beyond the state (written elsewhere) and applies it. One read at a time. */
  catchUp(): Promise<void> {
    this.#reading ??= this.#read().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  /**
   * Appended events reach the state before the append is reported done, with
   * any gap before them filled: undefined when they are applied at once,
   * otherwise a promise settled once the gap has been read.
   */
  settle(events: readonly RunEvent[]): Promise<void> | undefined {
    this.offer(events);
    const last = events.at(-1);
    // Applied already (the usual case): nothing to wait for.
    if (last === undefined || this.has(last.id)) return undefined;
    return this.catchUp().then(() => {
      // A store that does not return what it just appended would otherwise be waited on forever.
      if (!this.has(last.id))
        throw new ToolgateError(
          'internal',
          `run ${this.#runId}: event ${last.id} was appended but the store does not return it`,
        );
    });
  }

  async #read(): Promise<void> {
    for (;;) {
      const page = await this.#store.readEvents(this.#runId, { after: this.state.lastEventId, limit: READ_PAGE });
      this.offer(page);
      if (page.length < READ_PAGE) return;
    }
  }

  #drain(): void {
    const applied: RunEvent[] = [];
    for (
      let next = this.#ahead.get(this.state.lastEventId + 1);
      next !== undefined;
      next = this.#ahead.get(this.state.lastEventId + 1)
    ) {
      this.#ahead.delete(next.id);
      applyEvents(this.state, [next]);
      applied.push(next);
    }
    for (const id of this.#ahead.keys()) if (id <= this.state.lastEventId) this.#ahead.delete(id);
    if (applied.length > 0) this.#onApplied(applied);
  }
}
