import type { RunEvent } from '../../core/index.ts';
import { readBackEvent } from '../stored-event.ts';
import { RowReader } from './row-reader.ts';
import type { SqlDialect, SqlRow } from './sql-dialect.ts';

/** An `events` row (seq, type, time, data) of run `runId`. */
export function eventFromRow(runId: string, row: SqlRow, dialect: SqlDialect): RunEvent {
  const read = new RowReader(row, dialect, `an event of run ${runId}`);
  return readBackEvent({
    id: read.integer('seq'),
    runId,
    type: read.text('type'),
    time: read.time('time'),
    data: read.anyJson('data'),
  });
}
