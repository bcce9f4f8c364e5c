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
const SQLITE = {
  PERM: 3,
  BUSY: 5,
  LOCKED: 6,
  NOMEM: 7,
  READONLY: 8,
  IOERR: 10,
  CORRUPT: 11,
  FULL: 13,
  CANTOPEN: 14,
  NOTADB: 26,
} as const;

/**
 * Failures that say "not now": another connection holds the lock, the disk is
 * full or failing, the file cannot be written (permissions, a read-only mount). The
 * same write succeeds once an operator (or the other process) fixes it, so
 * runs wait for it instead of failing.
 */
const TRANSIENT: ReadonlySet<number> = new Set([
  SQLITE.BUSY,
  SQLITE.LOCKED,
  SQLITE.FULL,
  SQLITE.READONLY,
  SQLITE.PERM,
  SQLITE.CANTOPEN,
  SQLITE.IOERR,
]);

/**
 * Turns whatever node:sqlite threw into a ToolgateError that names the file
 * and says what to check: `store_unavailable` for the failures in TRANSIENT,
 * `internal` otherwise. ToolgateErrors pass through unchanged.
 */
export function sqliteFailure(error: unknown, options: SqliteFailureOptions): ToolgateError {
  if (error instanceof ToolgateError) return error;
  const { errcode, detail } = errorParts(error);
  const hint = hintFor(errcode, options);
  const message =
    `SQLite store ${options.label}: could not ${options.action}: ` + `${detail}${hint === '' ? '' : `; ${hint}`}`;
  if (errcode === undefined) return new ToolgateError('internal', message, { cause: error });
  const transient = TRANSIENT.has(errcode & 0xff);
  return new ToolgateError(transient ? 'store_unavailable' : 'internal', message, {
    cause: error,
    details: { sqliteCode: errcode, ...(transient ? { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS } : {}) },
  });
}

function errorParts(error: unknown): { errcode: number | undefined; detail: string } {
  if (!(error instanceof Error)) return { errcode: undefined, detail: String(error) };
  return {
    errcode: 'errcode' in error && typeof error.errcode === 'number' ? error.errcode : undefined,
    detail: error.message,
  };
}

function hintFor(errcode: number | undefined, options: SqliteFailureOptions): string {
  const { busyTimeoutMs, label } = options;
  switch (errcode === undefined ? undefined : errcode & 0xff) {
    case SQLITE.BUSY:
    case SQLITE.LOCKED:
      return (
        `another connection held the database lock for longer than the busy timeout (${busyTimeoutMs} ms); ` +
        'check for other processes using the file, or raise busyTimeoutMs (server.sqliteBusyTimeoutMs in toolgate.yaml)'
      );
    case SQLITE.FULL:
      return `the disk is full; free space on the volume that holds ${label}`;
    case SQLITE.CORRUPT:
    case SQLITE.NOTADB:
      return (
        'the file is damaged or is not a toolgate SQLite database; ' +
        'restore it from a backup or point the store at another path'
      );
    case SQLITE.READONLY:
    case SQLITE.PERM:
    case SQLITE.CANTOPEN:
      return 'check that the file and its directory exist and that this process may read and write them';
    case SQLITE.IOERR:
      return (
        'the disk reported an I/O error (a failing disk, a full quota or ' +
        'a file size limit); check the disk, the file system and ulimit -f'
      );
    case SQLITE.NOMEM:
      return 'SQLite ran out of memory';
    default:
      return '';
  }
}
