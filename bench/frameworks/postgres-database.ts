// The PostgreSQL the toolgate-http-pg runner needs: whether it can be used
// (asked once by compare.ts, before any child starts, so that its absence makes
// the runner skipped rather than failed), and a throwaway database per child, so
// that no run, of this comparison or of one beside it, sees another's rows.
import { randomBytes } from 'node:crypto';
import type { QueryResultRow } from 'pg';
import { postgresLabel, withoutSecret } from '../postgres-url.ts';
import { isLoopbackHost } from './loopback-host.ts';

/**
 * Where compare.ts hands a child its database's URL: the environment, since arguments (and a password in them) show in
 * process lists.
 */
export const DATABASE_URL_ENV = 'BENCH_POSTGRES_DATABASE_URL';

const CONNECT_TIMEOUT_MS = 3_000;

export type PostgresCheck = { ok: true; version: string } | { ok: false; reason: string };

export interface ThrowawayDatabase {
  name: string;
  url: string;
  /** Drops it, ending any connection still open on it (PostgreSQL 13 and later). */
  drop(): Promise<void>;
}

function messageOf(error: unknown): string {
  // A refused connection to a name with two addresses is an AggregateError with an empty message.
  if (error instanceof Error && error.message !== '') return error.message;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : String(error);
}

/** One statement on a connection of its own to the server's URL (its database, not a throwaway one). */
async function adminQuery<T extends QueryResultRow>(url: string, sql: string): Promise<T[]> {
  // Loaded here, not at the top: the runner's process imports this module and must load nothing toolgate would not.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query<T>(sql)).rows;
  } catch (error) {
    // Rebuilt without the password; no cause, so that nothing prints the original whole.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(withoutSecret(messageOf(error), url));
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Whether the runner can use the server at `url`: on this machine (a child
 * connects nowhere else, loopback-only.ts), answering, and letting its role
 * create databases. A reason names the server without its password.
 */
export async function checkPostgres(url: string): Promise<PostgresCheck> {
  const label = postgresLabel(url);
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return { ok: false, reason: `the PostgreSQL URL is not a valid URL (${label})` };
  }
  // No host: a Unix socket (or pg's default, localhost).
  if (host !== '' && !isLoopbackHost(host))
    return {
      ok: false,
      reason: `PostgreSQL at ${label} is not on this machine, and the comparison connects to nothing else`,
    };
  let rows: { version: string; can_create: boolean | null }[];
  try {
    rows = await adminQuery(
      url,
      `SELECT current_setting('server_version') AS version, (SELECT rolcreatedb ` +
        `OR rolsuper FROM pg_roles WHERE rolname = current_user) AS can_create`,
    );
  } catch (error) {
    return { ok: false, reason: `no PostgreSQL at ${label} (${messageOf(error)})` };
  }
  const row = rows[0];
  if (row === undefined || row.can_create !== true)
    return {
      ok: false,
      reason: `the role of ${label} may not create databases (CREATEDB), and each run needs one of its own`,
    };
  return { ok: true, version: row.version };
}

/**
 * Creates an empty database named toolgate_bench_<random> on the server at `url`; returns its URL and how to drop it.
 */
export async function createThrowawayDatabase(url: string): Promise<ThrowawayDatabase> {
  const name = `toolgate_bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `CREATE DATABASE ${name}`);
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    name,
    url: own.toString(),
    drop: async () => {
      await adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
