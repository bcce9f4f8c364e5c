import type { ClientBase } from 'pg';
import { ToolgateError } from '../../core/index.ts';
import { POSTGRES_MIGRATIONS, type PostgresMigration } from './migrations.ts';

/**
 * The key of the transaction-level advisory lock every migration takes: two
 * instances that start together wait for each other, and the second finds the
 * work done. One key for the whole database keeps it simple; migrations are rare.
 */
export const MIGRATION_LOCK_KEY = 7_402_195_363_581;

/** Where the applied versions are recorded, in the store's schema. */
export const MIGRATIONS_TABLE = 'toolgate_migrations';

export interface ApplyPostgresMigrationsOptions {
  /** The schema the store's tables live in (created when missing). */
  schema: string;
  /** How to name the database in messages (postgresLabel: no password). */
  label: string;
  migrations?: readonly PostgresMigration[];
}

/**
 * Brings `schema` up to the newest known version in one transaction that holds
 * the migration lock. Refuses a schema written by a newer toolgate. Returns the
 * version the schema is at afterwards.
 */
export async function applyPostgresMigrations(
  client: ClientBase,
  options: ApplyPostgresMigrationsOptions,
): Promise<number> {
  const migrations = options.migrations ?? POSTGRES_MIGRATIONS;
  const latest = migrations.at(-1)?.version ?? 0;
  const schema = quoteIdentifier(options.schema);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists.
    const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [options.schema]);
    if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
    // The connection's search_path names the schema already; stated again so no step can land elsewhere.
    await client.query(`SET LOCAL search_path TO ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
      version integer PRIMARY KEY,
      description text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = await client.query<{ version: number | null }>(
      `SELECT MAX(version) AS version FROM ${MIGRATIONS_TABLE}`,
    );
    const current = rows.rows[0]?.version ?? 0;
    if (current > latest) {
      throw new ToolgateError(
        'internal',
        `PostgreSQL schema "${options.schema}" is at version ${current}, newer than this ` +
          `toolgate supports (${latest}); upgrade toolgate (database: ${options.label})`,
      );
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (version, description) VALUES ($1, $2)`, [
        migration.version,
        migration.description,
      ]);
    }
    await client.query('COMMIT');
    return Math.max(current, latest);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** A double-quoted SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
