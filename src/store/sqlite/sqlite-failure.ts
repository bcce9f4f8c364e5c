import { ToolgateError } from '../../core/index.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../store-defaults.ts';

export interface SqliteFailureOptions {
  /** The database file (or ":memory:"), named in the message. */
  label: string;
  /** What the store was doing, e.g. "append events to run run_1". */
  action: string;
  busyTimeoutMs: number;
}

// Primary result codes (https://www.sqlite.org/rescode.html); extended codes keep them in the low byte.
const SQLITE_PERM = 3;
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_NOMEM = 7;
const SQLITE_READONLY = 8;
const SQLITE_IOERR = 10;
const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;

/**
 * Failures that say "not now": another connection holds the lock, the disk is
 * full or failing, the file cannot be written (permissions, a read-only mount). The
 * same write succeeds once an operator (or the other process) fixes it, so
 * runs wait for it instead of failing.
 */
const TRANSIENT: ReadonlySet<number> = new Set([SQLITE_BUSY, SQLITE_LOCKED, SQLITE_FULL, SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN, SQLITE_IOERR]);

/**
 * Turns whatever node:sqlite threw into a ToolgateError that names the file
 * and says what to check: `store_unavailable` for the failures in TRANSIENT,
 * `internal` otherwise. ToolgateErrors pass through unchanged.
 */
export function sqliteFailure(error: unknown, options: SqliteFailureOptions): ToolgateError {
  if (error instanceof ToolgateError) return error;
  const { errcode, detail } = errorParts(error);
  const hint = hintFor(errcode, options);
  const message = `SQLite store ${options.label}: could not ${options.action}: ${detail}${hint === '' ? '' : `; ${hint}`}`;
  if (errcode === undefined) return new ToolgateError('internal', message, { cause: error });
  const transient = TRANSIENT.has(errcode & 0xff);
  return new ToolgateError(transient ? 'store_unavailable' : 'internal', message, {
    cause: error,
    details: { sqliteCode: errcode, ...(transient ? { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS } : {}) },
  });
}

function errorParts(error: unknown): { errcode: number | undefined; detail: string } {
  if (!(error instanceof Error)) return { errcode: undefined, detail: String(error) };
  const { errcode } = error as { errcode?: unknown };
  return { errcode: typeof errcode === 'number' ? errcode : undefined, detail: error.message };
}

function hintFor(errcode: number | undefined, options: SqliteFailureOptions): string {
  const { busyTimeoutMs, label } = options;
  switch (errcode === undefined ? undefined : errcode & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return (
        `another connection held the database lock for longer than the busy timeout (${busyTimeoutMs} ms); ` +
        'check for other processes using the file, or raise busyTimeoutMs (server.sqliteBusyTimeoutMs in toolgate.yaml)'
      );
    case SQLITE_FULL:
      return `the disk is full; free space on the volume that holds ${label}`;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return 'the file is damaged or is not a toolgate SQLite database; restore it from a backup or point the store at another path';
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
      return 'check that the file and its directory exist and that this process may read and write them';
    case SQLITE_IOERR:
      return 'the disk reported an I/O error (a failing disk, a full quota or a file size limit); check the disk, the file system and ulimit -f';
    case SQLITE_NOMEM:
      return 'SQLite ran out of memory';
    default:
      return '';
  }
}
