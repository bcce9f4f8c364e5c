import type { SQLInputValue } from 'node:sqlite';
import { isTerminalEvent, type Run, type RunEvent } from '../../core/index.ts';
import { json } from './run-row.ts';
import { INSERT_EVENT, INSERT_RUN } from './run-statements.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

/** A copied run's row (RUN_COLUMNS order), as it was in the store it came from. */
function runValues(run: Run): SQLInputValue[] {
  return [
    run.id,
    run.tenantId ?? null,
    run.userId ?? null,
    run.threadId ?? null,
    run.status,
    run.input,
    run.model,
    run.output ?? null,
    json(run.error),
    JSON.stringify(run.usage),
    run.steps,
    run.lastEventId,
    json(run.metadata),
    json(run.context),
    run.dryRun === undefined ? null : Number(run.dryRun),
    json(run.pendingApproval),
    run.createdAt,
    run.updatedAt,
    json(run.settings),
  ];
}

/** Writes a run copied from another store, with its log, in one transaction; 'exists' when the id is taken. */
export function importRunInto(sql: SqliteConnection, run: Run, events: readonly RunEvent[]): 'imported' | 'exists' {
  return sql.transaction(`import run ${run.id}`, () => {
    const inserted = sql.statement(INSERT_RUN).run(...runValues({ ...run, lastEventId: events.at(-1)?.id ?? 0 }));
    if (Number(inserted.changes) === 0) return 'exists';
    const insert = sql.statement(INSERT_EVENT);
    for (const event of events) insert.run(run.id, event.id, event.type, event.time, JSON.stringify(event.data));
    // Nothing follows a terminal event: the copy refuses appends after it as the original did.
    const terminal = events.find((event) => isTerminalEvent(event));
    if (terminal !== undefined) sql.statement('UPDATE runs SET ended_by = ? WHERE id = ?').run(terminal.type, run.id);
    return 'imported';
  });
}
