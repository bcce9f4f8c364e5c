import { ToolgateError, describeError } from '../../core/index.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../store-defaults.ts';

export interface PostgresFailureOptions {
  /** The database as messages name it (postgresLabel: no password). */
  label: string;
  /** What the store was doing, e.g. "append events to run run_1". */
  action: string;
  /** host:port, named in the hints of connection errors. */
  server: string;
  /** Scrubbed from the message should a driver error ever quote it. */
  password?: string | undefined;
}

/**
 * Turns whatever pg threw into a ToolgateError that names the database and
 * says what to check: `store_unavailable` when the database cannot be used for
 * the moment (the same operation succeeds once it is back: runs wait for it),
 * `internal` otherwise. ToolgateErrors pass through unchanged.
 */
export function postgresFailure(error: unknown, options: PostgresFailureOptions): ToolgateError {
  if (error instanceof ToolgateError) return error;
  const { code, detail } = errorParts(error);
  const hint = hintFor(code, detail, options.server);
  let message =
    `PostgreSQL store ${options.label}: could not ` + `${options.action}: ${detail}${hint === '' ? '' : `; ${hint}`}`;
  if (options.password !== undefined && options.password !== '') message = message.replaceAll(options.password, '***');
  const transient = isTransient(code, detail);
  const details = {
    ...(code === undefined ? {} : { postgresCode: code }),
    ...(transient ? { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS } : {}),
  };
  return new ToolgateError(transient ? 'store_unavailable' : 'internal', message, {
    cause: error,
    ...(Object.keys(details).length === 0 ? {} : { details }),
  });
}

/**
 * Whether the connection a statement ran on broke under it (ended by the server, reset,
 * closed), as opposed to the server refusing new connections or answering the statement.
 */
export function connectionLost(error: unknown): boolean {
  const { code, detail } = errorParts(error);
  if (
    code === '57P01' ||
    code === '57P02' ||
    code === '08006' ||
    code === '08003' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE'
  )
    return true;
  return (code === undefined || !/^[0-9A-Z]{5}$/.test(code)) && CONNECTION_LOST.test(detail);
}

const CONNECTION_LOST = /Connection terminated|ECONNRESET|EPIPE|terminating connection|is not queryable/i;
const TIMED_OUT = /timeout/i;

/** Network errors of the driver (the server is not reachable, or the connection broke). */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/**
 * Whether the failure says "not now" rather than "never": the server is
 * unreachable, restarting, out of connections or resources, a standby after a
 * failover (read-only), or the transaction collided with another one.
 */
function isTransient(code: string | undefined, detail: string): boolean {
  if (code !== undefined) {
    if (NETWORK_CODES.has(code)) return true;
    // 08: connection exception; 53: insufficient resources (disk full, out of memory, too many connections); 57P0x:
    // shutdown, crash, starting up.
    if (code.startsWith('08') || code.startsWith('53') || code === '57P01' || code === '57P02' || code === '57P03')
      return true;
    // 25006: read-only transaction (a standby, mid-failover); 40001/40P01: serialization failure, deadlock.
    if (code === '25006' || code === '40001' || code === '40P01') return true;
    // Any other SQLSTATE is the server's considered answer to this statement.
    if (/^[0-9A-Z]{5}$/.test(code)) return false;
  }
  return CONNECTION_LOST.test(detail) || TIMED_OUT.test(detail);
}

function errorParts(error: unknown): { code: string | undefined; detail: string } {
  if (!(error instanceof Error)) return { code: undefined, detail: String(error) };
  const codeText = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  // A host name with several addresses fails as an AggregateError whose own message is empty.
  const inner = error instanceof AggregateError ? error.errors.map((e: unknown) => describeError(e)).join('; ') : '';
  const detail = error.message !== '' ? error.message : inner !== '' ? inner : (codeText ?? error.name);
  return { code: codeText, detail };
}

function hintFor(code: string | undefined, detail: string, server: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return (
        `nothing accepts connections at ${server}: check that PostgreSQL ` +
        `is running there and listens on TCP (listen_addresses, port)`
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${server} does not resolve: check the host name in the URL`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${server} cannot be reached: check the host, the port and firewalls between this machine and the server`;
    case '28P01':
      return 'password authentication failed: check the user and password in the URL';
    case '28000':
      return (
        `the server refused this user or this client address: ` +
        `check the user in the URL and pg_hba.conf on ${server}`
      );
    case '3D000':
      return 'the database named in the URL does not exist: create it (createdb) or fix the URL';
    case '3F000':
      return 'the schema does not exist: check the schema option';
    case '42501':
      return (
        'the user lacks a privilege the store needs: grant it CREATE on the ' +
        'database (to create the schema) and on the schema, or use a schema it owns'
      );
    case '42P01':
      return (
        'a table of the store is missing: the schema was changed outside ' +
        'toolgate; open the store again to run its migrations, or restore the schema'
      );
    case '53300':
      return `${server} has no free connection slot: lower poolSize here or raise max_connections on the server`;
    case '53100':
      return `the disk of ${server} is full: free space on the server's data volume`;
    case '25006':
      return (
        `${server} accepts only reads (a standby, or a failover under way): ` +
        `point the URL at the primary, or wait for the failover to finish`
      );
    case '57P01':
    case '57P02':
    case '57P03':
      return `the server at ${server} is shutting down or starting up: retry once it is up`;
    case '22021':
    case '22P05':
      return (
        'PostgreSQL cannot store the character U+0000 (NUL) in text ' +
        'or jsonb columns: remove it from run input, output or metadata'
      );
    case '40001':
    case '40P01':
      return 'the transaction collided with a concurrent one: retry';
    default:
      break;
  }
  if (code?.startsWith('08') === true || CONNECTION_LOST.test(detail)) {
    return (
      `the connection to ${server} was lost: check that PostgreSQL ` +
      `is up and reachable; the next operation opens a new connection`
    );
  }
  if (TIMED_OUT.test(detail))
    return `${server} did not answer in time: check that PostgreSQL is up and reachable, or raise connectTimeoutMs`;
  if (/SSL/.test(detail)) return 'check sslmode in the URL against what the server offers';
  if (/password must be a string|SASL/.test(detail))
    return 'the server asks for a password: put it in the URL (postgres://user:password@host/db)';
  return '';
}
