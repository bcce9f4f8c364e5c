import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ToolgateError, describeError } from '../../core/index.ts';
import { applyMigrations } from './apply-migrations.ts';
import { SqliteConnection } from './sqlite-connection.ts';
import { sqliteFailure } from './sqlite-failure.ts';
import { SqliteRunStore } from './sqlite-run-store.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';

/**
 * WAL with NORMAL: a commit survives the process crashing (the WAL is written
 * before COMMIT returns) but not the machine losing power before the next
 * checkpoint; FULL adds an fsync per commit for that (decision 0013).
 */
export const DEFAULT_SQLITE_SYNCHRONOUS = 'NORMAL';
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5_000;
const IN_MEMORY = ':memory:';
/** SQLite's default wal_autocheckpoint, restored when the checkpoint thread fails. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

export interface OpenSqliteRunStoreOptions {
  /** A file path (parent directories are created) or ':memory:'. */
  path: string;
  /**
   * NORMAL (default, see DEFAULT_SQLITE_SYNCHRONOUS): a commit survives the
   * process crashing; a power cut may lose the last commits, never corrupting
   * the file. FULL syncs the write-ahead log on every commit, so an appended
   * event survives a power cut too.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** How long to wait for another process's write lock before failing. */
  busyTimeoutMs?: number;
}

/** Opens (creating if needed) a SQLite run store and brings its schema up to date. */
export async function openSqliteRunStore(options: OpenSqliteRunStoreOptions): Promise<SqliteRunStore> {
  const synchronous = options.synchronous ?? DEFAULT_SQLITE_SYNCHRONOUS;
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS;
  checkOptions(options.path, synchronous, busyTimeoutMs);
  const label = options.path === IN_MEMORY ? IN_MEMORY : resolve(options.path);
  if (options.path !== IN_MEMORY) createParentDirectory(label);
  try {
    return await retryWhileBusy(() => openOnce(label, synchronous, busyTimeoutMs), { timeoutMs: busyTimeoutMs });
  } catch (error) {
    throw sqliteFailure(error, { label, action: 'open the database', busyTimeoutMs });
  }
}

function openOnce(label: string, synchronous: string, busyTimeoutMs: number): SqliteRunStore {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(label, { timeout: busyTimeoutMs });
    // Set explicitly as well: the constructor's timeout option is newer than Node 22.
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${synchronous}`);
    db.exec('PRAGMA foreign_keys = ON');
    applyMigrations(db, { label });
    const checkpointer = label === IN_MEMORY ? undefined : backgroundCheckpoints(db, label, synchronous);
    return new SqliteRunStore(new SqliteConnection({ db, label, busyTimeoutMs, checkpointer }));
  } catch (error) {
    try {
      db?.close();
    } catch {
      // The open error is the one worth reporting.
    }
    throw error;
  }
}

/** Turns SQLite's automatic checkpoints off for this connection and hands them to a WalCheckpointer. */
function backgroundCheckpoints(db: DatabaseSync, label: string, synchronous: string): WalCheckpointer {
  db.exec('PRAGMA wal_autocheckpoint = 0');
  return new WalCheckpointer({
    path: label,
    synchronous,
    host: {
      // busy = 1: another connection is checkpointing (the thread, or another process).
      checkpoint: () => db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get()?.['busy'] === 0,
      restoreAutomatic: () => db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`),
    },
  });
}

/** SQLITE_BUSY and its extended codes (BUSY_RECOVERY, BUSY_SNAPSHOT, BUSY_TIMEOUT). */
function isBusy(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'errcode' in error &&
    typeof error.errcode === 'number' &&
    (error.errcode & 0xff) === 5
  );
}

/**
 * Runs `work` again while it fails with SQLITE_BUSY, for up to `timeoutMs`.
 * Opening a file that other processes are opening, switching to WAL or
 * checkpointing at the same moment can be refused at once, without SQLite's
 * busy handler waiting (several `toolgate serve` starting together on a new
 * file). Everything in an open is safe to repeat: the migrations run in one
 * transaction and are skipped once applied. Any other error, or the time
 * running out, is thrown as it is.
 */
export async function retryWhileBusy<T>(
  work: () => T,
  options: { timeoutMs: number; now?: () => number; sleep?: (ms: number) => Promise<void> },
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = now() + options.timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return work();
    } catch (error) {
      const left = deadline - now();
      if (!isBusy(error) || left <= 0) throw error;
      await sleep(Math.min(left, 5 * attempt, 100));
    }
  }
}

function checkOptions(path: string, synchronous: string, busyTimeoutMs: number): void {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new ToolgateError(
      'config_invalid',
      'SQLite store: path is empty; give a file path such as "data/toolgate.db" or ":memory:"',
    );
  }
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    throw new ToolgateError(
      'config_invalid',
      `SQLite store: synchronous must be "FULL" or "NORMAL", got "${synchronous}"`,
    );
  }
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new ToolgateError(
      'config_invalid',
      `SQLite store: busyTimeoutMs must be a whole number of milliseconds ≥ 0, got ${busyTimeoutMs}`,
    );
  }
}

function createParentDirectory(file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (error) {
    const reason = describeError(error);
    throw new ToolgateError(
      'internal',
      `SQLite store ${file}: could not create the directory ` +
        `${dirname(file)}: ${reason}; check that this process may write there`,
      { cause: error },
    );
  }
}
