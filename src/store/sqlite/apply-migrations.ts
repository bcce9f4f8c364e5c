import type { DatabaseSync } from 'node:sqlite';
import { ToolgateError } from '../../core/index.ts';
import { SQLITE_MIGRATIONS, type SqliteMigration } from './migrations.ts';

export interface ApplyMigrationsOptions {
  /** How to name the database in messages (its file path). */
  label: string;
  migrations?: readonly SqliteMigration[];
}

/**
 * Brings the schema up to the newest known version in one IMMEDIATE
 * transaction, so two processes opening a fresh file at once cannot both
 * migrate it. Returns the schema version the database is at afterwards.
 */
export function applyMigrations(db: DatabaseSync, options: ApplyMigrationsOptions): number {
  const migrations = options.migrations ?? SQLITE_MIGRATIONS;
  const latest = migrations.at(-1)?.version ?? 0;
  db.exec('BEGIN IMMEDIATE');
  try {
    const current = userVersion(db);
    if (current > latest) {
      throw new ToolgateError(
        'internal',
        `database schema version ${current} is newer than this toolgate ` +
          `supports (${latest}); upgrade toolgate (database: ${options.label})`,
      );
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      // user_version lives in the file header, which is part of the transaction.
      db.exec(`PRAGMA user_version = ${migration.version}`);
    }
    db.exec('COMMIT');
    return Math.max(current, latest);
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

export function userVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get();
  return Number(row?.['user_version'] ?? 0);
}
