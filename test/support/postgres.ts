// PostgreSQL for tests: the server named by TOOLGATE_TEST_POSTGRES_URL (else
// DATABASE_URL, else the local one CI starts), statements outside any store, and
// throwaway databases (processes under test) — the store tests add schemas
// (test/contract/postgres-harness.ts).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_POSTGRES_URL =
  process.env['TOOLGATE_TEST_POSTGRES_URL'] || process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/test';

let reachable: boolean | undefined;

/** Whether the test server answers (asked once, synchronously, so it can decide a `skip`). */
export function postgresReachable(): boolean {
  if (reachable !== undefined) return reachable;
  const probe = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      'import pg from "pg"; const c = new pg.Client({ connectionString: process.argv[1], ' +
        'connectionTimeoutMillis: 3000 }); await c.connect(); await c.end();',
      TEST_POSTGRES_URL,
    ],
    { encoding: 'utf8', timeout: 10_000, cwd: new URL('../..', import.meta.url).pathname },
  );
  reachable = probe.status === 0;
  return reachable;
}

/** A `skip` value: false when PostgreSQL answers; in CI its absence is a failure, not a skip. */
export function postgresSkip(): string | false {
  if (postgresReachable()) return false;
  if (process.env['CI'] === 'true') return false;
  return (
    `no PostgreSQL at ${redacted(TEST_POSTGRES_URL)} (set ` +
    `TOOLGATE_TEST_POSTGRES_URL; scripts/ci-services.sh starts one)`
  );
}

/** Creates an empty database named `<prefix>_<random>`, remembered in `created`; returns its URL. */
export async function createDatabase(prefix: string, created: string[]): Promise<string> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  await adminQuery(`CREATE DATABASE ${name}`);
  created.push(name);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(name: string): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
}

/** One statement on a connection of its own, outside any store. */
export async function adminQuery(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}
