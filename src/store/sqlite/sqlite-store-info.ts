import type { SqliteConnection } from './sqlite-connection.ts';

/** The connection's settings as SQLite reports them. */
export interface SqliteStoreInfo {
  path: string;
  schemaVersion: number;
  journalMode: string;
  synchronous: string;
  foreignKeys: boolean;
  busyTimeoutMs: number;
}

const SYNCHRONOUS_NAMES: readonly string[] = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/** Reads the settings; call inside the connection's `run`. */
export function readStoreInfo(sql: SqliteConnection): SqliteStoreInfo {
  const synchronous = Number(sql.pragma('synchronous'));
  return {
    path: sql.label,
    schemaVersion: Number(sql.pragma('user_version')),
    journalMode: String(sql.pragma('journal_mode')),
    synchronous: SYNCHRONOUS_NAMES[synchronous] ?? String(synchronous),
    foreignKeys: Number(sql.pragma('foreign_keys')) === 1,
    busyTimeoutMs: Number(sql.pragma('busy_timeout')),
  };
}
