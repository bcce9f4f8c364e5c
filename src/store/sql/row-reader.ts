import { ToolgateError, parseJson } from '../../core/index.ts';
import type { SqlDialect, SqlRow } from './sql-dialect.ts';

/** Decodes the columns of one row by their kind (see ColumnKind), checking JSON values with a guard. */
export class RowReader {
  readonly #row: SqlRow;
  readonly #dialect: SqlDialect;
  /** What the row is, for an error message ("run run_1"). */
  readonly #what: string;

  constructor(row: SqlRow, dialect: SqlDialect, what: string) {
    this.#row = row;
    this.#dialect = dialect;
    this.#what = what;
  }

  text(column: string): string {
    return String(this.#row[column]);
  }

  optionalText(column: string): string | undefined {
    const value = this.#row[column];
    return value === null || value === undefined ? undefined : String(value);
  }

  /** pg reads bigint as text; node:sqlite reads INTEGER as a number. */
  integer(column: string): number {
    return Number(this.#row[column]);
  }

  optionalInteger(column: string): number | undefined {
    const value = this.#row[column];
    return value === null || value === undefined ? undefined : Number(value);
  }

  optionalBoolean(column: string): boolean | undefined {
    const value = this.#row[column];
    if (value === null || value === undefined) return undefined;
    return typeof value === 'boolean' ? value : Number(value) !== 0;
  }

  /** ISO 8601 with milliseconds: SQLite keeps the text as written; pg reads timestamptz as a Date. */
  time(column: string): string {
    const value = this.#row[column];
    if (this.#dialect === 'sqlite') return String(value);
    return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
  }

  /** A text column holding one of a closed set of names. */
  name<T extends string>(column: string, guard: (value: unknown) => value is T): T {
    const value = this.#row[column];
    if (guard(value)) return value;
    throw this.#unreadable(column);
  }

  optionalName<T extends string>(column: string, guard: (value: unknown) => value is T): T | undefined {
    const value = this.#row[column];
    return value === null || value === undefined ? undefined : this.name(column, guard);
  }

  json<T>(column: string, guard: (value: unknown) => value is T): T {
    const value = this.#json(column);
    if (guard(value)) return value;
    throw this.#unreadable(column);
  }

  optionalJson<T>(column: string, guard: (value: unknown) => value is T): T | undefined {
    const value = this.#row[column];
    return value === null || value === undefined ? undefined : this.json(column, guard);
  }

  /** JSON without a shape to check (event data: its type decides it, see readBackEvent). */
  anyJson(column: string): unknown {
    return this.#json(column);
  }

  /**
   * SQLite hands JSON over as its text; pg has parsed json and jsonb already (with parseJson, see
   * openPostgresRunStore).
   */
  #json(column: string): unknown {
    const value = this.#row[column];
    return this.#dialect === 'sqlite' ? parseJson(String(value)) : value;
  }

  #unreadable(column: string): ToolgateError {
    return new ToolgateError(
      'internal',
      `${this.#what}: column ${column} holds a value this version cannot ` +
        `read; was the store written by a newer toolgate or another program?`,
    );
  }
}
