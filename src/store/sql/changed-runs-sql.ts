import { RUN_STATUSES, ToolgateError, type ChangedRunsQuery, type Run, type RunPage } from '../../core/index.ts';
import { decodeRunCursor, encodeRunCursor } from '../run-cursor.ts';
import { DEFAULT_PAGE_SIZE } from '../store-defaults.ts';
import { RUN_FIELDS, runFromRow } from './run-row.ts';
import { SqlParams, type SqlDialect, type SqlRow } from './sql-dialect.ts';
import type { RunListing } from './run-sql.ts';

const KNOWN_STATUSES: ReadonlySet<string> = new Set(RUN_STATUSES);

/**
 * The listChangedRuns query: oldest first by (updated_at, id), keyset-paginated on the runs_updated index. The cursor
 * has listRuns' shape, with the run's updatedAt in place of createdAt. Asks one row more than the page holds.
 */
export function changedRunsSql(dialect: SqlDialect, query: ChangedRunsQuery): RunListing {
  const limit = Math.max(1, Math.floor(query.limit ?? DEFAULT_PAGE_SIZE));
  const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
  const params = new SqlParams(dialect);
  const filters: string[] = [];
  if (query.since !== undefined) filters.push(`updated_at >= ${params.bind(isoTime(query.since, 'since'), 'time')}`);
  if (query.before !== undefined) filters.push(`updated_at < ${params.bind(isoTime(query.before, 'before'), 'time')}`);
  if (query.statuses !== undefined) {
    if (query.statuses.length === 0) filters.push('1 = 0');
    else
      filters.push(
        `status IN (${checkedStatuses(query.statuses)
          .map((s) => params.bind(s))
          .join(', ')})`,
      );
  }
  if (after !== undefined)
    filters.push(`(updated_at, id) > (${params.bind(after.createdAt, 'time')}, ${params.bind(after.id)})`);
  const where = filters.length === 0 ? '' : `WHERE ${filters.join(' AND ')}`;
  return {
    sql: `SELECT ${RUN_FIELDS} FROM runs ${where} ORDER BY updated_at, id LIMIT ${params.bind(limit + 1, 'integer')}`,
    values: params.values,
    limit,
  };
}

/** The page the rows of a changedRunsSql listing make, with the cursor of the next one when there is more. */
export function changedRunsPage(rows: readonly SqlRow[], listing: { limit: number; dialect: SqlDialect }): RunPage {
  const runs = rows.slice(0, listing.limit).map((row) => runFromRow(row, listing.dialect));
  const last = runs.at(-1);
  return rows.length > listing.limit && last !== undefined ? { runs, nextCursor: changedRunsCursor(last) } : { runs };
}

/** The cursor after `run` in listChangedRuns' order. */
export function changedRunsCursor(run: Run): string {
  return encodeRunCursor({ createdAt: run.updatedAt, id: run.id });
}

/**
 * A time as the stores keep it (ISO 8601 in UTC, to the millisecond): SQLite compares the text, so "2025-01-02" or an
 * offset would not sort right.
 */
export function isoTime(value: string, name: string): string {
  const time = new Date(value);
  if (Number.isNaN(time.getTime()))
    throw new ToolgateError('usage', `listChangedRuns: ${name} "${value}" is not a time; give ISO 8601`);
  return time.toISOString();
}

function checkedStatuses(statuses: readonly string[]): string[] {
  for (const status of statuses)
    if (!KNOWN_STATUSES.has(status))
      throw new ToolgateError(
        'usage',
        `listChangedRuns: unknown status "${status}" (${[...KNOWN_STATUSES].join(', ')})`,
      );
  return [...new Set(statuses)];
}
