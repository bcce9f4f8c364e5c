import { ToolgateError } from '../../core/index.ts';

/** What the store needs of a connection URL: where to connect, and how to name it without its secrets. */
export interface PostgresTarget {
  /** The URL to hand to pg, with the schema's search_path added to its `options`. */
  connectionString: string;
  /** The URL without password and query, for messages: postgres://user@host:5432/db. */
  label: string;
  /** host:port, for the hints of connection errors. */
  server: string;
  /** The password, when the URL has one (user info or ?password=): scrubbed from every message the store builds. */
  password: string | undefined;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Reads a postgres:// URL and points its connections at `schema` (through the
 * `options` startup parameter, so every pooled connection gets it before its
 * first query). Never echoes the URL back: it may hold a password.
 */
export function postgresTarget(url: string, schema: string): PostgresTarget {
  if (!SCHEMA_NAME.test(schema)) {
    throw new ToolgateError(
      'config_invalid',
      `PostgreSQL store: schema "${schema}" is not a plain lower-case identifier; ` +
        `use letters a-z, digits and _ (at most 63), starting with a letter or _`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // No cause: URL's own error carries the input, password included.
    throw new ToolgateError(
      'config_invalid',
      'PostgreSQL store: url is not a valid URL; expected postgres://user:password@host:5432/database',
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new ToolgateError(
      'config_invalid',
      `PostgreSQL store: url must start with postgres:// or postgresql://, not ${parsed.protocol}//`,
    );
  }
  const password =
    parsed.password !== '' ? decodeURIComponent(parsed.password) : (parsed.searchParams.get('password') ?? undefined);
  const options = parsed.searchParams.get('options');
  // A later -c wins: the store's schema overrides a search_path the URL may set.
  parsed.searchParams.set('options', `${options === null ? '' : `${options} `}-c search_path=${schema}`);
  return { connectionString: parsed.toString(), label: postgresLabel(url), server: serverOf(parsed), password };
}

/** The URL as messages may show it: scheme, user, host, port and database; no password, no query. */
export function postgresLabel(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username === '' ? '' : `${parsed.username}@`;
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

function serverOf(parsed: URL): string {
  // pg reads a host (or socket directory) from the query when the URL has none.
  const host = parsed.hostname !== '' ? parsed.hostname : (parsed.searchParams.get('host') ?? 'localhost');
  return `${host}:${parsed.port === '' ? '5432' : parsed.port}`;
}
