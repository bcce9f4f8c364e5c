import type { Run, RunEvent } from '../../core/index.ts';
import { importValues } from '../sql/run-sql.ts';
import { INSERT_EVENT, INSERT_IMPORTED_RUN } from './run-statements.ts';
import type { SqliteConnection } from './sqlite-connection.ts';
import { sqliteValues } from './sqlite-values.ts';

/** Writes a run copied from another store, with its log, in one transaction; 'exists' when the id is taken. */
export function importRunInto(sql: SqliteConnection, run: Run, events: readonly RunEvent[]): 'imported' | 'exists' {
  return sql.transaction(`import run ${run.id}`, () => {
    const inserted = sql.statement(INSERT_IMPORTED_RUN).run(...sqliteValues(importValues(run, events)));
    if (Number(inserted.changes) === 0) return 'exists';
    const insert = sql.statement(INSERT_EVENT);
    for (const event of events) insert.run(run.id, event.id, event.type, event.time, JSON.stringify(event.data));
    return 'imported';
  });
}
