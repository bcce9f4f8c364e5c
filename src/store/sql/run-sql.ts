import { isTerminalEvent, type ListRunsQuery, type Run, type RunEvent, type RunPage } from '../../core/index.ts';
import { decodeRunCursor, encodeRunCursor } from '../run-cursor.ts';
import { DEFAULT_PAGE_SIZE } from '../store-defaults.ts';
import { RUN_COLUMNS, RUN_FIELDS, rowValues, runFromRow, runRow } from './run-row.ts';
import {
  SqlParams,
  columnList,
  placeholders,
  type Column,
  type SqlDialect,
  type SqlRow,
  type SqlValue,
} from './sql-dialect.ts';

/** `INSERT INTO runs (columns) …` that leaves an existing id alone (the caller sees no row, or no change). */
export function insertRunSql(dialect: SqlDialect, columns: readonly Column[]): string {
  return `INSERT INTO runs (${columnList(columns)}) VALUES (${placeholders(dialect, columns)})
  ON CONFLICT (id) DO NOTHING`;
}

/**
 * An imported run's columns: a Run's, and the terminal event, so the copy refuses appends after it as the original did.
 */
export const IMPORT_COLUMNS = [...RUN_COLUMNS, { name: 'ended_by', kind: 'text' }] as const satisfies readonly Column[];

/** IMPORT_COLUMNS' values of a run copied from another store, as it was, with the last event id of its log. */
export function importValues(run: Run, events: readonly RunEvent[]): SqlValue[] {
  const row = {
    ...runRow({ ...run, lastEventId: events.at(-1)?.id ?? 0 }),
    ended_by: events.find((event) => isTerminalEvent(event))?.type ?? null,
  };
  return rowValues(row, IMPORT_COLUMNS);
}

/** The statement of one page of listRuns, and the page size it was asked for. */
export interface RunListing {
  sql: string;
  values: SqlValue[];
  limit: number;
}

/**
 * The listRuns query: newest first by (created_at, id), keyset-paginated so
 * runs created between two pages neither repeat nor push older ones out.
 * Only the filters present go into the SQL, so the indexes stay usable; the
 * few resulting shapes are each prepared once. Asks one row more than the
 * page holds: it tells whether another page exists.
 */
export function listRunsSql(dialect: SqlDialect, query: ListRunsQuery): RunListing {
  const limit = Math.max(1, Math.floor(query.limit ?? DEFAULT_PAGE_SIZE));
  const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
  const params = new SqlParams(dialect);
  const filters: string[] = [];
  if (query.tenantId !== undefined) filters.push(`tenant_id = ${params.bind(query.tenantId)}`);
  if (query.status !== undefined) filters.push(`status = ${params.bind(query.status)}`);
  if (query.threadId !== undefined) filters.push(`thread_id = ${params.bind(query.threadId)}`);
  if (after !== undefined)
    filters.push(`(created_at, id) < (${params.bind(after.createdAt, 'time')}, ${params.bind(after.id)})`);
  const where = filters.length === 0 ? '' : `WHERE ${filters.join(' AND ')}`;
  return {
    sql:
      `SELECT ${RUN_FIELDS} FROM runs ${where} ORDER BY created_at ` +
      `DESC, id DESC LIMIT ${params.bind(limit + 1, 'integer')}`,
    values: params.values,
    limit,
  };
}

/** The page the rows of a RunListing make, with the cursor of the next one when there is more. */
export function runPage(rows: readonly SqlRow[], listing: { limit: number; dialect: SqlDialect }): RunPage {
  const runs = rows.slice(0, listing.limit).map((row) => runFromRow(row, listing.dialect));
  const last = runs.at(-1);
  return rows.length > listing.limit && last !== undefined ? { runs, nextCursor: encodeRunCursor(last) } : { runs };
}
