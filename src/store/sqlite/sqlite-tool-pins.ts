import { ToolgateError, type ToolPin } from '../../core/index.ts';
import { pinFromRow, pinValues, toolPinStatements } from '../sql/tool-pin-row.ts';
import type { SqliteConnection } from './sqlite-connection.ts';

const PINS = toolPinStatements('sqlite');

/**
 * SqliteRunStore's tool pins. The insert and the read-back share one IMMEDIATE transaction: the first writer wins, in
 * any process.
 */
export class SqliteToolPins {
  readonly #sql: SqliteConnection;

  constructor(connection: SqliteConnection) {
    this.#sql = connection;
  }

  list(): ToolPin[] {
    return this.#sql.run('list tool pins', () =>
      this.#sql
        .statement(PINS.list)
        .all()
        .map((row) => pinFromRow(row, 'sqlite')),
    );
  }

  pinIfNew(pin: ToolPin): ToolPin {
    return this.#sql.transaction(`pin tool ${pin.server}/${pin.tool}`, () => {
      this.#sql.statement(PINS.insertIfNew).run(...pinValues(pin));
      const row = this.#sql.statement(PINS.one).get(pin.server, pin.tool);
      // Inserted or found under this transaction's write lock: nobody can have removed it.
      if (row === undefined)
        throw new ToolgateError('internal', `the pin of tool ${pin.server}/${pin.tool} vanished while it was written`);
      return pinFromRow(row, 'sqlite');
    });
  }

  replace(pin: ToolPin): void {
    this.#sql.transaction(`replace the pin of tool ${pin.server}/${pin.tool}`, () => {
      this.#sql.statement(PINS.upsert).run(...pinValues(pin));
    });
  }
}
