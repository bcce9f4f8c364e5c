/**
 * The two SQL stores share their column descriptions and codecs; what differs
 * is named here. SQLite keeps JSON as TEXT, booleans as INTEGER 0/1 and times
 * as ISO text, and binds `?`; PostgreSQL has json/jsonb (parsed by the pool's
 * type parser), boolean and timestamptz (read as Date), and binds `$n`.
 */
export type SqlDialect = 'sqlite' | 'postgres';

/**
 * A value bound to a statement parameter. JSON goes as text in both dialects
 * (pg would send a JS array as an SQL array); a boolean becomes 0/1 where
 * SQLite binds it.
 */
export type SqlValue = string | number | boolean | null;

/** A row as either driver returns it. */
export type SqlRow = Readonly<Record<string, unknown>>;

/**
 * How a column is kept: `json` and `jsonb` differ only in PostgreSQL's type (jsonb for run columns, json where the
 * exact text matters).
 */
export type ColumnKind = 'text' | 'integer' | 'boolean' | 'json' | 'jsonb' | 'time';

export interface Column {
  readonly name: string;
  readonly kind: ColumnKind;
}

const POSTGRES_CASTS: Readonly<Record<ColumnKind, string>> = {
  text: '',
  integer: '',
  boolean: '',
  json: '::json',
  jsonb: '::jsonb',
  time: '::timestamptz',
};

/** Parameters of one statement, bound in order: each `bind` returns the placeholder to write into the SQL. */
export class SqlParams {
  readonly values: SqlValue[] = [];
  readonly #dialect: SqlDialect;

  constructor(dialect: SqlDialect) {
    this.#dialect = dialect;
  }

  bind(value: SqlValue, kind: ColumnKind = 'text'): string {
    this.values.push(value);
    return this.#dialect === 'sqlite' ? '?' : `$${this.values.length}${POSTGRES_CASTS[kind]}`;
  }
}

/** `a, b, c` */
export function columnList(columns: readonly Column[]): string {
  return columns.map((column) => column.name).join(', ');
}

/** The placeholders of an INSERT of `columns`, parameters numbered from 1. */
export function placeholders(dialect: SqlDialect, columns: readonly Column[]): string {
  return columns
    .map((column, i) => (dialect === 'sqlite' ? '?' : `$${i + 1}${POSTGRES_CASTS[column.kind]}`))
    .join(', ');
}

/** JSON text for an optional column: SQL NULL when absent. */
export function jsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}
