import type { SQLInputValue } from 'node:sqlite';
import type { SqlValue } from '../sql/sql-dialect.ts';

/** Values as node:sqlite binds them: it has no booleans, so they go as the INTEGER 0 or 1 SQLite keeps. */
export function sqliteValues(values: readonly SqlValue[]): SQLInputValue[] {
  return values.map((value) => (typeof value === 'boolean' ? Number(value) : value));
}
