import type { EventDraft, RunEvent } from '../events.ts';
import type { NewRun, Run, RunPatch, RunStatus, Thread } from '../runs.ts';
import type { Message } from '../messages.ts';
import type { JsonObject } from '../json.ts';
import type { LimitStore } from './limit-store.ts';

export interface ReadEventsOptions {
  /** Only events with an id greater than this (resume point). */
  after?: number;
  limit?: number;
}

export interface ListRunsQuery {
  tenantId?: string;
  status?: RunStatus;
  threadId?: string;
  limit?: number;
  /** Opaque cursor from a previous page. */
  cursor?: string;
}

/**
 * Runs by when they last changed, oldest first by (updatedAt, id), keyset-paginated: the live statistics follow the
 * runs other processes change, and retention finds ended runs older than its cut-off.
 */
export interface ChangedRunsQuery {
  /** Only runs whose updatedAt is at or after this (ISO 8601). */
  since?: string;
  /** Only runs whose updatedAt is before this (ISO 8601). */
  before?: string;
  /** Only runs in one of these statuses. */
  statuses?: readonly RunStatus[];
  limit?: number;
  /** Opaque cursor from a previous page of the same query. */
  cursor?: string;
}

/** What deleteRuns did: the runs removed, and those it kept with the reason. */
export interface DeleteRunsResult {
  deleted: string[];
  /** Runs not removed: not found, or not ended (a run that has not ended is never removed). */
  kept: { runId: string; reason: 'not_found' | 'not_ended' }[];
}

/** The store's size on disk before and after compacting (0 for the memory store). */
export interface CompactResult {
  bytesBefore: number;
  bytesAfter: number;
}

export interface RunPage {
  runs: Run[];
  nextCursor?: string;
}

/** An Idempotency-Key as a client sent it, scoped per tenant. */
export interface IdempotencyRequest {
  key: string;
  /** Hash of the request body: the same key with another body is refused. */
  requestHash: string;
  /** Keep the key at least this long (default 24 h). */
  ttlMs?: number;
}

export type EventListener = (events: readonly RunEvent[]) => void;

/**
 * The right to drive one run, held by one owner (a process's engine) until
 * `expiresAt`. `epoch` grows with every claim: it is the fencing token that
 * `append` checks, so an owner that lost its lease can never write again.
 */
export interface RunLease {
  runId: string;
  owner: string;
  epoch: number;
  /** Milliseconds since the Unix epoch, by the store's clock. */
  expiresAt: number;
}

export interface ClaimOptions {
  /** Stable for the life of one process's engine; unique across processes. */
  owner: string;
  /** How long the lease lasts unless renewed. */
  ttlMs: number;
}

export interface AppendOptions {
  /**
   * The writer's lease (the run's owner). The append is refused with
   * `lease_lost` unless the run's current lease has this owner and epoch and
   * has not expired. Client input (decisions, messages, cancel requests) is
   * appended without a lease.
   */
  lease?: RunLease;
  /**
   * Optimistic concurrency: refused with `conflict` unless the run's
   * lastEventId is still this (a decision checked against the state it read).
   */
  expectLastEventId?: number;
}

/** An upstream MCP tool's definition as first seen or as an operator last accepted it (gateway tool pinning). */
export interface ToolPin {
  /** The configured server name (ToolSpec.origin.server). */
  server: string;
  /** The tool's own name on that server (ToolSpec.origin.tool). */
  tool: string;
  /** sha256 (hex) of the canonical JSON of `definition`. */
  fingerprint: string;
  /**
   * What was fingerprinted: { name, title?, description, inputSchema, outputSchema?, annotations? } (name =
   * origin.tool).
   */
  definition: JsonObject;
  /** When it was pinned or last accepted (ISO 8601). */
  pinnedAt: string;
  /** "first-seen" for an automatic first pin; otherwise who accepted the change. */
  acceptedBy: string;
}

/**
 * Where runs and their event logs live. The log is the single source of
 * truth: live subscribers, resume, recovery and audit all read it.
 *
 * Contract (checked by test/contract/run-store.contract.ts on every implementation):
 * - `append` numbers events 1, 2, 3… per run with no gap, stamps their time,
 *   and applies `patch` to the run in the same atomic step: a reader never
 *   sees the status change without its event, or the event without it.
 * - Once `append` resolves, the events are durable (as far as the store is)
 *   and every subscriber of that run has been handed them, in order, once.
 * - Appending to an unknown run rejects with `not_found`.
 * - Nothing follows a terminal event (run_completed, run_failed,
 *   run_cancelled). `append` rejects with `conflict` when the run has ended —
 *   its status is completed, failed or cancelled, or its log already holds a
 *   terminal event — and when the batch has an event after its own terminal
 *   event. The check is part of the same atomic step as the write, so of two
 *   racing appends, one of which ends the run, the other either lands before
 *   the terminal event or is refused. A refused append writes nothing, applies
 *   no patch and reaches no subscriber.
 * - Threads are per tenant: `(tenantId, threadId)` names a thread, and callers
 *   without a tenant share one more namespace of their own. The same thread id
 *   used by two tenants gives two independent threads; neither sees, extends
 *   nor blocks the other's.
 * - Leases (claimRun, claimNext, renewLease, releaseRun): at most one owner
 *   holds a live lease on a run; every claim raises the run's epoch; an
 *   append that carries a lease is refused with `lease_lost` (writing
 *   nothing) unless that lease is the run's current one and unexpired. The
 *   append that ends a run (its terminal event) also releases whatever lease
 *   the run had, in the same write: nothing may be written to an ended run,
 *   and the owner's releaseRun afterwards changes nothing.
 * - Tool pins are keyed by `(server, tool)`: at most one per key. The first
 *   `pinToolIfNew` for a key wins, across processes sharing the store; only
 *   `replaceToolPin` changes a pin. A pin reads back exactly as it was written.
 * - Runs, events, threads, idempotency keys and tool pins are returned as
 *   copies: callers may mutate what they get without touching the store.
 */
export interface RunStore {
  createRun(init: NewRun): Promise<Run>;
  /**
   * Optional: createRun and claimRun in one atomic write, for a caller that
   * drives the run it creates at once (one commit instead of two). The lease
   * is undefined when the new run's status has ended it, as claimRun's would be.
   */
  createAndClaimRun?(init: NewRun, claim: ClaimOptions): Promise<{ run: Run; lease: RunLease | undefined }>;
  /**
   * Creates the run unless this tenant already used `idempotency.key`: then
   * returns that run with `created: false`. Atomic: concurrent calls with one
   * key create one run. Same key, different `requestHash` → `idempotency_mismatch`.
   */
  createRunIdempotent(init: NewRun, idempotency: IdempotencyRequest): Promise<{ run: Run; created: boolean }>;
  getRun(runId: string): Promise<Run | undefined>;
  listRuns(query?: ListRunsQuery): Promise<RunPage>;
  append(runId: string, drafts: readonly EventDraft[], patch?: RunPatch, options?: AppendOptions): Promise<RunEvent[]>;
  readEvents(runId: string, options?: ReadEventsOptions): Promise<RunEvent[]>;
  /** Live events appended after this call, for one run. Returns the unsubscribe function. */
  subscribe(runId: string, listener: EventListener): () => void;
  /**
   * Optional: a wake-up call for appends made by any process sharing the
   * store, where `subscribe` hears only this one's. Resolves, with the
   * unwatch function, once the store is listening — or at once when it
   * cannot listen for the moment (its database is unavailable): the watch
   * is kept, and woken like the others once the store listens again. From then on
   * `onAppended` is called whenever events were appended to `runId`, with
   * the id of the last of them. Calls may come late, several appends may be
   * coalesced into one call, and a call may come when nothing new was
   * appended (after the store lost and regained its connection it wakes
   * every watcher once, with the run's last event id as far as it can read
   * it, else 0). The number is a hint: the log is the truth, so on a
   * wake-up read `readEvents(runId, { after })` from your own position.
   * `onAppended` must not throw (a throw is reported as a warning); the run
   * need not exist yet. Stores that cannot see other processes leave this
   * out: then poll the log (as the SSE stream does with its poll interval).
   */
  watch?(runId: string, onAppended: (lastEventId: number) => void): Promise<() => void>;
  /**
   * This tenant's thread `threadId` (the untenanted one when `tenantId` is
   * absent), or undefined when it has no messages yet — whatever other
   * tenants keep under the same id.
   */
  getThread(threadId: string, tenantId?: string): Promise<Thread | undefined>;
  /**
   * Appends messages to this tenant's thread `threadId`, creating it on first use; never fails because another tenant
   * uses the id.
   */
  appendThreadMessages(threadId: string, messages: readonly Message[], tenantId?: string): Promise<void>;
  /**
   * Claims the run for `owner`: succeeds when the run has no lease, its lease
   * has expired, or `owner` already holds it; the epoch then grows by one.
   * Resolves `undefined` when another owner's lease is live or the run has
   * ended. Atomic across processes sharing the store. Unknown run → `not_found`.
   */
  claimRun(runId: string, options: ClaimOptions): Promise<RunLease | undefined>;
  /**
   * Claims up to `limit` runs that need an owner — status `queued` or
   * `running` with no live lease (their owner stopped or crashed) — oldest
   * first, each atomically as claimRun does; a run another caller claims at the
   * same moment is skipped, never claimed twice.
   */
  claimNext(options: ClaimOptions & { limit: number }): Promise<RunLease[]>;
  /**
   * Extends a lease this owner still holds (same owner and epoch, even if it
   * has just expired and nobody else claimed it). Resolves `undefined` when
   * the lease was lost: the owner must stop driving the run at once.
   */
  renewLease(lease: RunLease, ttlMs: number): Promise<RunLease | undefined>;
  /**
   * Gives the lease up if it is still held (same owner and epoch) and returns
   * the run as it stands, so the owner can see whether input arrived that
   * needs another pass (status `running` or `queued`).
   */
  releaseRun(lease: RunLease): Promise<Run | undefined>;
  /**
   * Optional: writes a run copied from another store (`toolgate migrate`) as
   * it was — id, status, settings, times — with its whole log, numbered and
   * stamped as given (ids 1, 2, 3…), in one atomic step. Resolves `exists`,
   * writing nothing, when the store already has a run with that id. The copy
   * has no lease: an unfinished run is claimed like any run that needs an owner.
   */
  importRun?(run: Run, events: readonly RunEvent[]): Promise<'imported' | 'exists'>;
  /** Runs by when they last changed (ChangedRunsQuery); stores that cannot answer leave it out. */
  listChangedRuns?(query: ChangedRunsQuery): Promise<RunPage>;
  /**
   * Removes ended runs with their events and idempotency keys, in one atomic step per run: a run whose status is not
   * completed, failed or cancelled when the step runs is kept (`not_ended`), whatever the caller believed. Threads'
   * messages stay. The only way events ever leave the log (retention, docs/observability.md).
   */
  deleteRuns?(runIds: readonly string[]): Promise<DeleteRunsResult>;
  /** Gives freed space back (SQLite VACUUM; PostgreSQL VACUUM, or VACUUM FULL with `full`). */
  compact?(options?: { full?: boolean }): Promise<CompactResult>;
  /** Every tool pin (gateway tool pinning), ordered by server, then tool. */
  listToolPins(): Promise<ToolPin[]>;
  /**
   * Stores the pin unless (server, tool) already has one; resolves with the
   * stored pin (the existing one if any): the first writer wins across
   * processes. A caller whose fingerprint differs from the one returned lost
   * the race to a different definition.
   */
  pinToolIfNew(pin: ToolPin): Promise<ToolPin>;
  /** Replaces (or creates) the pin of (server, tool): an operator accepted the tool as it is now. */
  replaceToolPin(pin: ToolPin): Promise<void>;
  /**
   * Counts shared by every process on this store: session shares, rate limits, failed authentications (see LimitStore).
   */
  readonly limits: LimitStore;
  close(): Promise<void>;
}
