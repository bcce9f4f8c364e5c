import { isJsonObject, type ToolPin } from '../../core/index.ts';
import { RowReader } from './row-reader.ts';
import { columnList, placeholders, type Column, type SqlDialect, type SqlRow } from './sql-dialect.ts';

// The definition is json, not jsonb, in PostgreSQL: kept as the exact text written.
const PIN_COLUMNS = [
  { name: 'server', kind: 'text' },
  { name: 'tool', kind: 'text' },
  { name: 'fingerprint', kind: 'text' },
  { name: 'definition', kind: 'json' },
  { name: 'pinned_at', kind: 'text' },
  { name: 'accepted_by', kind: 'text' },
] as const satisfies readonly Column[];

export interface ToolPinStatements {
  list: string;
  /** By server and tool (two parameters). */
  one: string;
  /** Parameters: pinValues. */
  insertIfNew: string;
  /** Parameters: pinValues. */
  upsert: string;
}

export function toolPinStatements(dialect: SqlDialect): ToolPinStatements {
  const columns = columnList(PIN_COLUMNS);
  const insert = `INSERT INTO tool_pins (${columns}) VALUES (${placeholders(dialect, PIN_COLUMNS)})`;
  const [server, tool] = dialect === 'sqlite' ? ['?', '?'] : ['$1', '$2'];
  return {
    list: `SELECT ${columns} FROM tool_pins ORDER BY server, tool`,
    one: `SELECT ${columns} FROM tool_pins WHERE server = ${server} AND tool = ${tool}`,
    insertIfNew: `${insert} ON CONFLICT (server, tool) DO NOTHING`,
    upsert: `${insert}
  ON CONFLICT (server, tool) DO UPDATE SET
    fingerprint = excluded.fingerprint, definition = excluded.definition,
    pinned_at = excluded.pinned_at, accepted_by = excluded.accepted_by`,
  };
}

/** The values of PIN_COLUMNS; only the fields of a pin, whatever else the caller's object holds. */
export function pinValues(pin: ToolPin): string[] {
  return [pin.server, pin.tool, pin.fingerprint, JSON.stringify(pin.definition), pin.pinnedAt, pin.acceptedBy];
}

export function pinFromRow(row: SqlRow, dialect: SqlDialect): ToolPin {
  const read = new RowReader(row, dialect, 'a tool pin');
  return {
    server: read.text('server'),
    tool: read.text('tool'),
    fingerprint: read.text('fingerprint'),
    definition: read.json('definition', isJsonObject),
    pinnedAt: read.text('pinned_at'),
    acceptedBy: read.text('accepted_by'),
  };
}
