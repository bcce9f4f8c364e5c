import type { CompactResult, DeleteRunsResult } from '../../core/index.ts';
import type { PostgresConnection } from './postgres-connection.ts';

/** Runs removed per transaction: pruning many runs must not hold one huge transaction. */
export const DELETE_BATCH = 100;

/**
 * The ended ones of a batch, locked: an append racing the delete waits, then finds no run (not_found). In id order,
 * as a group of appends locks its runs, so the two never deadlock.
 */
const LOCK_RUNS = 'SELECT id, status FROM runs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE';

/** The store's tables: those of the schema on the search_path (the store's own, see postgres-url.ts). */
const STORE_TABLES = `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname`;

const STORE_BYTES = `SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::float8 AS bytes
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')`;

/**
 * deleteRuns on PostgreSQL: per batch one transaction that locks the runs, lets the append-only trigger pass DELETE
 * for this transaction only (SET LOCAL toolgate.prune), and removes the ended runs' events, idempotency keys and rows.
 */
export async function deletePostgresRuns(db: PostgresConnection, runIds: readonly string[]): Promise<DeleteRunsResult> {
  const result: DeleteRunsResult = { deleted: [], kept: [] };
  const ids = [...new Set(runIds)];
  for (let start = 0; start < ids.length; start += DELETE_BATCH) {
    const batch = ids.slice(start, start + DELETE_BATCH);
    const done = await db.transaction(`delete ${batch.length} run(s)`, async (query) => {
      const statuses = new Map((await query(LOCK_RUNS, [batch])).map((row) => [String(row['id']), row['status']]));
      const outcome: DeleteRunsResult = { deleted: [], kept: [] };
      for (const runId of batch) {
        const status = statuses.get(runId);
        if (status === undefined) outcome.kept.push({ runId, reason: 'not_found' });
        else if (status !== 'completed' && status !== 'failed' && status !== 'cancelled')
          outcome.kept.push({ runId, reason: 'not_ended' });
        else outcome.deleted.push(runId);
      }
      if (outcome.deleted.length > 0) {
        await query("SET LOCAL toolgate.prune = 'on'");
        await query('DELETE FROM events WHERE run_id = ANY($1::text[])', [outcome.deleted]);
        await query('DELETE FROM idempotency_keys WHERE run_id = ANY($1::text[])', [outcome.deleted]);
        await query('DELETE FROM runs WHERE id = ANY($1::text[])', [outcome.deleted]);
      }
      return outcome;
    });
    result.deleted.push(...done.deleted);
    result.kept.push(...done.kept);
  }
  return result;
}

/** compact on PostgreSQL: VACUUM (ANALYZE) of the store's tables, or VACUUM (FULL, ANALYZE) with `full`. */
export async function compactPostgres(
  db: PostgresConnection,
  options: { full?: boolean } = {},
): Promise<CompactResult> {
  const bytesBefore = await storeBytes(db);
  const tables = (await db.read('list the store tables', STORE_TABLES)).map((row) => quoteIdent(String(row['name'])));
  // VACUUM cannot run in a transaction block: one autocommit statement on a pooled connection.
  if (tables.length > 0)
    await db.query(
      'vacuum the store tables',
      `VACUUM (${options.full === true ? 'FULL, ' : ''}ANALYZE) ${tables.join(', ')}`,
    );
  return { bytesBefore, bytesAfter: await storeBytes(db) };
}

async function storeBytes(db: PostgresConnection): Promise<number> {
  const [row] = await db.read('measure the store tables', STORE_BYTES);
  return Number(row?.['bytes'] ?? 0);
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
