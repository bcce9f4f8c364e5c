import type { Pool, PoolClient } from 'pg';
import { ToolgateError } from '../../core/index.ts';
import { connectionLost, postgresFailure, type PostgresFailureOptions } from './postgres-failure.ts';

/** A row as pg returns it: jsonb/json parsed, timestamptz as Date, bigint as string. */
export type PgRow = Record<string, unknown>;

/** pg's own pool size when none is given. */
const DEFAULT_PG_POOL_MAX = 10;

/** Runs one statement inside a transaction. */
export type Query = (sql: string, params?: readonly unknown[]) => Promise<PgRow[]>;

export interface PostgresConnectionInit {
  pool: Pool;
  /** How failures name the database (see PostgresFailureOptions). */
  naming: Omit<PostgresFailureOptions, 'action'>;
}

/**
 * The store's pool with what every operation needs: single statements,
 * transactions on one pooled client, and errors turned into ToolgateErrors
 * that name the database. Refuses all work once closed.
 */
export class PostgresConnection {
  readonly #pool: Pool;
  readonly #naming: Omit<PostgresFailureOptions, 'action'>;
  #closing: Promise<void> | undefined;

  constructor(init: PostgresConnectionInit) {
    this.#pool = init.pool;
    this.#naming = init.naming;
  }

  get label(): string {
    return this.#naming.label;
  }

  /** Connections the pool opens at most. */
  get poolSize(): number {
    return this.#pool.options.max ?? DEFAULT_PG_POOL_MAX;
  }

  /**
   * A statement that only reads, on any pooled connection. A read that fails because
   * the connection it was given had been dropped (pg_terminate_backend, a restart, a
   * pooler closing it) is asked again at once on another connection: the pool may still
   * hold connections the server ended a moment ago, and a read changes nothing, so
   * asking twice is safe. Each dropped connection fails at once and leaves the pool,
   * so pool size + 1 attempts reach a new connection even when every idle one was
   * dropped; any other failure (the server refuses new connections, a statement
   * error) is thrown as it is.
   */
  async read(action: string, sql: string, params: readonly unknown[] = []): Promise<PgRow[]> {
    this.assertOpen();
    const attempts = this.poolSize + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.#pool.query<PgRow>(sql, [...params]);
        return result.rows;
      } catch (error) {
        if (attempt >= attempts || !connectionLost(error) || this.closed) throw this.failure(error, action);
      }
    }
  }

  /** One statement on any pooled connection (autocommit). Not asked again on failure: a write may have landed. */
  async query(action: string, sql: string, params: readonly unknown[] = []): Promise<PgRow[]> {
    this.assertOpen();
    try {
      const result = await this.#pool.query<PgRow>(sql, [...params]);
      return result.rows;
    } catch (error) {
      throw this.failure(error, action);
    }
  }

  /** Runs `work` in one READ COMMITTED transaction on one pooled client; rolls back if it throws. */
  async transaction<T>(action: string, work: (query: Query) => Promise<T>): Promise<T> {
    this.assertOpen();
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw this.failure(error, action);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(async (sql, params = []) => (await client.query<PgRow>(sql, [...params])).rows);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection is gone: the pool must not hand it out again. The first error says more.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      throw this.failure(error, action);
    } finally {
      client.release(broken);
    }
  }

  failure(error: unknown, action: string): ToolgateError {
    return postgresFailure(error, { ...this.#naming, action });
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  assertOpen(): void {
    if (this.closed) throw new ToolgateError('internal', 'the run store is closed');
  }

  /** Ends the pool once its clients are back; closing twice is harmless. */
  close(): Promise<void> {
    this.#closing ??= this.#pool.end().catch((error: unknown) => {
      throw this.failure(error, 'close the connection pool');
    });
    return this.#closing;
  }
}
