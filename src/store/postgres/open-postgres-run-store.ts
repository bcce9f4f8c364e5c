import { Pool, types, type ClientConfig, type CustomTypesConfig } from 'pg';
import { ToolgateError, parseJson } from '../../core/index.ts';
import { applyPostgresMigrations } from './apply-migrations.ts';
import { PostgresConnection } from './postgres-connection.ts';
import { postgresFailure } from './postgres-failure.ts';
import { PostgresListener } from './postgres-listener.ts';
import { PostgresRunStore } from './postgres-run-store.ts';
import { postgresTarget } from './postgres-url.ts';

export const DEFAULT_POSTGRES_POOL_SIZE = 10;
export const DEFAULT_POSTGRES_SCHEMA = 'public';
export const DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_POSTGRES_APPLICATION_NAME = 'toolgate';
/** TCP keepalive of the LISTEN connection, so a silently dead one is noticed and replaced. */
const LISTEN_KEEPALIVE_DELAY_MS = 10_000;

export interface OpenPostgresRunStoreOptions {
  /** postgres://user:password@host:5432/database (query parameters such as sslmode are passed to pg). */
  url: string;
  /** Connections in the pool (one more is opened for `watch`). */
  poolSize?: number;
  /** The schema that holds the store's tables; created when missing. Plain lower-case identifier. */
  schema?: string;
  /** How long to wait for a new connection before failing. */
  connectTimeoutMs?: number;
  /** application_name of the connections (the LISTEN one adds ":listen"), as pg_stat_activity shows it. */
  applicationName?: string;
}

/**
 * Connects, brings the schema up to date (once, however many instances start
 * together) and returns the store. Rejects with a ToolgateError that names the
 * server and what to check, never the password.
 */
const JSON_OID = 114;
const JSONB_OID = 3802;

/** json and jsonb columns read with parseJson: JSON.parse may rename escaped keys (see core/parse-json.ts). */
const JSON_TYPES: CustomTypesConfig = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    (oid === JSON_OID || oid === JSONB_OID) && format !== 'binary'
      ? (text: string) => parseJson(text)
      : types.getTypeParser(oid, format),
};

export async function openPostgresRunStore(options: OpenPostgresRunStoreOptions): Promise<PostgresRunStore> {
  const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  const poolSize = options.poolSize ?? DEFAULT_POSTGRES_POOL_SIZE;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_POSTGRES_CONNECT_TIMEOUT_MS;
  const applicationName = options.applicationName ?? DEFAULT_POSTGRES_APPLICATION_NAME;
  checkOptions(poolSize, connectTimeoutMs);
  if (typeof options.url !== 'string' || options.url.trim() === '') {
    throw new ToolgateError(
      'config_invalid',
      'PostgreSQL store: url is empty; give a URL such as postgres://user:password@localhost:5432/toolgate',
    );
  }
  const target = postgresTarget(options.url, schema);
  const naming = {
    label: schema === DEFAULT_POSTGRES_SCHEMA ? target.label : `${target.label} (schema ${schema})`,
    server: target.server,
    password: target.password,
  };
  const config: ClientConfig = {
    connectionString: target.connectionString,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: applicationName,
    types: JSON_TYPES,
  };
  const pool = new Pool({ ...config, max: poolSize });
  // An idle pooled connection that breaks (server restart) is dropped by the pool; without a listener the error would
  // end the process.
  pool.on('error', (error) =>
    process.emitWarning(
      postgresFailure(error, { ...naming, action: 'keep an idle connection' }).message,
      'ToolgateWarning',
    ),
  );
  // The pool's own listener is off a client while it is checked out, and for a moment as it passes from one user
  // to the next: a backend that ends then (pg_terminate_backend, a restart, a failover, a pooler) would emit 'error'
  // with no listener and end the process. This one stays for the client's life. Nothing to do in it: the statement
  // in flight fails with the error, and the pool drops a client that failed once it is released.
  pool.on('connect', (client) => client.on('error', ignoreClientError));
  try {
    const client = await pool.connect();
    try {
      await applyPostgresMigrations(client, { schema, label: naming.label });
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw postgresFailure(error, { ...naming, action: 'open the database' });
  }
  const listener = new PostgresListener({
    config: {
      ...config,
      application_name: `${applicationName}:listen`,
      keepAlive: true,
      keepAliveInitialDelayMillis: LISTEN_KEEPALIVE_DELAY_MS,
    },
    naming,
  });
  return new PostgresRunStore({ connection: new PostgresConnection({ pool, naming }), listener });
}

function ignoreClientError(): void {
  // See pool.on('connect') in openPostgresRunStore.
}

function checkOptions(poolSize: number, connectTimeoutMs: number): void {
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new ToolgateError('config_invalid', `PostgreSQL store: poolSize must be a whole number ≥ 1, got ${poolSize}`);
  }
  if (!Number.isInteger(connectTimeoutMs) || connectTimeoutMs < 1) {
    throw new ToolgateError(
      'config_invalid',
      `PostgreSQL store: connectTimeoutMs must be a whole number of milliseconds ≥ 1, got ${connectTimeoutMs}`,
    );
  }
}
