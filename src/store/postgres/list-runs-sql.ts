import type { ListRunsQuery } from '../../core/index.ts';
import { RUN_FIELDS } from './run-row.ts';
import type { RunCursor } from '../run-cursor.ts';

/**
 * The listRuns query: newest first by (created_at, id), keyset-paginated so
 * runs created between two pages neither repeat nor push older ones out. Only
 * the filters present go into the SQL, so the matching index serves each shape.
 */
export function listRunsSql(query: ListRunsQuery, after: RunCursor | undefined, limit: number): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const filters: string[] = [];
  const bind = (value: unknown, cast = ''): string => {
    params.push(value);
    return `$${params.length}${cast}`;
  };
  if (query.tenantId !== undefined) filters.push(`tenant_id = ${bind(query.tenantId)}`);
  if (query.status !== undefined) filters.push(`status = ${bind(query.status)}`);
  if (query.threadId !== undefined) filters.push(`thread_id = ${bind(query.threadId)}`);
  if (after !== undefined) filters.push(`(created_at, id) < (${bind(after.createdAt, '::timestamptz')}, ${bind(after.id)})`);
  const where = filters.length === 0 ? '' : `WHERE ${filters.join(' AND ')}`;
  return { sql: `SELECT ${RUN_FIELDS} FROM runs ${where} ORDER BY created_at DESC, id DESC LIMIT ${bind(limit)}`, params };
}
