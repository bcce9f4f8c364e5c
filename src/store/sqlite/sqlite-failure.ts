import { ToolgateError } from '../../core/index.ts';

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
 * Turns whatever node:sqlite threw into a ToolgateError('internal') that names
 * the file and says what to check. ToolgateErrors pass through unchanged.
 */
export function sqliteFailure(error: unknown, options: SqliteFailureOptions): ToolgateError {
  if (error instanceof ToolgateError) return error;
  const { errcode, detail } = errorParts(error);
  const hint = hintFor(errcode, options.busyTimeoutMs);
  const message = `SQLite store ${options.label}: could not ${options.action}: ${detail}${hint === '' ? '' : `; ${hint}`}`;
  return new ToolgateError('internal', message, {
    cause: error,
    ...(errcode === undefined ? {} : { details: { sqliteCode: errcode } }),
  });
}

function errorParts(error: unknown): { errcode: number | undefined; detail: string } {
  if (!(error instanceof Error)) return { errcode: undefined, detail: String(error) };
  const { errcode } = error as { errcode?: unknown };
  return { errcode: typeof errcode === 'number' ? errcode : undefined, detail: error.message };
}

function hintFor(errcode: number | undefined, busyTimeoutMs: number): string {
  switch (errcode === undefined ? undefined : errcode & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return (
        `another connection held the database lock for longer than the busy timeout (${busyTimeoutMs} ms); ` +
        'check for other processes using the file, or raise busyTimeoutMs'
      );
    case SQLITE_FULL:
      return 'the disk is full; free space on the volume that holds the database';
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return 'the file is damaged or is not a toolgate SQLite database; restore it from a backup or point the store at another path';
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
      return 'check that the file and its directory exist and that this process may read and write them';
    case SQLITE_IOERR:
      return 'the disk reported an I/O error; check the disk and the file system';
    case SQLITE_NOMEM:
      return 'SQLite ran out of memory';
    default:
      return '';
  }
}
