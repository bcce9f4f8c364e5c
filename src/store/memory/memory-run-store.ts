import { TERMINAL_RUN_STATUSES, ToolgateError, copyAsJson, parseJson, newId } from '../../core/index.ts';
import type {
  AppendOptions,
  ChangedRunsQuery,
  ClaimOptions,
  CompactResult,
  DeleteRunsResult,
  EventDraft,
  EventListener,
  IdempotencyRequest,
  ListRunsQuery,
  Message,
  NewRun,
  ReadEventsOptions,
  Run,
  RunEvent,
  RunLease,
  RunPage,
  RunPatch,
  RunStore,
  Thread,
  ToolPin,
} from '../../core/index.ts';
import { checkAppend } from '../append-guard.ts';
import { applyRunPatch } from './apply-run-patch.ts';
import { createdRun } from '../created-run.ts';
import { checkClaimOptions, checkLastEventId, checkLease, checkTtl } from '../lease-guard.ts';
import { storeNow, isoNow } from '../store-clock.ts';
import { readBackEvent, stampEvents } from '../stored-event.ts';
import { claimLease, claimOldest, hasEnded, releaseLease, renewLease, type LeasedRun } from './memory-leases.ts';
import { MemoryIdempotencyKeys } from './memory-idempotency-keys.ts';
import { MemoryThreads } from './memory-threads.ts';
import { MemoryLimits } from './memory-limits.ts';
import { MemoryToolPins } from './memory-tool-pins.ts';
import { RunListeners } from '../run-listeners.ts';
import { DEFAULT_PAGE_SIZE } from '../store-defaults.ts';
import { changedRunsPage } from './memory-changed-runs.ts';

export { DEFAULT_IDEMPOTENCY_TTL_MS, DEFAULT_PAGE_SIZE } from '../store-defaults.ts';

/** An event as the log keeps it: its data as JSON text, so no caller can reach into it. */
interface StoredEvent {
  id: number;
  type: RunEvent['type'];
  time: string;
  data: string;
}

interface Entry extends LeasedRun {
  events: StoredEvent[];
  /** Creation order: the keyset behind listRuns' cursor. */
  seq: number;
}

/** RunStore in process memory: for tests, the CLI's one-shot runs and `--store memory:`. */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, Entry>();
  readonly #keys = new MemoryIdempotencyKeys();
  readonly #threads = new MemoryThreads();
  readonly #pins = new MemoryToolPins();
  readonly limits = new MemoryLimits();
  readonly #listeners = new RunListeners();
  #seq = 0;
  #closed = false;

  async createRun(init: NewRun): Promise<Run> {
    this.#assertOpen();
    return copyAsJson(this.#insertRun(init));
  }

  async createAndClaimRun(init: NewRun, claim: ClaimOptions): Promise<{ run: Run; lease: RunLease | undefined }> {
    this.#assertOpen();
    checkClaimOptions(claim);
    // No await between the insert and the claim: nobody claims in between.
    const run = this.#insertRun(init);
    const entry = this.#entry(run.id);
    const lease = hasEnded(entry) ? undefined : claimLease(entry.lease, { ...claim, runId: run.id, now: storeNow() });
    return { run: copyAsJson(run), lease };
  }

  async createRunIdempotent(init: NewRun, idempotency: IdempotencyRequest): Promise<{ run: Run; created: boolean }> {
    this.#assertOpen();
    // No await between the key lookup and the insert: concurrent calls with one key must create one run.
    const now = Date.now();
    const existing = this.#keys.runOf(init.tenantId, idempotency, now);
    const entry = existing === undefined ? undefined : this.#runs.get(existing);
    if (entry !== undefined) return { run: copyAsJson(entry.run), created: false };
    const run = this.#insertRun(init);
    this.#keys.remember(init.tenantId, idempotency, { runId: run.id, now });
    return { run: copyAsJson(run), created: true };
  }

  async getThread(threadId: string, tenantId?: string): Promise<Thread | undefined> {
    this.#assertOpen();
    return this.#threads.get(threadId, tenantId);
  }

  async appendThreadMessages(threadId: string, messages: readonly Message[], tenantId?: string): Promise<void> {
    this.#assertOpen();
    this.#threads.append(threadId, messages, tenantId);
  }

  async getRun(runId: string): Promise<Run | undefined> {
    this.#assertOpen();
    const entry = this.#runs.get(runId);
    return entry === undefined ? undefined : copyAsJson(entry.run);
  }

  async listRuns(query: ListRunsQuery = {}): Promise<RunPage> {
    this.#assertOpen();
    const limit = Math.max(1, Math.floor(query.limit ?? DEFAULT_PAGE_SIZE));
    const before = query.cursor === undefined ? Infinity : parseCursor(query.cursor);
    // Newest first. The cursor is the creation number of the last run handed out,
    // so runs created between two pages neither repeat nor push older ones out.
    const matching = [...this.#runs.values()]
      .filter((e) => e.seq < before)
      .filter((e) => query.tenantId === undefined || e.run.tenantId === query.tenantId)
      .filter((e) => query.status === undefined || e.run.status === query.status)
      .filter((e) => query.threadId === undefined || e.run.threadId === query.threadId)
      .reverse();
    const page = matching.slice(0, limit);
    const runs = page.map((e) => copyAsJson(e.run));
    const last = page.at(-1);
    return matching.length > limit && last !== undefined ? { runs, nextCursor: String(last.seq) } : { runs };
  }

  // RunStore.append's four parameters are the public port's (src/core/ports/run-store.ts).
  // eslint-disable-next-line @typescript-eslint/max-params
  async append(
    runId: string,
    drafts: readonly EventDraft[],
    patch?: RunPatch,
    options: AppendOptions = {},
  ): Promise<RunEvent[]> {
    this.#assertOpen();
    const entry = this.#entry(runId);
    // No await from here to the write: two racing appends cannot both pass the checks.
    // Order: not_found, ended (conflict), lease (lease_lost), expectLastEventId (conflict).
    const endedBy = checkAppend(runId, { status: entry.run.status, endedBy: entry.endedBy }, drafts);
    if (options.lease !== undefined) checkLease(entry.lease, { runId, lease: options.lease, now: storeNow() });
    checkLastEventId(runId, entry.run.lastEventId, options.expectLastEventId);
    const time = isoNow();
    // The log keeps JSON text and everyone is handed a copy as it reads back, as the
    // SQLite store does: callers and listeners may mutate what they get, and see exactly
    // what a later read returns. (copyAsJson: the JSON round trip without the parse.)
    // Everything that may throw (a value JSON cannot hold) before anything is written.
    const first = entry.run.lastEventId + 1;
    const stored = drafts.map((d, i): StoredEvent => ({
      id: first + i,
      type: d.type,
      time,
      data: JSON.stringify(d.data),
    }));
    const events = stampEvents(drafts, { runId, first, time });
    const changes = patch === undefined ? undefined : copyAsJson(patch);
    for (const event of stored) entry.events.push(event);
    // The run's row is the store's own (everyone is handed a copy): updated in place.
    const run = entry.run;
    if (changes !== undefined) applyRunPatch(run, changes);
    run.lastEventId = first + drafts.length - 1;
    run.updatedAt = time;
    if (endedBy !== undefined) {
      entry.endedBy = endedBy;
      // An ended run needs no owner: its lease goes with the append that ended it.
      entry.lease.owner = undefined;
      entry.lease.expiresAt = undefined;
    }
    this.#listeners.notify(runId, events);
    return events;
  }

  async readEvents(runId: string, options: ReadEventsOptions = {}): Promise<RunEvent[]> {
    this.#assertOpen();
    const entry = this.#entry(runId);
    const after = Math.max(0, options.after ?? 0);
    // ids are 1..n with no gap, so the index of id k is k-1.
    const slice = entry.events.slice(after, options.limit === undefined ? undefined : after + options.limit);
    return slice.map((e) => eventOf(runId, e));
  }

  subscribe(runId: string, listener: EventListener): () => void {
    this.#assertOpen();
    if (!this.#runs.has(runId)) throw new ToolgateError('not_found', `run ${runId} does not exist`);
    return this.#listeners.add(runId, listener);
  }

  async claimRun(runId: string, options: ClaimOptions): Promise<RunLease | undefined> {
    this.#assertOpen();
    checkClaimOptions(options);
    const entry = this.#entry(runId);
    return hasEnded(entry) ? undefined : claimLease(entry.lease, { ...options, runId, now: storeNow() });
  }

  async claimNext(options: ClaimOptions & { limit: number }): Promise<RunLease[]> {
    this.#assertOpen();
    checkClaimOptions(options);
    // The map keeps creation order (deleteRuns only takes runs out): oldest first.
    return claimOldest(this.#runs.values(), options, storeNow());
  }

  async renewLease(lease: RunLease, ttlMs: number): Promise<RunLease | undefined> {
    this.#assertOpen();
    checkTtl(ttlMs);
    const entry = this.#runs.get(lease.runId);
    return entry === undefined ? undefined : renewLease(entry.lease, { lease, ttlMs, now: storeNow() });
  }

  async releaseRun(lease: RunLease): Promise<Run | undefined> {
    this.#assertOpen();
    const entry = this.#runs.get(lease.runId);
    if (entry === undefined) return undefined;
    releaseLease(entry.lease, lease);
    return copyAsJson(entry.run);
  }

  async listChangedRuns(query: ChangedRunsQuery): Promise<RunPage> {
    this.#assertOpen();
    return changedRunsPage(
      [...this.#runs.values()].map((e) => e.run),
      query,
    );
  }

  async deleteRuns(runIds: readonly string[]): Promise<DeleteRunsResult> {
    this.#assertOpen();
    const result: DeleteRunsResult = { deleted: [], kept: [] };
    for (const runId of new Set(runIds)) {
      const entry = this.#runs.get(runId);
      if (entry === undefined) result.kept.push({ runId, reason: 'not_found' });
      else if (!TERMINAL_RUN_STATUSES.has(entry.run.status)) result.kept.push({ runId, reason: 'not_ended' });
      else {
        this.#runs.delete(runId);
        this.#keys.forgetRun(runId);
        result.deleted.push(runId);
      }
    }
    return result;
  }

  /** Nothing on disk: the Map gives memory back as runs leave it. */
  async compact(): Promise<CompactResult> {
    this.#assertOpen();
    return { bytesBefore: 0, bytesAfter: 0 };
  }

  async listToolPins(): Promise<ToolPin[]> {
    this.#assertOpen();
    return this.#pins.list();
  }

  async pinToolIfNew(pin: ToolPin): Promise<ToolPin> {
    this.#assertOpen();
    return this.#pins.pinIfNew(pin);
  }

  async replaceToolPin(pin: ToolPin): Promise<void> {
    this.#assertOpen();
    this.#pins.replace(pin);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
  }

  #insertRun(init: NewRun): Run {
    const id = init.id ?? newId('run');
    if (this.#runs.has(id)) throw new ToolgateError('conflict', `run ${id} already exists`);
    // A copy, as the SQL stores keep what they were given: the caller's objects stay the caller's.
    const run = copyAsJson(createdRun(init, { id, now: isoNow() }));
    this.#seq += 1;
    this.#runs.set(id, {
      run,
      events: [],
      seq: this.#seq,
      lease: { owner: undefined, epoch: 0, expiresAt: undefined },
    });
    return run;
  }

  #entry(runId: string): Entry {
    const entry = this.#runs.get(runId);
    if (entry === undefined) throw new ToolgateError('not_found', `run ${runId} does not exist`);
    return entry;
  }

  #assertOpen(): void {
    if (this.#closed) throw new ToolgateError('internal', 'the run store is closed');
  }
}

function parseCursor(cursor: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(cursor)) {
    throw new ToolgateError('usage', `invalid cursor "${cursor}": pass the nextCursor of a previous page unchanged`);
  }
  return Number(cursor);
}

function eventOf(runId: string, stored: StoredEvent): RunEvent {
  return readBackEvent({ id: stored.id, runId, type: stored.type, time: stored.time, data: parseJson(stored.data) });
}
