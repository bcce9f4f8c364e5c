import type { Message, Thread } from '../../core/index.ts';
import { isMessage, isMessageList } from '../stored-values.ts';
import { RowReader } from './row-reader.ts';
import type { SqlDialect, SqlRow } from './sql-dialect.ts';

/**
 * A `threads` row (tenant_id, id, created_at, updated_at) with its messages:
 * `messageRows` of `thread_messages` (their `message` column, in seq order),
 * or, without them, the row's own `messages` column (a JSON array aggregated
 * in the same statement, so from the same snapshot).
 */
export function threadFromRow(row: SqlRow, dialect: SqlDialect, messageRows?: readonly SqlRow[]): Thread {
  const read = new RowReader(row, dialect, `thread ${String(row['id'])}`);
  const messages: Message[] =
    messageRows === undefined
      ? read.json('messages', isMessageList)
      : messageRows.map((m) =>
          new RowReader(m, dialect, `a message of thread ${read.text('id')}`).json('message', isMessage),
        );
  // '' is the key column's stand-in for "no tenant".
  const tenantId = read.optionalText('tenant_id');
  return {
    id: read.text('id'),
    ...(tenantId === undefined || tenantId === '' ? {} : { tenantId }),
    messages,
    createdAt: read.time('created_at'),
    updatedAt: read.time('updated_at'),
  };
}
