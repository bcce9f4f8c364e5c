import { ToolgateError, type ToolPin } from '../../core/index.ts';
import { pinFromRow, pinValues, toolPinStatements } from '../sql/tool-pin-row.ts';
import type { PostgresConnection } from './postgres-connection.ts';

const PINS = toolPinStatements('postgres');

/** PostgresRunStore's tool pins. */
export class PostgresToolPins {
  readonly #db: PostgresConnection;

  constructor(connection: PostgresConnection) {
    this.#db = connection;
  }

  async list(): Promise<ToolPin[]> {
    return (await this.#db.read('list tool pins', PINS.list)).map((row) => pinFromRow(row, 'postgres'));
  }

  /**
   * Two statements, not one: an INSERT that met a row another transaction
   * committed meanwhile does nothing, and a SELECT in the same statement would
   * not see that row (its snapshot is older). Under READ COMMITTED the second
   * statement's snapshot does, so every racer reads the winner's pin.
   */
  async pinIfNew(pin: ToolPin): Promise<ToolPin> {
    return this.#db.transaction(`pin tool ${pin.server}/${pin.tool}`, async (query) => {
      await query(PINS.insertIfNew, pinValues(pin));
      const [row] = await query(PINS.one, [pin.server, pin.tool]);
      if (row === undefined)
        throw new ToolgateError('internal', `the pin of tool ${pin.server}/${pin.tool} vanished while it was written`);
      return pinFromRow(row, 'postgres');
    });
  }

  async replace(pin: ToolPin): Promise<void> {
    await this.#db.query(`replace the pin of tool ${pin.server}/${pin.tool}`, PINS.upsert, pinValues(pin));
  }
}
