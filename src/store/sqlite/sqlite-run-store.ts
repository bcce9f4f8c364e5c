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
import { checkAppendRow, runUpdateSql, type AppendRequest } from '../sql/append-sql.ts';
import { eventFromRow } from '../sql/event-row.ts';
import { LeaseAndPinMethods } from '../sql/lease-and-pin-methods.ts';
import { RUN_COLUMNS, rowValues, runFromRow, runRow } from '../sql/run-row.ts';
import { changedRunsPage, changedRunsSql } from '../sql/changed-runs-sql.ts';
import { listRunsSql, runPage } from '../sql/run-sql.ts';
import { threadFromRow } from '../sql/thread-row.ts';
import { isoNow } from '../store-clock.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS, idempotencyMismatch } from '../store-defaults.ts';
import { stampEvents } from '../stored-event.ts';
import { GroupCommit } from './group-commit.ts';
import { importRunInto } from './import-run.ts';
import {
  INSERT_EVENT,
  INSERT_RUN,
  INSERT_THREAD_MESSAGE,
  LAST_THREAD_SEQ,
  SELECT_APPEND_STATE,
  SELECT_KEY,
  SELECT_RUN,
  SELECT_THREAD,
  SELECT_THREAD_MESSAGES,
  UPSERT_KEY,
  UPSERT_THREAD,
} from './run-statements.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import { SqliteLeases } from './sqlite-leases.ts';
import { SqliteLimits } from './sqlite-limits.ts';
import { SqliteToolPins } from './sqlite-tool-pins.ts';
import { readStoreInfo, type SqliteStoreInfo } from './sqlite-store-info.ts';
import { compactSqlite, deleteSqliteRuns } from './sqlite-retention.ts';
import { sqliteValues } from './sqlite-values.ts';

export { DEFAULT_IDEMPOTENCY_TTL_MS, DEFAULT_PAGE_SIZE } from '../store-defaults.ts';

export type { SqliteStoreInfo } from './sqlite-store-info.ts';

/** How many run ids the store remembers as existing before it starts over (see #known). */
const KNOWN_RUNS_LIMIT = 10_000;

/**
 * RunStore in one SQLite file (node:sqlite). Writes run in IMMEDIATE
 * transactions, so several processes may share the file; the appends of one
 * turn of the event loop share one (GroupCommit). Live subscribers
 * only hear appends made through this instance. Open it with openSqliteRunStore.
 */
export class SqliteRunStore extends LeaseAndPinMethods implements RunStore {
  readonly #sql: SqliteConnection;
  readonly #listeners = new RunListeners();
  readonly #leases: SqliteLeases;
  readonly limits: SqliteLimits;
  // After COMMIT: a subscriber that reads the run sees the state these events produced.
  readonly #appends = new GroupCommit<{ runId: string; events: RunEvent[] }>(
    (jobs) => this.#sql.transactionEach('append events', jobs),
    (appended) => this.#listeners.notify(appended.runId, appended.events),
  );

  /**
   * Ids of runs known to exist, so that subscribing to a run (and reading the
   * empty log of a new one) needs no look-up: only deleteRuns removes runs, and
   * it forgets them here (another process's deleteRuns is not seen: such a run
   * reads as an empty log rather than not_found). Bounded: emptied when full.
   */
  readonly #known = new Set<string>();

  constructor(connection: SqliteConnection) {
    const leases = new SqliteLeases(connection);
    super({ leases, pins: new SqliteToolPins(connection) });
    this.#sql = connection;
    this.#leases = leases;
    this.limits = new SqliteLimits(connection);
  }

  async createRun(init: NewRun): Promise<Run> {
    const run = this.#sql.run('create a run', () => this.#insertRun(init));
    this.#remember(run.id);
    return run;
  }

  async createAndClaimRun(init: NewRun, claim: ClaimOptions): Promise<{ run: Run; lease: RunLease | undefined }> {
    checkClaimOptions(claim);
    // One IMMEDIATE transaction: one commit, and nobody claims the run in between.
    const created = this.#sql.transaction('create and claim a run', () => {
      const run = this.#insertRun(init);
      return { run, lease: this.#leases.claimLocked(run.id, claim) };
    });
    this.#remember(created.run.id);
    return created;
  }

  async createRunIdempotent(init: NewRun, idempotency: IdempotencyRequest): Promise<{ run: Run; created: boolean }> {
    return this.#sql.transaction('create a run with an Idempotency-Key', () => {
      // '' stands for "no tenant": NULL would let the primary key hold duplicates.
      const tenant = init.tenantId ?? '';
      const now = Date.now();
      const key = this.#sql.statement(SELECT_KEY).get(tenant, idempotency.key);
      if (key !== undefined && Number(key['expires_at']) > now) {
        if (key['request_hash'] !== idempotency.requestHash) {
          throw idempotencyMismatch(idempotency.key);
        }
        const row = this.#sql.statement(SELECT_RUN).get(String(key['run_id']));
        if (row !== undefined) return { run: runFromRow(row, 'sqlite'), created: false };
      }
      const run = this.#insertRun(init);
      this.#sql.statement('DELETE FROM idempotency_keys WHERE expires_at <= ?').run(now);
      const expiresAt = now + (idempotency.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS);
      this.#sql.statement(UPSERT_KEY).run(tenant, idempotency.key, idempotency.requestHash, run.id, expiresAt);
      return { run, created: true };
    });
  }

  async getRun(runId: string): Promise<Run | undefined> {
    return this.#sql.run(`read run ${runId}`, () => {
      const row = this.#sql.statement(SELECT_RUN).get(runId);
      return row === undefined ? undefined : runFromRow(row, 'sqlite');
    });
  }

  async listRuns(query: ListRunsQuery = {}): Promise<RunPage> {
    this.#sql.assertOpen();
    const listing = listRunsSql('sqlite', query);
    return this.#sql.run('list runs', () =>
      runPage(this.#sql.statement(listing.sql).all(...sqliteValues(listing.values)), {
        limit: listing.limit,
        dialect: 'sqlite',
      }),
    );
  }

  /**
   * Queued, and committed with the other appends of this turn of the event
   * loop in one transaction (see GroupCommit); resolves once committed.
   */
  // RunStore.append's four parameters are the public port's (src/core/ports/run-store.ts).
  // eslint-disable-next-line @typescript-eslint/max-params
  async append(
    runId: string,
    drafts: readonly EventDraft[],
    patch: RunPatch = {},
    options: AppendOptions = {},
  ): Promise<RunEvent[]> {
    this.#sql.assertOpen();
    const request = { runId, drafts, patch, options };
    const committed = await this.#appends.add({
      action: () => `append events to run ${runId}`,
      work: () => ({ runId, events: this.#appendLocked(request) }),
    });
    return committed.events;
  }

  /** One append, inside the group's transaction. */
  #appendLocked(request: AppendRequest): RunEvent[] {
    const { runId, drafts } = request;
    // Read inside the write transaction: an append racing the one that ends the run,
    // or a claim taking the run over, from this or another process, is seen.
    const { endedBy, last } = checkAppendRow(this.#sql.statement(SELECT_APPEND_STATE).get(runId), {
      request,
      dialect: 'sqlite',
    });
    const time = isoNow();
    const insert = this.#sql.statement(INSERT_EVENT);
    drafts.forEach((draft, i) => insert.run(runId, last + i + 1, draft.type, time, JSON.stringify(draft.data)));
    const update = runUpdateSql('sqlite', {
      runId,
      patch: request.patch,
      endedBy,
      lastEventId: last + drafts.length,
      time,
    });
    this.#sql.statement(update.sql).run(...sqliteValues(update.values));
    return stampEvents(drafts, { runId, first: last + 1, time });
  }

  async readEvents(runId: string, options: ReadEventsOptions = {}): Promise<RunEvent[]> {
    return this.#sql.run(`read events of run ${runId}`, () => {
      const rows = this.#sql
        .statement('SELECT seq, type, time, data FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?')
        .all(runId, options.after ?? 0, options.limit ?? -1);
      if (rows.length === 0 && !this.#runExists(runId))
        throw new ToolgateError('not_found', `run ${runId} does not exist`);
      return rows.map((row) => eventFromRow(runId, row, 'sqlite'));
    });
  }

  subscribe(runId: string, listener: EventListener): () => void {
    const exists = this.#sql.run(`subscribe to run ${runId}`, () => this.#runExists(runId));
    if (!exists) throw new ToolgateError('not_found', `run ${runId} does not exist`);
    return this.#listeners.add(runId, listener);
  }

  async getThread(threadId: string, tenantId?: string): Promise<Thread | undefined> {
    const tenant = tenantId ?? '';
    // A read transaction: the thread row and its messages come from one snapshot.
    return this.#sql.transaction(
      `read thread ${threadId}`,
      () => {
        const row = this.#sql.statement(SELECT_THREAD).get(tenant, threadId);
        if (row === undefined) return undefined;
        return threadFromRow(row, 'sqlite', this.#sql.statement(SELECT_THREAD_MESSAGES).all(tenant, threadId));
      },
      'DEFERRED',
    );
  }

  async appendThreadMessages(threadId: string, messages: readonly Message[], tenantId?: string): Promise<void> {
    const tenant = tenantId ?? '';
    this.#sql.transaction(`append messages to thread ${threadId}`, () => {
      const now = isoNow();
      this.#sql.statement(UPSERT_THREAD).run(tenant, threadId, now, now);
      const last = Number(this.#sql.statement(LAST_THREAD_SEQ).get(tenant, threadId)?.['last'] ?? 0);
      const insert = this.#sql.statement(INSERT_THREAD_MESSAGE);
      messages.forEach((message, i) => insert.run(tenant, threadId, last + i + 1, JSON.stringify(message)));
    });
  }

  async listChangedRuns(query: ChangedRunsQuery): Promise<RunPage> {
    this.#sql.assertOpen();
    const listing = changedRunsSql('sqlite', query);
    return this.#sql.run('list changed runs', () =>
      changedRunsPage(this.#sql.statement(listing.sql).all(...sqliteValues(listing.values)), {
        limit: listing.limit,
        dialect: 'sqlite',
      }),
    );
  }

  async deleteRuns(runIds: readonly string[]): Promise<DeleteRunsResult> {
    // Appends queued before the call are committed first: a run that has just ended is seen as ended.
    this.#appends.flush();
    const result = deleteSqliteRuns(this.#sql, runIds);
    for (const runId of result.deleted) this.#known.delete(runId);
    return result;
  }

  async compact(): Promise<CompactResult> {
    this.#sql.assertOpen();
    // VACUUM cannot run inside a transaction: the queued appends are committed now, not in the middle of it.
    this.#appends.flush();
    return compactSqlite(this.#sql);
  }

  /** The connection's settings as SQLite reports them: for health checks and tests. */
  async info(): Promise<SqliteStoreInfo> {
    return this.#sql.run('read the database settings', () => readStoreInfo(this.#sql));
  }

  async importRun(run: Run, events: readonly RunEvent[]): Promise<'imported' | 'exists'> {
    return importRunInto(this.#sql, run, events);
  }

  async close(): Promise<void> {
    // Appends made before close are committed, not dropped.
    this.#appends.flush();
    this.#listeners.clear();
    await this.#sql.close();
  }

  #insertRun(init: NewRun): Run {
    const id = init.id ?? newId('run');
    const row = runRow(createdRun(init, { id, now: isoNow() }));
    const result = this.#sql.statement(INSERT_RUN).run(...sqliteValues(rowValues(row, RUN_COLUMNS)));
    if (Number(result.changes) === 0) throw new ToolgateError('conflict', `run ${id} already exists`);
    // Built through the same mapping as a read, so the result equals a later getRun.
    return runFromRow(row, 'sqlite');
  }

  #runExists(runId: string): boolean {
    if (this.#known.has(runId)) return true;
    const exists = this.#sql.statement('SELECT 1 FROM runs WHERE id = ?').get(runId) !== undefined;
    if (exists) this.#remember(runId);
    return exists;
  }

  /** A run known to exist, once its creation is committed or a read found it (deleteRuns forgets it). */
  #remember(runId: string): void {
    if (this.#known.size >= KNOWN_RUNS_LIMIT) this.#known.clear();
    this.#known.add(runId);
  }
}
