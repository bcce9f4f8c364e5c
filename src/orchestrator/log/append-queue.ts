import {
  ToolgateError,
  copyAsJson,
  type EventDraft,
  type RunEvent,
  type RunEventType,
  type RunPatch,
} from '../../core/index.ts';
import { isoNow } from '../../core/iso-now.ts';
import { InOrder } from './in-order.ts';
import type { AppendOptions, AppendPatch } from './transition.ts';

/**
 * One commit to the store, fenced by the writer's lease; `expectLastEventId` when the writer knows where it must land.
 */
export interface Commit {
  drafts: EventDraft[];
  patch: RunPatch | undefined;
  expectLastEventId: number | undefined;
}

/** An append's options at the writer: those of AppendFn, and an expectation of the caller's own. */
export interface WriteOptions extends AppendOptions {
  /**
   * Commit only if the log still ends here (a status change checked against
   * the run as the caller read it): a `conflict` otherwise, for the caller to
   * handle. Not for a writer that holds appends back.
   */
  expectLastEventId?: number | undefined;
}

export interface AppendQueueOptions {
  runId: string;
  commit: (commit: Commit) => Promise<RunEvent[]>;
  /** The last event id of the state the writer keeps (held-back events included). */
  lastEventId: () => number;
  /** Hands held-back events to that state at once. */
  apply: (events: readonly RunEvent[]) => void;
  /** Appends with `defer` may be held back (decision 0014); otherwise each is committed at once. */
  holdBack: boolean;
  /**
   * Called once when a commit finds the log changed where the writer expected
   * it: the owner should stop at once (abort its calls in flight), its state
   * no longer matches the log.
   */
  onStale?: (() => void) | undefined;
}

interface Held {
  drafts: EventDraft[];
  patch: AppendPatch | undefined;
  /** The log's last event id when the drafts were held back: the commit expects it unchanged. */
  after: number;
}

/**
 * The appends of one run writer, in order, held back or not (decision 0014).
 * Events appended with `{ defer: true }` (a model turn's answer; a read's
 * decision and call) are applied to the state at once and committed with the
 * next append, in the same transaction: a read step is one commit, a write
 * step two. `flushAfterMs` commits them on their own if nothing else has by then.
 *
 * Nothing outside this process acts on a held-back answer: it is committed
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
 * A commit whose ids matter — it carries held-back events, or a pending
 * approval that names its approval_required event — expects the log where
 * the queue reserved them. If another writer appended meanwhile (a cancel,
 * from this process or another), the state no longer matches the log: the
 * queue is `stale`, every later append is refused, and the run is driven
 * again from the log.
 */
export class AppendQueue {
  readonly #options: AppendQueueOptions;
  #held: Held | undefined;
  #stale = false;
  /** Commits what is held back if nothing else does first (see AppendOptions.flushAfterMs). */
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** A commit made by the timer failed: the next append reports it. */
  #failed: unknown;
  /** Commits in the order asked; with none on its way, the next starts at once (see InOrder). */
  readonly #commits = new InOrder();
  /** The id of the last event of every commit asked for so far, held-back events included: where the log will be. */
  #projected = 0;

  constructor(options: AppendQueueOptions) {
    this.#options = options;
  }

  /** The log changed under what the queue expected: its owner must stop, and the run be driven again from the log. */
  get stale(): boolean {
    return this.#stale;
  }

  /**
   * Not an async function: the commit's own promise is handed back as it is, without another promise resolved with it
   * (two microtask turns more on every append). What it throws before that is handed back rejected, as an async
   * function would.
   */
  readonly append = (drafts: EventDraft[], patch?: AppendPatch, options?: WriteOptions): Promise<RunEvent[]> => {
    try {
      return this.#append(drafts, patch, options);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  #append(
    drafts: EventDraft[],
    patch: AppendPatch | undefined,
    options: WriteOptions | undefined,
  ): Promise<RunEvent[]> {
    if (this.#stale) throw this.#staleError();
    if (this.#failed !== undefined) throw this.#failed;
    if (options?.defer === true && this.#options.holdBack && drafts.length > 0) {
      const events = this.#holdBack(drafts, patch);
      if (options.flushAfterMs !== undefined)
        this.#timer ??= setTimeout(() => this.#flushLater(), options.flushAfterMs);
      return Promise.resolve(events);
    }
    const held = this.#held;
    // Taken before any await: an append running alongside does not commit the same drafts.
    this.#held = undefined;
    this.#stopTimer();
    if (held === undefined && drafts.length === 0) return Promise.resolve([]);
    if (held !== undefined && options?.expectLastEventId !== undefined) {
      throw new ToolgateError(
        'internal',
        `run ${this.#options.runId}: an append with an expectation of its own met held-back events`,
      );
    }
    const after = this.#reserve(drafts.length) - 1;
    const batch: Held =
      held === undefined
        ? { drafts, patch, after }
        : { drafts: [...held.drafts, ...drafts], patch: merge(held.patch, patch), after: held.after };
    const own = options?.expectLastEventId;
    // Where the batch lands matters to the queue when it carries held-back events or names its approval_required event.
    const asks = batch.patch?.pendingApproval;
    const fenced = held !== undefined || (own === undefined && asks !== undefined && asks !== null);
    const expect = own ?? (fenced ? batch.after : undefined);
    const skip = held?.drafts.length ?? 0;
    return this.#commits.run(() => this.#commitNow({ batch, expect, fenced, skip }));
  }

  async #commitNow(job: {
    batch: Held;
    expect: number | undefined;
    fenced: boolean;
    skip: number;
  }): Promise<RunEvent[]> {
    // An earlier commit found the log changed: nothing more is written.
    if (this.#stale) throw this.#staleError();
    const { batch, expect } = job;
    try {
      const events = await this.#options.commit({
        drafts: batch.drafts,
        patch: withApprovalId(batch, expect),
        expectLastEventId: expect,
      });
      return job.skip === 0 ? events : events.slice(job.skip);
    } catch (error) {
      if (!(job.fenced && error instanceof ToolgateError && error.code === 'conflict')) throw error;
      if (!this.#stale) {
        this.#stale = true;
        this.#options.onStale?.();
      }
      throw this.#staleError(error);
    }
  }

  /** Commits what is held back, if anything. */
  flush(): Promise<unknown> {
    return this.append([]);
  }

  /** Settles once every commit asked for so far has settled. */
  settled(): Promise<unknown> {
    return this.#commits.settled();
  }

  /** The owner is done: no timer may commit for it any more (what is held back was flushed, or is dropped). */
  dispose(): void {
    this.#stopTimer();
  }

  #flushLater(): void {
    this.#timer = undefined;
    this.flush().catch((error: unknown) => {
      // Reported by the next append (a stale queue reports itself).
      if (!this.#stale) this.#failed ??= error;
    });
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * The id the first of `count` new events will get: after the log as the
   * state has it, and after every commit already on its way (which the state
   * has not seen yet). Held-back events get these ids in the state at once;
   * the follower applies them once the commits before them are in.
   */
  #reserve(count: number): number {
    const first = Math.max(this.#projected, this.#options.lastEventId()) + 1;
    this.#projected = first + count - 1;
    return first;
  }

  #holdBack(drafts: EventDraft[], patch: AppendPatch | undefined): RunEvent[] {
    const first = this.#reserve(drafts.length);
    const time = isoNow();
    const { runId } = this.#options;
    // As the store will return them: ids that follow the log, data read back from its JSON text.
    const events: RunEvent[] = drafts.map((d, i) => heldEvent(d, { id: first + i, runId, time }));
    const held = this.#held;
    this.#held =
      held === undefined
        ? { drafts, patch, after: first - 1 }
        : { drafts: [...held.drafts, ...drafts], patch: merge(held.patch, patch), after: held.after };
    this.#options.apply(events);
    return events;
  }

  #staleError(cause?: unknown): ToolgateError {
    return new ToolgateError(
      'conflict',
      `run ${this.#options.runId}: the log changed under what this ` +
        `pass held back or asked for; the run is driven again from the log`,
      {
        ...(cause === undefined ? {} : { cause }),
      },
    );
  }
}

/** A held-back event, its fields in the order a store's events have; only its data is copied (a draft has no more). */
function heldEvent<K extends RunEventType>(
  d: EventDraft<K>,
  at: { id: number; runId: string; time: string },
): RunEvent<K> {
  return { id: at.id, runId: at.runId, type: d.type, time: at.time, data: copyAsJson(d.data) };
}

function merge(first: AppendPatch | undefined, then: AppendPatch | undefined): AppendPatch | undefined {
  return then === undefined ? first : { ...first, ...then };
}

/**
 * The batch's patch as the store takes it: a pending approval points at the
 * approval_required event of this batch, whose id follows from where the
 * commit is expected to land.
 */
function withApprovalId(batch: Held, expect: number | undefined): RunPatch | undefined {
  if (batch.patch === undefined) return undefined;
  const { pendingApproval, ...rest } = batch.patch;
  if (pendingApproval === undefined) return rest;
  if (pendingApproval === null) return { ...rest, pendingApproval: null };
  const at = batch.drafts.findLastIndex(
    (d) => d.type === 'approval_required' && d.data.toolCallId === pendingApproval.toolCallId,
  );
  if (at === -1 || expect === undefined) {
    throw new ToolgateError(
      'internal',
      `a pending approval for ${pendingApproval.toolCallId} is appended ` +
        `with its approval_required event, at a known place in the log`,
    );
  }
  return { ...rest, pendingApproval: { ...pendingApproval, eventId: expect + 1 + at } };
}
