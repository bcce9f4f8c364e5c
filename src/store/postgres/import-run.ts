import type { Run, RunEvent } from '../../core/index.ts';
import { importValues } from '../sql/run-sql.ts';
import type { Query } from './postgres-connection.ts';
import { INSERT_IMPORTED_RUN } from './run-statements.ts';

const INSERT_COPIED_EVENTS = `INSERT INTO events (run_id, seq, type, time, data)
SELECT $1, e.seq, e.type, e.time, e.data::json
FROM unnest($2::integer[], $3::text[], $4::timestamptz[], $5::text[]) AS e(seq, type, time, data)`;

/** The body of importRun's transaction: a run copied from another store, as it was, with its log. */
export async function importRunLocked(
  query: Query,
  run: Run,
  events: readonly RunEvent[],
): Promise<'imported' | 'exists'> {
  const [row] = await query(INSERT_IMPORTED_RUN, importValues(run, events));
  if (row === undefined) return 'exists';
  if (events.length > 0) {
    await query(INSERT_COPIED_EVENTS, [
      run.id,
      events.map((e) => e.id),
      events.map((e) => e.type),
      events.map((e) => e.time),
      events.map((e) => JSON.stringify(e.data)),
    ]);
  }
  return 'imported';
}
