import { ToolgateError } from '../core/index.ts';

/** The position after the last run of a page, in listRuns' (created_at, id) order. */
export interface RunCursor {
  createdAt: string;
  id: string;
}

// An opaque position in a newest-first list of runs: base64url of [createdAt, id]; shared by the SQLite and PostgreSQL
// stores.
export function encodeRunCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id]), 'utf8').toString('base64url');
}

export function decodeRunCursor(cursor: string): RunCursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // The time goes into a timestamptz parameter: anything else would fail there as a database error.
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      isIsoTime(value[0])
    ) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the one error below: the caller only needs to know the cursor is unusable.
  }
  throw new ToolgateError('usage', `invalid cursor "${cursor}": pass the nextCursor of a previous page unchanged`);
}

function isIsoTime(value: string): boolean {
  const time = new Date(value);
  return !Number.isNaN(time.getTime()) && time.toISOString() === value;
}
