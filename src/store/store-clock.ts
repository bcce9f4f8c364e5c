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

/** The time an event or a run row is stamped with (core's isoNow: formatted once per millisecond). */
export { isoNow } from '../core/iso-now.ts';
