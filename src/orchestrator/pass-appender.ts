import { ToolgateError, copyAsJson, type EventDraft, type RunEvent, type RunPatch } from '../core/index.ts';
import { isoNow } from '../core/iso-now.ts';
import { InOrder } from './in-order.ts';
import type { AppendFn, AppendOptions } from './transition.ts';

/** Commits drafts to the store (fenced by the pass's lease) and applies what was committed to the run's state. */
export type CommitFn = (drafts: EventDraft[], patch: RunPatch | undefined, expectLastEventId: number | undefined) => Promise<RunEvent[]>;

interface Deferred {
  drafts: EventDraft[];
  patch: RunPatch | undefined;
  /** The log's last event id when the drafts were deferred: the commit expects it unchanged. */
  after: number;
}

/**
 * The append of one pass over a run, with deferral (decision 0014). Events
 * appended with `{ defer: true }` (a model turn's answer; a read's decision and
 * call) are applied to the run's state at once and committed with the next
 * append, in the same transaction: a read step is one commit, a write step two
 * (the answer with the decision and the call, before the tool is reached; the
 * result). `flushAfterMs` commits them on their own if nothing else has by then.
 *
 * Nothing outside this process acts on a deferred answer: it is committed
 * before a write runs, before the model's next answer is used (the commit may
 * run while that model call is on its way, decision 0019) or a person is asked
 * to approve (each is preceded by an append, or by `append([])`), and at the
 * end of the pass. A crash before that loses a model answer nobody saw and
 * maybe a read's record; the model is asked again and the read may run again.
 *
 * Commits are made one after another, in the order of the appends, whatever
 * the store: a result appended while an earlier commit (carrying its call) is
 * still on its way never overtakes it.
 *
 * The commit expects the log unchanged since the deferral. If another writer
 * appended meanwhile (a cancel, from this process or another), the state this
 * pass folded no longer matches the log: the pass is `stale`, every later
 * append is refused, and the engine drives the run again from the log.
 */
export class PassAppender {
  readonly #commit: CommitFn;
  readonly #lastEventId: () => number;
  readonly #apply: (events: readonly RunEvent[]) => void;
  readonly #runId: string;
  readonly #allowDeferral: boolean;
  readonly #onStale: () => void;
  #deferred: Deferred | undefined;
  #stale = false;
  /** Commits what is deferred if nothing else does first (see AppendOptions.flushAfterMs). */
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** A commit made by the timer failed: the next append reports it. */
  #failed: unknown;
  /** Commits in the order asked; with none on its way, the next starts at once (see InOrder). */
  readonly #commits = new InOrder();
  /** The id of the last event of every commit asked for so far, held-back events included: where the log will be. */
  #projected = 0;

  /**
   * `onStale`: called once when a commit finds the log changed under what was
   * held back. The pass should stop at once (abort its calls in flight): its
   * state no longer matches the log, and the events it has not seen (a cancel
   * from another process) are read only once the run is driven again.
   */
  constructor(options: {
    runId: string;
    commit: CommitFn;
    lastEventId: () => number;
    apply: (events: readonly RunEvent[]) => void;
    allowDeferral: boolean;
    onStale?: () => void;
  }) {
    this.#runId = options.runId;
    this.#onStale = options.onStale ?? (() => undefined);
    this.#commit = options.commit;
    this.#lastEventId = options.lastEventId;
    this.#apply = options.apply;
    this.#allowDeferral = options.allowDeferral;
  }

  /** The log changed under a deferred append: this pass must end and the run be driven again from the log. */
  get stale(): boolean {
    return this.#stale;
  }

  readonly append: AppendFn = async (drafts: EventDraft[], patch?: RunPatch, options?: AppendOptions): Promise<RunEvent[]> => {
    if (this.#stale) throw this.#staleError();
    if (this.#failed !== undefined) throw this.#failed;
    if (options?.defer === true && this.#allowDeferral && drafts.length > 0) {
      const events = this.#defer(drafts, patch);
      if (options.flushAfterMs !== undefined) this.#timer ??= setTimeout(() => this.#flushLater(), options.flushAfterMs);
      return events;
    }
    const deferred = this.#deferred;
    // Taken before any await: an append running alongside does not commit the same drafts.
    this.#deferred = undefined;
    this.#stopTimer();
    if (deferred === undefined && drafts.length === 0) return [];
    this.#reserve(drafts.length);
    return this.#commits.run(() => this.#commitNow(deferred, drafts, patch));
  };

  async #commitNow(deferred: Deferred | undefined, drafts: EventDraft[], patch: RunPatch | undefined): Promise<RunEvent[]> {
    // An earlier commit found the log changed: nothing more is written for this pass.
    if (this.#stale) throw this.#staleError();
    if (deferred === undefined) return this.#commit(drafts, patch, undefined);
    try {
      const events = await this.#commit([...deferred.drafts, ...drafts], patch === undefined ? deferred.patch : { ...deferred.patch, ...patch }, deferred.after);
      return events.slice(deferred.drafts.length);
    } catch (error) {
      if (error instanceof ToolgateError && error.code === 'conflict') {
        if (!this.#stale) {
          this.#stale = true;
          this.#onStale();
        }
        throw this.#staleError(error);
      }
      throw error;
    }
  }

  /** Commits what is deferred, if anything. */
  flush(): Promise<unknown> {
    return this.append([]);
  }

  /** The pass is over: no timer may commit for it any more (what is held back was flushed, or the pass is dropped). */
  dispose(): void {
    this.#stopTimer();
  }

  #flushLater(): void {
    this.#timer = undefined;
    this.flush().catch((error: unknown) => {
      // Reported by the next append (a stale pass reports itself).
      if (!this.#stale) this.#failed ??= error;
    });
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * The ids `count` new events will get: after the log as this pass has seen
   * it, and after every commit already on its way (which the state has not
   * seen yet). Events held back get these ids in the state at once; the follower
   * applies them once the commits before them are in.
   */
  #reserve(count: number): number {
    const first = Math.max(this.#projected, this.#lastEventId()) + 1;
    this.#projected = first + count - 1;
    return first;
  }

  #defer(drafts: EventDraft[], patch: RunPatch | undefined): RunEvent[] {
    const first = this.#reserve(drafts.length);
    const time = isoNow();
    // As the store will return them: ids that follow the log, data read back from its JSON text.
    const events = drafts.map((d, i) => ({ id: first + i, runId: this.#runId, type: d.type, time, data: copyAsJson(d.data) }) as RunEvent);
    const held = this.#deferred;
    this.#deferred =
      held === undefined
        ? { drafts, patch, after: first - 1 }
        : { drafts: [...held.drafts, ...drafts], patch: patch === undefined ? held.patch : { ...held.patch, ...patch }, after: held.after };
    this.#apply(events);
    return events;
  }

  #staleError(cause?: unknown): ToolgateError {
    return new ToolgateError('conflict', `run ${this.#runId}: the log changed while this pass held a model answer back; the run is driven again from the log`, {
      ...(cause === undefined ? {} : { cause }),
    });
  }
}
