import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** The SQLite file `toolgate run` records runs into, inside the data directory. */
export const RUNS_DB_FILE = 'runs.db';

export interface DataDirOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** Resolves a relative TOOLGATE_HOME. */
  cwd: string;
}

/**
 * The user's toolgate data directory: TOOLGATE_HOME, else
 * $XDG_DATA_HOME/toolgate, else ~/.local/share/toolgate.
 */
export function dataDir(options: DataDirOptions): string {
  const { env } = options;
  const home = nonEmpty(env['TOOLGATE_HOME']);
  if (home !== undefined) return resolve(options.cwd, home);
  const xdg = nonEmpty(env['XDG_DATA_HOME']);
  // The XDG base directory spec: a relative value is invalid and is ignored.
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'toolgate');
  return join(nonEmpty(env['HOME']) ?? homedir(), '.local', 'share', 'toolgate');
}

/** `<data directory>/runs.db`. */
export function defaultRunsDb(options: DataDirOptions): string {
  return join(dataDir(options), RUNS_DB_FILE);
}

/**
 * Creates a SQLite file's folder (mode 0700 for new folders) and the file
 * itself (mode 0600) when it does not exist yet. SQLite gives its -wal and
 * -shm files the database file's permissions, so the whole store stays
 * private whatever the umask. An empty file is a valid new database.
 */
export function preparePrivateDbFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (existsSync(path)) return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    // Another process created it first: theirs is as good.
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
