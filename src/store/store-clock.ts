/**
 * The clock every lease is measured by (expiry, renewal, the check in append).
 * The memory and SQLite stores live on one machine and use its clock; a store
 * shared by several machines (PostgreSQL) must use the database's clock
 * (`now()` in the statement) instead, so all owners agree on when a lease ends.
 * Kept in this one place so that switch touches nothing else.
 */
export function storeNow(): number {
  return Date.now();
}

let lastMs = Number.NaN;
let lastIso = '';

/**
 * The time an event or a run row is stamped with, as ISO text. Formatted once
 * per millisecond: several appends in one millisecond are common on the hot
 * path, and `toISOString` is not free.
 */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
