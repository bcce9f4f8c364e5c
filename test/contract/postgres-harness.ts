// PostgreSQL for the store tests: the server named by TOOLGATE_TEST_POSTGRES_URL
// (else DATABASE_URL, else the local one scripts/ci-services.sh starts), and a
// throwaway schema per test.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { Client } from 'pg';
import { TEST_POSTGRES_URL as POSTGRES_TEST_URL, adminQuery } from '../support/postgres.ts';
import {
  openPostgresRunStore,
  type OpenPostgresRunStoreOptions,
} from '../../src/store/postgres/open-postgres-run-store.ts';
import type { PostgresRunStore } from '../../src/store/postgres/postgres-run-store.ts';
import { postgresLabel } from '../../src/store/postgres/postgres-url.ts';

export { TEST_POSTGRES_URL as POSTGRES_TEST_URL, adminQuery } from '../support/postgres.ts';

/** Why the test server cannot be used, or undefined when it answers. */
async function unavailable(): Promise<string | undefined> {
  const client = new Client({ connectionString: POSTGRES_TEST_URL, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error && error.message !== ''
      ? error.message
      : String((error as { code?: unknown }).code ?? error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Calls `define` (which declares the suite) when PostgreSQL answers. Otherwise
 * declares one skipped test saying why, or, under CI=true, one failing test:
 * CI must never pass by skipping the PostgreSQL store.
 */
export async function whenPostgres(name: string, define: () => void): Promise<void> {
  const why = await unavailable();
  if (why === undefined) {
    define();
    return;
  }
  const message =
    `no PostgreSQL at ${postgresLabel(POSTGRES_TEST_URL)} (${why}); ` +
    `set TOOLGATE_TEST_POSTGRES_URL or run scripts/ci-services.sh`;
  if (process.env['CI'] === 'true') {
    it(name, () => assert.fail(`${message}. CI=true: the PostgreSQL store must be tested`));
  } else {
    it(name, { skip: message }, () => undefined);
  }
}

/** A fresh schema name; nothing is created until a store opens it. */
export function randomSchema(): string {
  return `toolgate_test_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** Opens a store on the test server; small pools, since test files run side by side. */
export function openTestStore(
  schema: string,
  options: Partial<OpenPostgresRunStoreOptions> = {},
): Promise<PostgresRunStore> {
  return openPostgresRunStore({ url: POSTGRES_TEST_URL, schema, poolSize: 4, ...options });
}

/** Runs `work` with stores on one fresh schema (opened by `work` through `open`), then closes them and drops it. */
export async function withSchema(
  work: (
    open: (options?: Partial<OpenPostgresRunStoreOptions>) => Promise<PostgresRunStore>,
    schema: string,
  ) => Promise<void>,
): Promise<void> {
  const schema = randomSchema();
  const opened: PostgresRunStore[] = [];
  try {
    await work(async (options) => {
      const store = await openTestStore(schema, options);
      opened.push(store);
      return store;
    }, schema);
  } finally {
    for (const store of opened) await store.close();
    await dropSchema(schema);
  }
}
