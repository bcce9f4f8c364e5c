import { ToolgateError, describeError, draft, type Run, type RunInput, type RunStore } from '../../core/index.ts';
import type { ApprovalNotifier, NotifyLog } from './approval-notifier.ts';
import { DeadlineHeap } from './deadline-heap.ts';
import { formatWait } from './format-wait.ts';
import { callProgress, currentRound, deliveryId, nextTimeout, type CallProgress } from './timeout-plan.ts';
import { waitingCallOf, type ApprovalsConfig, type WaitingCall } from './waiting-call.ts';

/** How often the waiting runs are listed again (runs other instances began, notifications they never sent). */
export const DEFAULT_RESCAN_MS = 30_000;
/**
 * A scan after the first lists only the waiting runs changed since the previous one began, less this much: another
 * instance's clock may be behind ours, and a change committed just after a scan read must be seen by the next.
 */
export const RESCAN_MARGIN_MS = 5000;
/** One scan in this many lists every waiting run, not only the changed ones (by default every 5 minutes). */
export const FULL_SCAN_EVERY = 10;
/** A round's notification not recorded this long after the round began is sent (again): at-least-once delivery. */
export const DEFAULT_NOTIFY_GRACE_MS = 10_000;
/** Node's timers take at most 2^31-1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Re-reads of a run that changed under an approval_timed_out append. */
const ACT_ATTEMPTS = 3;
const PAGE = 100;

export type ApprovalDecision = Extract<RunInput, { type: 'approval' }>;

export interface ApprovalSweeperOptions {
  /** Without listChangedRuns, every scan lists all the waiting runs. */
  store: Pick<RunStore, 'getRun' | 'listRuns' | 'readEvents' | 'append'> & Partial<Pick<RunStore, 'listChangedRuns'>>;
  config: ApprovalsConfig;
  notifier: ApprovalNotifier;
  /** Records a decision through the runs' input path and drives the run on. */
  decide: (runId: string, input: ApprovalDecision) => Promise<unknown>;
  log: NotifyLog;
  now?: () => number;
  rescanMs?: number;
  notifyGraceMs?: number;
}

/**
 * Timeouts of waiting calls and notifications nobody recorded, with one timer for the whole process: a min-heap of
 * deadlines fed by calls that begin to wait here and by a periodic scan of the waiting runs (which also finds those
 * of other instances sharing the store). At a deadline the run is read again; approval_timed_out is appended against
 * its last event id, so of several instances exactly one acts on a timeout. What is kept per waiting call is its
 * deadline; the scans after the first read only the runs that changed since, so thousands of calls waiting cost
 * nothing while they wait.
 */
export class ApprovalSweeper {
  readonly #o: ApprovalSweeperOptions;
  readonly #now: () => number;
  readonly #heap = new DeadlineHeap<{ key: string; at: number }>();
  /** The earliest deadline queued per call (`runId toolCallId`): later heap entries for it are stale. */
  readonly #due = new Map<string, number>();
  /** The last event id each waiting call was looked at with: a scan skips calls whose run did not change. */
  readonly #seen = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #nextScan = 0;
  /** When the last scan began (our clock); undefined until the first, which lists every waiting run. */
  #lastScan: number | undefined;
  /** Scans made so far: every FULL_SCAN_EVERY-th lists every waiting run. */
  #scans = 0;
  #work: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: ApprovalSweeperOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Scans the waiting runs once and arms the timer. */
  async start(): Promise<void> {
    await this.tick();
  }

  /**
   * A call began to wait in this process: its deadline (and the check that it was notified) is queued. `lastEventId`:
   * the run's as read then; the scans skip the call while its run stays there (its deadlines are queued already).
   */
  waiting(call: WaitingCall, lastEventId?: number): void {
    const since = Date.parse(call.since);
    const key = keyOf(call.runId, call.toolCallId);
    if (this.#o.config.timeoutMs !== undefined) this.#schedule(key, since + this.#o.config.timeoutMs);
    if ((this.#o.config.notify?.length ?? 0) > 0)
      this.#schedule(key, since + (this.#o.notifyGraceMs ?? DEFAULT_NOTIFY_GRACE_MS));
    if (lastEventId !== undefined && this.#due.has(key)) this.#seen.set(key, lastEventId);
    this.#arm();
  }

  /** Handles what is due now (deadlines, a scan), then arms the timer for what comes next. */
  tick(): Promise<void> {
    this.#work = this.#work.then(() => this.#tick());
    return this.#work;
  }

  /** Stops the timer; resolves once the work under way is done. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#work;
  }

  async #tick(): Promise<void> {
    if (this.#closed) return;
    const now = this.#now();
    try {
      if (now >= this.#nextScan) {
        this.#nextScan = now + (this.#o.rescanMs ?? DEFAULT_RESCAN_MS);
        await this.#scan(now);
      }
      for (const { key, at } of this.#heap.popDue(now)) {
        if (this.#due.get(key) !== at) continue;
        this.#due.delete(key);
        const [runId = '', toolCallId = ''] = key.split(' ');
        await this.#evaluate(runId, toolCallId, undefined).catch((error: unknown) => this.#retryLater(key, error, now));
        this.#forgetUnlessDue(key);
      }
    } catch (error) {
      this.#o.log('error', `approval timeouts: ${describeError(error)}`);
    }
    this.#arm();
  }

  async #scan(now: number): Promise<void> {
    const seen = new Set<string>();
    const list = this.#o.store.listChangedRuns?.bind(this.#o.store);
    // A call that waits unchanged has its deadline queued already: only changes need a look.
    // Every FULL_SCAN_EVERY-th scan lists every waiting run again: a change stamped by a clock further behind ours
    // than the margin (another instance's, the database's) or committed long after its stamp is seen then.
    const full = list === undefined || this.#lastScan === undefined || this.#scans % FULL_SCAN_EVERY === 0;
    this.#scans += 1;
    const since =
      full || this.#lastScan === undefined ? undefined : new Date(this.#lastScan - RESCAN_MARGIN_MS).toISOString();
    let cursor: string | undefined;
    do {
      const query = { limit: PAGE, ...(cursor === undefined ? {} : { cursor }) };
      const page =
        list === undefined || since === undefined
          ? await this.#o.store.listRuns({ status: 'waiting_approval', ...query })
          : await list({ since, statuses: ['waiting_approval'], ...query });
      for (const run of page.runs) {
        const pending = run.pendingApproval;
        if (pending === undefined) continue;
        const key = keyOf(run.id, pending.toolCallId);
        seen.add(key);
        if (this.#seen.get(key) === run.lastEventId && this.#due.has(key)) continue;
        await this.#evaluate(run.id, pending.toolCallId, run).catch((error: unknown) =>
          this.#retryLater(key, error, now),
        );
        this.#forgetUnlessDue(key);
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined && !this.#closed);
    // A full scan saw every waiting call: what it did not see waits no more.
    if (since === undefined) for (const key of this.#seen.keys()) if (!seen.has(key)) this.#seen.delete(key);
    this.#lastScan = now;
  }

  /**
   * A call whose look failed (the store unavailable, a decision refused) is looked at again at the next scan's time:
   * a later scan may not list it (it lists what changed), and its deadline left the heap.
   */
  #retryLater(key: string, error: unknown, now: number): void {
    const [runId = ''] = key.split(' ');
    this.#o.log('error', `approval timeouts: run ${runId}: ${describeError(error)}`, { runId, now });
    this.#schedule(key, now + (this.#o.rescanMs ?? DEFAULT_RESCAN_MS));
  }

  /** What a call was last looked at with only matters while a deadline of it is queued (the scan's skip). */
  #forgetUnlessDue(key: string): void {
    if (!this.#due.has(key)) this.#seen.delete(key);
  }

  /** Looks at one waiting call as the store has it now: notifies what was missed, acts on a timeout that is due. */
  async #evaluate(runId: string, toolCallId: string, read: Run | undefined): Promise<void> {
    let run = read;
    for (let attempt = 1; attempt <= ACT_ATTEMPTS; attempt++) {
      run ??= await this.#o.store.getRun(runId);
      const pending = run?.pendingApproval;
      if (run === undefined || run.status !== 'waiting_approval' || pending?.toolCallId !== toolCallId) return;
      const key = keyOf(runId, toolCallId);
      this.#seen.set(key, run.lastEventId);
      const events = await this.#o.store.readEvents(runId, { after: pending.eventId - 1 });
      const progress = callProgress(events, toolCallId);
      if (progress === undefined) return;
      const call = waitingCallOf(run, new Date(progress.since).toISOString());
      if (call === undefined) return;
      const now = this.#now();
      this.#catchUp(call, progress, now);
      const next = nextTimeout(this.#o.config, progress);
      const last = progress.timeouts.at(-1);
      if (next === undefined) {
        // A reject timeout whose decision never came (its process stopped in between): decide it now.
        if (last?.action !== 'reject') return;
        const grace = last.at + (this.#o.notifyGraceMs ?? DEFAULT_NOTIFY_GRACE_MS);
        if (grace > now) this.#schedule(key, grace);
        else await this.#reject(call, `no decision after the timeout of ${formatWait(now - progress.since)}`);
        return;
      }
      if (next.at > now) {
        this.#schedule(key, next.at);
        return;
      }
      try {
        await this.#o.store.append(
          runId,
          [
            draft('approval_timed_out', {
              toolCallId,
              action: next.action,
              waitedMs: now - progress.since,
              round: next.round,
            }),
          ],
          undefined,
          { expectLastEventId: run.lastEventId },
        );
      } catch (error) {
        // Another instance acted, a decision came, or a notification was recorded: look again at what is there now.
        if (error instanceof ToolgateError && error.code === 'conflict') {
          run = undefined;
          continue;
        }
        throw error;
      }
      this.#o.log('info', `approval timed out: ${next.action}`, { runId, toolCallId, round: next.round });
      if (next.action === 'reject') {
        await this.#reject(call, `no decision within ${formatWait(next.afterMs)} (${next.setting})`);
        return;
      }
      const round = currentRound(this.#o.config, {
        ...progress,
        timeouts: [...progress.timeouts, { action: next.action, at: now, round: next.round }],
      });
      if (round !== undefined) this.#send(call, round);
      run = undefined;
    }
  }

  /** Sends the current round's notifications that were never recorded once the round is older than the grace. */
  #catchUp(call: WaitingCall, progress: CallProgress, now: number): void {
    const round = currentRound(this.#o.config, progress);
    if (round === undefined) return;
    const missing = this.#o.notifier.matching(round.targets, call).filter((target) => {
      const id = deliveryId({ runId: call.runId, toolCallId: call.toolCallId, target: target.name, ...round });
      return !progress.notified.has(id) && !this.#o.notifier.inFlight(id);
    });
    if (missing.length === 0) return;
    const at = round.since + (this.#o.notifyGraceMs ?? DEFAULT_NOTIFY_GRACE_MS);
    if (at > now) this.#schedule(keyOf(call.runId, call.toolCallId), at);
    else this.#send(call, { ...round, targets: missing });
  }

  #send(call: WaitingCall, round: Parameters<ApprovalNotifier['notify']>[1]): void {
    this.#o.notifier
      .notify(call, round)
      .catch((error: unknown) =>
        this.#o.log('error', `approval notification: ${describeError(error)}`, { runId: call.runId }),
      );
  }

  async #reject(call: WaitingCall, reason: string): Promise<void> {
    try {
      await this.#o.decide(call.runId, {
        type: 'approval',
        toolCallId: call.toolCallId,
        decision: 'reject',
        reason,
        source: { via: 'timeout' },
      });
    } catch (error) {
      // A person (or another instance) decided first: the call is no longer waiting.
      if (error instanceof ToolgateError && error.code === 'conflict') return;
      throw error;
    }
  }

  #schedule(key: string, at: number): void {
    const queued = this.#due.get(key);
    if (queued !== undefined && queued <= at) return;
    this.#due.set(key, at);
    this.#heap.push(at, { key, at });
  }

  #arm(): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const next = Math.min(this.#heap.peek() ?? Number.POSITIVE_INFINITY, this.#nextScan);
    const delay = Math.max(0, Math.min(MAX_TIMER_MS, next - this.#now()));
    this.#timer = setTimeout(() => void this.tick(), delay);
    // Never what keeps the process alive: close() ends it on shutdown, and an exit needs no timeout.
    this.#timer.unref();
  }
}

function keyOf(runId: string, toolCallId: string): string {
  return `${runId} ${toolCallId}`;
}
