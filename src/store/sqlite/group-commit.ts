/**
 * Appends to the SQLite store are committed in groups: every append made
 * during one turn of the event loop (the I/O callbacks, timers and promise
 * continuations Node runs before its `setImmediate` phase) is written in one
 * transaction at the end of that turn, each in a savepoint of its own, with one
 * commit for all. Runs that step together — fifty runs whose model answers
 * arrive in the same turn — then share one WAL write instead of making one
 * each. An append's promise settles only after the commit that holds it, so
 * what a caller sees is unchanged: resolved means durable, and a refused
 * append (not_found, conflict, lease_lost) is refused alone. A run's appends
 * keep their order: they are applied in the order they were made.
 */
import type { JobOutcome, TransactionJob } from './sqlite-connection.ts';

interface Pending<T> {
  job: TransactionJob<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<T> {
  readonly #commit: (jobs: readonly TransactionJob<T>[]) => JobOutcome<T>[];
  readonly #committed: (value: T) => void;
  #pending: Pending<T>[] | undefined;
  readonly #flush = (): void => this.flush();

  /**
   * `commit` runs the jobs in one transaction (SqliteConnection.transactionEach);
   * `committed` hears each job that was kept, after the commit and before its promise settles.
   */
  constructor(commit: (jobs: readonly TransactionJob<T>[]) => JobOutcome<T>[], committed: (value: T) => void) {
    this.#commit = commit;
    this.#committed = committed;
  }

  /** Queues a job for the group committed at the end of this turn; resolves once it is committed. */
  add(job: TransactionJob<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#pending === undefined) {
        this.#pending = [];
        setImmediate(this.#flush);
      }
      this.#pending.push({ job, resolve, reject });
    });
  }

  /**
   * Commits what is queued now (the end of the turn does it otherwise); close() calls it so nothing queued is dropped.
   */
  flush(): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    let outcomes: JobOutcome<T>[];
    try {
      outcomes = this.#commit(pending.map((item) => item.job));
    } catch (error) {
      for (const item of pending) item.reject(error);
      return;
    }
    for (const [i, item] of pending.entries()) {
      const outcome = outcomes[i];
      if (outcome === undefined) item.reject(new Error('the group commit returned no outcome for an append'));
      else if (outcome.ok) {
        this.#committed(outcome.value);
        item.resolve(outcome.value);
      } else item.reject(outcome.error);
    }
  }
}
