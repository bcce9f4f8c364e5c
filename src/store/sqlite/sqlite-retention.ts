import { statSync } from 'node:fs';
import type { CompactResult, DeleteRunsResult } from '../../core/index.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

/** Runs removed per transaction: pruning many runs must not hold the write lock for long. */
export const DELETE_BATCH = 100;

// The trigger of migration 1, word for word: dropped for the length of one deleteRuns transaction only, so nobody
// else (another connection, another process) ever sees the log unguarded.
const DROP_GUARD = 'DROP TRIGGER events_append_only_delete';
const CREATE_GUARD = `CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END`;

/**
 * deleteRuns on SQLite: per batch one IMMEDIATE transaction that lifts the append-only guard on DELETE, removes the
 * ended runs' events, idempotency keys and rows, and puts the guard back before COMMIT.
 */
export function deleteSqliteRuns(sql: SqliteConnection, runIds: readonly string[]): DeleteRunsResult {
  const result: DeleteRunsResult = { deleted: [], kept: [] };
  const ids = [...new Set(runIds)];
  for (let start = 0; start < ids.length; start += DELETE_BATCH) {
    const batch = ids.slice(start, start + DELETE_BATCH);
    const done = sql.transaction(`delete ${batch.length} run(s)`, () => {
      const outcome: DeleteRunsResult = { deleted: [], kept: [] };
      sql.statement(DROP_GUARD).run();
      for (const runId of batch) {
        const status = sql.statement('SELECT status FROM runs WHERE id = ?').get(runId)?.['status'];
        if (status === undefined) outcome.kept.push({ runId, reason: 'not_found' });
        else if (status !== 'completed' && status !== 'failed' && status !== 'cancelled')
          outcome.kept.push({ runId, reason: 'not_ended' });
        else {
          sql.statement('DELETE FROM events WHERE run_id = ?').run(runId);
          sql.statement('DELETE FROM idempotency_keys WHERE run_id = ?').run(runId);
          sql.statement('DELETE FROM runs WHERE id = ?').run(runId);
          outcome.deleted.push(runId);
        }
      }
      sql.statement(CREATE_GUARD).run();
      return outcome;
    });
    result.deleted.push(...done.deleted);
    result.kept.push(...done.kept);
  }
  return result;
}

/**
 * compact on SQLite: the WAL checkpointed and emptied, VACUUM rewrites the file without its free pages, and the WAL
 * VACUUM wrote is checkpointed and emptied again. Call between transactions (the caller flushes its queued appends
 * first): VACUUM refuses to run inside one.
 */
export function compactSqlite(sql: SqliteConnection): CompactResult {
  const bytesBefore = fileBytes(sql.label);
  sql.run('checkpoint the write-ahead log', () => sql.statement('PRAGMA wal_checkpoint(TRUNCATE)').get());
  sql.run('vacuum the database', () => sql.statement('VACUUM').run());
  sql.run('checkpoint the write-ahead log', () => sql.statement('PRAGMA wal_checkpoint(TRUNCATE)').get());
  return { bytesBefore, bytesAfter: fileBytes(sql.label) };
}

/** The database file and its WAL; 0 for ':memory:'. */
function fileBytes(path: string): number {
  return size(path) + size(`${path}-wal`);
}

function size(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
