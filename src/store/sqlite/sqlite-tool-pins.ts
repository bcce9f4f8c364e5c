import { ToolgateError, parseJson, type JsonObject, type ToolPin } from '../../core/index.ts';
import type { SqliteRow } from './run-row.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

const PIN_COLUMNS = 'server, tool, fingerprint, definition, pinned_at, accepted_by';
const SELECT_PINS = `SELECT ${PIN_COLUMNS} FROM tool_pins ORDER BY server, tool`;
const SELECT_PIN = `SELECT ${PIN_COLUMNS} FROM tool_pins WHERE server = ? AND tool = ?`;
const INSERT_PIN_IF_NEW = `INSERT INTO tool_pins (${PIN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (server, tool) DO NOTHING`;
const UPSERT_PIN = `INSERT INTO tool_pins (${PIN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (server, tool) DO UPDATE SET
    fingerprint = excluded.fingerprint, definition = excluded.definition,
    pinned_at = excluded.pinned_at, accepted_by = excluded.accepted_by`;

/** SqliteRunStore's tool pins. The insert and the read-back share one IMMEDIATE transaction: the first writer wins, in any process. */
export class SqliteToolPins {
  readonly #sql: SqliteConnection;

  constructor(connection: SqliteConnection) {
    this.#sql = connection;
  }

  list(): ToolPin[] {
    return this.#sql.run('list tool pins', () => this.#sql.statement(SELECT_PINS).all().map(pinFromRow));
  }

  pinIfNew(pin: ToolPin): ToolPin {
    return this.#sql.transaction(`pin tool ${pin.server}/${pin.tool}`, () => {
      this.#sql.statement(INSERT_PIN_IF_NEW).run(...pinValues(pin));
      const row = this.#sql.statement(SELECT_PIN).get(pin.server, pin.tool);
      // Inserted or found under this transaction's write lock: nobody can have removed it.
      if (row === undefined) throw new ToolgateError('internal', `the pin of tool ${pin.server}/${pin.tool} vanished while it was written`);
      return pinFromRow(row);
    });
  }

  replace(pin: ToolPin): void {
    this.#sql.transaction(`replace the pin of tool ${pin.server}/${pin.tool}`, () => {
      this.#sql.statement(UPSERT_PIN).run(...pinValues(pin));
    });
  }
}

function pinValues(pin: ToolPin): [string, string, string, string, string, string] {
  return [pin.server, pin.tool, pin.fingerprint, JSON.stringify(pin.definition), pin.pinnedAt, pin.acceptedBy];
}

function pinFromRow(row: SqliteRow): ToolPin {
  return {
    server: String(row['server']),
    tool: String(row['tool']),
    fingerprint: String(row['fingerprint']),
    definition: parseJson(String(row['definition'])) as JsonObject,
    pinnedAt: String(row['pinned_at']),
    acceptedBy: String(row['accepted_by']),
  };
}
