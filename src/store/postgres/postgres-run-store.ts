import {
  ToolgateError,
  newId,
  type AppendOptions,
  type ChangedRunsQuery,
  type ClaimOptions,
  type CompactResult,
  type DeleteRunsResult,
  type EventDraft,
  type EventListener,
  type IdempotencyRequest,
  type ListRunsQuery,
  type Message,
  type NewRun,
  type ReadEventsOptions,
  type Run,
  type RunEvent,
  type RunLease,
  type RunPage,
  type RunPatch,
  type RunStore,
  type Thread,
} from '../../core/index.ts';
import { createdRun } from '../created-run.ts';
import { checkClaimOptions } from '../lease-guard.ts';
import { RunListeners } from '../run-listeners.ts';
import { eventFromRow } from '../sql/event-row.ts';
import { LeaseAndPinMethods } from '../sql/lease-and-pin-methods.ts';
import { leaseFromRow, rowValues, runFromRow, runRow } from '../sql/run-row.ts';
import { changedRunsPage, changedRunsSql } from '../sql/changed-runs-sql.ts';
import { listRunsSql, runPage } from '../sql/run-sql.ts';
import { threadFromRow } from '../sql/thread-row.ts';
import { isoNow } from '../store-clock.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS, idempotencyMismatch } from '../store-defaults.ts';
import { importRunLocked } from './import-run.ts';
import { KeyedQueue } from './keyed-queue.ts';
import type { PostgresConnection, Query } from './postgres-connection.ts';
import { PostgresGroupCommit, type GroupCommitLimits } from './postgres-group-commit.ts';
import { PostgresLeases } from './postgres-leases.ts';
import { PostgresLimits } from './postgres-limits.ts';
import type { AppendedCallback, PostgresListener } from './postgres-listener.ts';
import { PostgresToolPins } from './postgres-tool-pins.ts';
import { compactPostgres, deletePostgresRuns } from './postgres-retention.ts';
import {
  CLAIM_KEY,
  CLAIM_RUN,
  INSERT_RUN,
  INSERT_THREAD_MESSAGES,
  NEW_RUN_COLUMNS,
  PRUNE_KEYS,
  SELECT_KEY_RUN,
  SELECT_RUN,
  SELECT_THREAD,
  UPSERT_THREAD,
} from './run-statements.ts';

export { DEFAULT_IDEMPOTENCY_TTL_MS, DEFAULT_PAGE_SIZE } from '../store-defaults.ts';

export interface PostgresRunStoreInit {
  connection: PostgresConnection;
  listener: PostgresListener;
  /** How appends are grouped into transactions (decision 0028); defaultGroupLimits when absent. */
  groupLimits?: Partial<GroupCommitLimits>;
}

/**
 * RunStore in PostgreSQL, shared by any number of processes. Every write is
 * one transaction; leases are judged by the database clock. `subscribe` hears
 * the appends made through this instance; `watch` hears every process's.
 * Open it with openPostgresRunStore.
 */
export class PostgresRunStore extends LeaseAndPinMethods implements RunStore {
  readonly #db: PostgresConnection;
  readonly #listener: PostgresListener;
  readonly limits: PostgresLimits;
  readonly #listeners = new RunListeners();
  // One append per run at a time: this instance's appends to a run land in
  // call order, its subscribers hear them in that order, and a group commit
  // never holds two appends of one run.
  readonly #appends = new KeyedQueue();
  readonly #groups: PostgresGroupCommit;
  #closed = false;

  constructor(init: PostgresRunStoreInit) {
    super({ leases: new PostgresLeases(init.connection), pins: new PostgresToolPins(init.connection) });
    this.#db = init.connection;
    this.#listener = init.listener;
    this.limits = new PostgresLimits(init.connection);
    this.#groups = new PostgresGroupCommit({
      connection: init.connection,
      // After COMMIT: a subscriber that reads the run sees the state these events produced.
      committed: (runId, events) => this.#listeners.notify(runId, events),
      ...(init.groupLimits === undefined ? {} : { limits: init.groupLimits }),
    });
  }

  async createRun(init: NewRun): Promise<Run> {
    return insertRun((sql, params) => this.#db.query('create a run', sql, params), init);
  }

  async createAndClaimRun(init: NewRun, claim: ClaimOptions): Promise<{ run: Run; lease: RunLease | undefined }> {
    this.#db.assertOpen();
    checkClaimOptions(claim);
    // One transaction: one commit (one WAL flush) instead of two, and nobody claims the run in between.
    return this.#db.transaction('create and claim a run', async (query) => {
      const run = await insertRun(query, init);
      const [row] = await query(CLAIM_RUN, [run.id, claim.owner, claim.ttlMs]);
      return { run, lease: row === undefined ? undefined : leaseFromRow(row, 'postgres') };
    });
  }

  async createRunIdempotent(init: NewRun, idempotency: IdempotencyRequest): Promise<{ run: Run; created: boolean }> {
    // '' stands for "no tenant": NULL would let the primary key hold duplicates.
    const tenant = init.tenantId ?? '';
    const id = init.id ?? newId('run');
    const ttlMs = idempotency.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
    return this.#db.transaction('create a run with an Idempotency-Key', async (query) => {
      // The key first: a concurrent call with the same key waits here until this one commits, then finds it taken.
      const taken = await query(CLAIM_KEY, [tenant, idempotency.key, idempotency.requestHash, id, ttlMs]);
      if (taken.length === 0) {
        const [row] = await query(SELECT_KEY_RUN, [tenant, idempotency.key]);
        if (row === undefined) {
          throw new ToolgateError(
            'internal',
            `Idempotency-Key "${idempotency.key}" is held but its run cannot be read; retry the request`,
          );
        }
        if (row['request_hash'] !== idempotency.requestHash) throw idempotencyMismatch(idempotency.key);
        return { run: runFromRow(row, 'postgres'), created: false };
      }
      const run = await insertRun(query, { ...init, id });
      await query(PRUNE_KEYS);
      return { run, created: true };
    });
  }

  async getRun(runId: string): Promise<Run | undefined> {
    const [row] = await this.#db.read(`read run ${runId}`, SELECT_RUN, [runId]);
    return row === undefined ? undefined : runFromRow(row, 'postgres');
  }

  async listRuns(query: ListRunsQuery = {}): Promise<RunPage> {
    this.#db.assertOpen();
    const listing = listRunsSql('postgres', query);
    return runPage(await this.#db.read('list runs', listing.sql, listing.values), {
      limit: listing.limit,
      dialect: 'postgres',
    });
  }

  // RunStore.append's four parameters are the public port's (src/core/ports/run-store.ts).
  // eslint-disable-next-line @typescript-eslint/max-params
  async append(
    runId: string,
    drafts: readonly EventDraft[],
    patch: RunPatch = {},
    options: AppendOptions = {},
  ): Promise<RunEvent[]> {
    // Refused from the start of close(), which commits the appends made before it.
    if (this.#closed) throw new ToolgateError('internal', 'the run store is closed');
    this.#db.assertOpen();
    const request = { runId, drafts, patch, options };
    // Committed with the appends of other runs made meanwhile (postgres-group-commit.ts).
    return this.#appends.run(runId, () => this.#groups.add(request));
  }

  async readEvents(runId: string, options: ReadEventsOptions = {}): Promise<RunEvent[]> {
    const action = `read events of run ${runId}`;
    const rows = await this.#db.read(
      action,
      'SELECT seq, type, time, data FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [runId, options.after ?? 0, options.limit ?? null],
    );
    if (rows.length === 0 && (await this.#db.read(action, 'SELECT 1 FROM runs WHERE id = $1', [runId])).length === 0) {
      throw new ToolgateError('not_found', `run ${runId} does not exist`);
    }
    return rows.map((row) => eventFromRow(runId, row, 'postgres'));
  }

  /**
   * Live events of appends made through this instance. Synchronous, so it
   * cannot ask the database whether the run exists: a listener on an unknown
   * run hears nothing (readEvents answers not_found).
   */
  subscribe(runId: string, listener: EventListener): () => void {
    this.#db.assertOpen();
    return this.#listeners.add(runId, listener);
  }

  /** See RunStore.watch: LISTEN/NOTIFY, so appends of every process sharing the database wake it. */
  async watch(runId: string, onAppended: AppendedCallback): Promise<() => void> {
    this.#db.assertOpen();
    return this.#listener.watch(runId, onAppended);
  }

  async getThread(threadId: string, tenantId?: string): Promise<Thread | undefined> {
    const [row] = await this.#db.read(`read thread ${threadId}`, SELECT_THREAD, [tenantId ?? '', threadId]);
    return row === undefined ? undefined : threadFromRow(row, 'postgres');
  }

  async appendThreadMessages(threadId: string, messages: readonly Message[], tenantId?: string): Promise<void> {
    const tenant = tenantId ?? '';
    await this.#db.transaction(`append messages to thread ${threadId}`, async (query) => {
      await query(UPSERT_THREAD, [tenant, threadId]);
      if (messages.length > 0)
        await query(INSERT_THREAD_MESSAGES, [tenant, threadId, messages.map((m) => JSON.stringify(m))]);
    });
  }

  async importRun(run: Run, events: readonly RunEvent[]): Promise<'imported' | 'exists'> {
    return this.#db.transaction(`import run ${run.id}`, (query) => importRunLocked(query, run, events));
  }

  async listChangedRuns(query: ChangedRunsQuery): Promise<RunPage> {
    this.#db.assertOpen();
    const listing = changedRunsSql('postgres', query);
    return changedRunsPage(await this.#db.read('list changed runs', listing.sql, listing.values), {
      limit: listing.limit,
      dialect: 'postgres',
    });
  }

  deleteRuns(runIds: readonly string[]): Promise<DeleteRunsResult> {
    return deletePostgresRuns(this.#db, runIds);
  }

  compact(options: { full?: boolean } = {}): Promise<CompactResult> {
    return compactPostgres(this.#db, options);
  }

  /** Commits the appends already made, then ends the LISTEN connection and the pool; closing twice is harmless. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#groups.flush();
    await this.#appends.drained();
    this.#listeners.clear();
    await Promise.all([this.#listener.close(), this.#db.close()]);
  }
}

async function insertRun(query: Query, init: NewRun): Promise<Run> {
  const id = init.id ?? newId('run');
  // The stamps are the database clock's (INSERT_RUN): the row's own now is not bound.
  const [row] = await query(INSERT_RUN, rowValues(runRow(createdRun(init, { id, now: isoNow() })), NEW_RUN_COLUMNS));
  if (row === undefined) throw new ToolgateError('conflict', `run ${id} already exists`);
  return runFromRow(row, 'postgres');
}
