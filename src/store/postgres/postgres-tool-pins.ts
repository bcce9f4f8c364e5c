import { ToolgateError, type JsonObject, type ToolPin } from '../../core/index.ts';
import type { PgRow, PostgresConnection } from './postgres-connection.ts';

const PIN_COLUMNS = 'server, tool, fingerprint, definition, pinned_at, accepted_by';
const SELECT_PINS = `SELECT ${PIN_COLUMNS} FROM tool_pins ORDER BY server, tool`;
const SELECT_PIN = `SELECT ${PIN_COLUMNS} FROM tool_pins WHERE server = $1 AND tool = $2`;
const INSERT_PIN_IF_NEW = `INSERT INTO tool_pins (${PIN_COLUMNS}) VALUES ($1, $2, $3, $4::json, $5, $6) ON CONFLICT (server, tool) DO NOTHING`;
const UPSERT_PIN = `INSERT INTO tool_pins (${PIN_COLUMNS}) VALUES ($1, $2, $3, $4::json, $5, $6)
  ON CONFLICT (server, tool) DO UPDATE SET
    fingerprint = excluded.fingerprint, definition = excluded.definition,
    pinned_at = excluded.pinned_at, accepted_by = excluded.accepted_by`;

/** PostgresRunStore's tool pins. */
export class PostgresToolPins {
  readonly #db: PostgresConnection;

  constructor(connection: PostgresConnection) {
    this.#db = connection;
  }

  async list(): Promise<ToolPin[]> {
    return (await this.#db.read('list tool pins', SELECT_PINS)).map(pinFromRow);
  }

  /**
   * Two statements, not one: an INSERT that met a row another transaction
   * committed meanwhile does nothing, and a SELECT in the same statement would
   * not see that row (its snapshot is older). Under READ COMMITTED the second
   * statement's snapshot does, so every racer reads the winner's pin.
   */
  async pinIfNew(pin: ToolPin): Promise<ToolPin> {
    return this.#db.transaction(`pin tool ${pin.server}/${pin.tool}`, async (query) => {
      await query(INSERT_PIN_IF_NEW, pinParams(pin));
      const [row] = await query(SELECT_PIN, [pin.server, pin.tool]);
      if (row === undefined) throw new ToolgateError('internal', `the pin of tool ${pin.server}/${pin.tool} vanished while it was written`);
      return pinFromRow(row);
    });
  }

  async replace(pin: ToolPin): Promise<void> {
    await this.#db.query(`replace the pin of tool ${pin.server}/${pin.tool}`, UPSERT_PIN, pinParams(pin));
  }
}

function pinParams(pin: ToolPin): string[] {
  return [pin.server, pin.tool, pin.fingerprint, JSON.stringify(pin.definition), pin.pinnedAt, pin.acceptedBy];
}

/** `definition` arrives parsed (the store's json type parser). */
function pinFromRow(row: PgRow): ToolPin {
  return {
    server: String(row['server']),
    tool: String(row['tool']),
    fingerprint: String(row['fingerprint']),
    definition: row['definition'] as JsonObject,
    pinnedAt: String(row['pinned_at']),
    acceptedBy: String(row['accepted_by']),
  };
}
