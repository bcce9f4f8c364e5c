import type { SQLInputValue } from 'node:sqlite';
import type { ListRunsQuery } from '../../core/index.ts';
import type { RunCursor } from '../run-cursor.ts';

/**
 * The listRuns query: newest first by (created_at, id), keyset-paginated so
 * runs created between two pages neither repeat nor push older ones out.
 * Only the filters present go into the SQL, so the indexes stay usable; the
 * few resulting shapes are each prepared once.
 */
export function listRunsSql(query: ListRunsQuery, after: RunCursor | undefined, limit: number): { sql: string; params: SQLInputValue[] } {
  const filters: [clause: string, values: SQLInputValue[]][] = [];
  if (query.tenantId !== undefined) filters.push(['tenant_id = ?', [query.tenantId]]);
  if (query.status !== undefined) filters.push(['status = ?', [query.status]]);
  if (query.threadId !== undefined) filters.push(['thread_id = ?', [query.threadId]]);
  if (after !== undefined) filters.push(['(created_at, id) < (?, ?)', [after.createdAt, after.id]]);
  const where = filters.length === 0 ? '' : `WHERE ${filters.map(([clause]) => clause).join(' AND ')}`;
  return {
    sql: `SELECT * FROM runs ${where} ORDER BY created_at DESC, id DESC LIMIT ?`,
    params: [...filters.flatMap(([, values]) => values), limit],
  };
}
