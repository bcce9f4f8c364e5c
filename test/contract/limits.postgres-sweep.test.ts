// PostgresLimits' sweep on a real schema: expired slots and forgotten strikes go, and the strikes stay bounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pool } from 'pg';
import { PostgresConnection } from '../../src/store/postgres/postgres-connection.ts';
import { PostgresLimits } from '../../src/store/postgres/postgres-limits.ts';
import { postgresTarget } from '../../src/store/postgres/postgres-url.ts';
import { POSTGRES_TEST_URL, adminQuery, whenPostgres, withSchema } from './postgres-harness.ts';

await whenPostgres('PostgresLimits: sweep', () => {
  describe('PostgresLimits: sweep', () => {
    it(
      'removes expired slots and forgotten strikes, then ' + 'the strikes nearest to being forgotten beyond the bound',
      () =>
        withSchema(async (open, schema) => {
          await open();
          const pool = new Pool({
            connectionString: postgresTarget(POSTGRES_TEST_URL, schema).connectionString,
            max: 2,
          });
          const connection = new PostgresConnection({
            pool,
            naming: { label: 'test', server: 'test', password: undefined },
          });
          try {
            const limits = new PostgresLimits(connection, { maxStrikeKeys: 3 });
            await limits.takeSlot({ id: 'gone', limits: [{ key: 'k', max: 5, ttlMs: 1 }] });
            await limits.takeSlot({ id: 'kept', limits: [{ key: 'k', max: 5, ttlMs: 60_000 }] });
            await limits.addStrike({ key: 'forgotten', forgetAfterMs: 1 });
            for (let i = 0; i < 5; i++)
              await limits.addStrike({ key: `rotating-${i}`, forgetAfterMs: 60_000 + i * 1000 });
            // The two 1 ms lifetimes are over once the database clock has moved on.
            await adminQuery('SELECT pg_sleep(0.01)');
            await limits.sweep();
            assert.deepEqual(
              (await adminQuery(`SELECT id FROM "${schema}".limit_slots`)).map((r) => r['id']),
              ['kept'],
            );
            assert.deepEqual(
              (await adminQuery(`SELECT key FROM "${schema}".limit_strikes ORDER BY key`)).map((r) => r['key']),
              ['rotating-2', 'rotating-3', 'rotating-4'],
            );
          } finally {
            await connection.close();
          }
        }),
    );
  });
});
