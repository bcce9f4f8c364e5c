import type { DatabaseSync, SQLOutputValue, StatementSync } from 'node:sqlite';
import { ToolgateError } from '../../core/index.ts';
import { sqliteFailure } from './sqlite-failure.ts';
import type { WalCheckpointer } from './wal-checkpointer.ts';

export interface SqliteConnectionInit {
  /** An open connection with pragmas set and migrations applied (openSqliteRunStore does both). */
  db: DatabaseSync;
  /** The file path, named in error messages. */
  label: string;
  busyTimeoutMs: number;
  /** Told of every commit; checkpoints the WAL off the event loop (files only, not ':memory:'). */
  checkpointer?: WalCheckpointer | undefined;
}

/** One piece of work of a group transaction (SqliteConnection.transactionEach). */
export interface TransactionJob<T> {
  work: () => T;
  /** What the job does, for an error message ("append events to run …"); built only when one is needed. */
  action: () => string;
}

export type JobOutcome<T> = { ok: true; value: T } | { ok: false; error: ToolgateError };

/**
 * One node:sqlite connection with what every store operation needs: cached
 * prepared statements, transactions, and errors turned into ToolgateErrors
 * that name the file. Refuses all work once closed.
 */
export class SqliteConnection {
  readonly label: string;
  readonly #db: DatabaseSync;
  readonly #busyTimeoutMs: number;
  readonly #statements = new Map<string, StatementSync>();
  readonly #checkpointer: WalCheckpointer | undefined;
  #closed = false;

  constructor(init: SqliteConnectionInit) {
    this.#db = init.db;
    this.label = init.label;
    this.#busyTimeoutMs = init.busyTimeoutMs;
    this.#checkpointer = init.checkpointer;
  }

  /** A prepared statement, compiled once per SQL text. Call inside `run` or `transaction`. */
  statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work`, reporting any failure as what the store was trying to do (`action`). */
  run<T>(action: string, work: () => T): T {
    this.assertOpen();
    try {
      return work();
    } catch (error) {
      throw this.failure(error, action);
    } finally {
      // Statements outside a transaction commit on their own; reads are counted too, which only nudges sooner.
      this.#checkpointer?.committed();
    }
  }

  /**
   * Runs `work` in one transaction. IMMEDIATE (for writes) takes the write lock
   * up front, so another process waits (busy_timeout) instead of failing half-way;
   * DEFERRED (for reads) gives several reads one snapshot.
   */
  transaction<T>(action: string, work: () => T, mode: 'IMMEDIATE' | 'DEFERRED' = 'IMMEDIATE'): T {
    return this.run(action, () => {
      // Prepared once, like every statement: exec would parse them again per transaction.
      this.statement(mode === 'IMMEDIATE' ? 'BEGIN IMMEDIATE' : 'BEGIN DEFERRED').run();
      try {
        const result = work();
        this.statement('COMMIT').run();
        return result;
      } catch (error) {
        this.#rollback();
        throw error;
      }
    });
  }

  /**
   * Runs every job in one IMMEDIATE transaction, so they share one commit (a
   * group commit). With several jobs, each runs inside a savepoint of its own:
   * one that throws is undone alone, and only its outcome is that error. When
   * the transaction itself fails (BEGIN, COMMIT, or an error after which SQLite
   * abandoned the whole transaction), every job fails with that error and
   * nothing of any of them is kept. Returns each job's outcome, in order.
   */
  transactionEach<T>(action: string, jobs: readonly TransactionJob<T>[]): JobOutcome<T>[] {
    if (this.#closed) {
      const closed = new ToolgateError('internal', 'the run store is closed');
      return jobs.map(() => ({ ok: false, error: closed }));
    }
    const single = jobs.length === 1 ? jobs[0] : undefined;
    const outcomes: JobOutcome<T>[] = [];
    try {
      this.statement('BEGIN IMMEDIATE').run();
      if (single !== undefined) {
        // One job: no savepoint; if it throws, rolling back the transaction undoes it.
        outcomes.push({ ok: true, value: single.work() });
      } else {
        for (const job of jobs) outcomes.push(this.#inSavepoint(job));
      }
      this.statement('COMMIT').run();
      this.#checkpointer?.committed();
      return outcomes;
    } catch (error) {
      this.#rollback();
      const failure = this.failure(error, single === undefined ? action : single.action());
      return jobs.map(() => ({ ok: false, error: failure }));
    }
  }

  /** One job of a group transaction; throws only when the whole transaction is lost. */
  #inSavepoint<T>(job: TransactionJob<T>): JobOutcome<T> {
    this.statement('SAVEPOINT job').run();
    try {
      const value = job.work();
      this.statement('RELEASE job').run();
      return { ok: true, value };
    } catch (error) {
      // After some errors (SQLITE_FULL, an I/O error) SQLite has rolled back the whole transaction: the jobs before are
      // gone too.
      if (!this.#db.isTransaction) throw error;
      this.statement('ROLLBACK TO job').run();
      this.statement('RELEASE job').run();
      return { ok: false, error: this.failure(error, job.action()) };
    }
  }

  /** The value of a PRAGMA, e.g. pragma('journal_mode') → 'wal'. */
  pragma(name: string): SQLOutputValue | undefined {
    const row = this.#db.prepare(`PRAGMA ${name}`).get();
    return row === undefined ? undefined : Object.values(row)[0];
  }

  failure(error: unknown, action: string): ToolgateError {
    return sqliteFailure(error, { label: this.label, action, busyTimeoutMs: this.#busyTimeoutMs });
  }

  assertOpen(): void {
    if (this.#closed) throw new ToolgateError('internal', 'the run store is closed');
  }

  /**
   * Closes the database; closing twice is harmless. The checkpoint thread's
   * connection closes first, so this one is the last: SQLite then checkpoints
   * the whole WAL and removes it.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    await this.#checkpointer?.close();
    try {
      this.#db.close();
    } catch (error) {
      throw this.failure(error, 'close the database');
    }
  }

  /** Undoes an open transaction; a failing ROLLBACK must not hide the error that caused it. */
  #rollback(): void {
    try {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
    } catch {
      // SQLite already rolled back (e.g. after SQLITE_FULL) or the connection broke: the first error says more.
    }
  }
}
