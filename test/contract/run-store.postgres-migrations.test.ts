// Opening a PostgresRunStore: migrations, the schema option, and what a failed open says.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft } from '../../src/core/index.ts';
import { Client } from 'pg';
import { MIGRATIONS_TABLE, applyPostgresMigrations } from '../../src/store/postgres/apply-migrations.ts';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import { openPostgresRunStore } from '../../src/store/postgres/open-postgres-run-store.ts';
import { POSTGRES_TEST_URL, adminQuery, whenPostgres, withSchema } from './postgres-harness.ts';

const LATEST = POSTGRES_MIGRATIONS.length;

function internal(pattern: RegExp): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError, got ${String(error)}`);
    assert.equal(error.code, 'internal', error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

await whenPostgres('PostgresRunStore: opening and migrations', () => {
  describe('PostgresRunStore: opening and migrations', () => {
    it('has migration versions 1, 2, 3… in order with no gap', () => {
      assert.deepEqual(
        POSTGRES_MIGRATIONS.map((m) => m.version),
        POSTGRES_MIGRATIONS.map((_, i) => i + 1),
      );
    });

    it('migrates once when two stores open the same empty schema at the same moment', () =>
      withSchema(async (open, schema) => {
        const [a, b] = await Promise.all([open(), open()]);
        const versions = await adminQuery(
          `SELECT version, description FROM "${schema}".${MIGRATIONS_TABLE} ORDER BY version`,
        );
        assert.deepEqual(
          versions.map((row) => Number(row['version'])),
          POSTGRES_MIGRATIONS.map((m) => m.version),
        );
        const tables = await adminQuery(
          'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
          [schema],
        );
        assert.deepEqual(
          tables.map((row) => row['table_name']),
          [
            'events',
            'idempotency_keys',
            'limit_slots',
            'limit_strikes',
            'runs',
            'thread_messages',
            'threads',
            'tool_pins',
            MIGRATIONS_TABLE,
          ].sort(),
        );
        // Both work on the one schema.
        const { id } = await a.createRun({ input: 'x', model: 'm' });
        assert.equal((await b.getRun(id))?.id, id);
      }));

    it('keeps every table in its schema: two schemas on one database do not see each other', () =>
      withSchema(async (open) => {
        const mine = await open();
        await withSchema(async (openOther) => {
          const other = await openOther();
          const { id } = await mine.createRun({ input: 'x', model: 'm' });
          assert.equal(await other.getRun(id), undefined);
          assert.deepEqual((await other.listRuns()).runs, []);
        });
      }));

    it('refuses a schema written by a newer toolgate, naming the versions and what to do', () =>
      withSchema(async (open, schema) => {
        await (await open()).close();
        await adminQuery(
          `INSERT INTO "${schema}".${MIGRATIONS_TABLE} (version, description) VALUES ($1, 'from the future')`,
          [LATEST + 7],
        );
        await assert.rejects(
          open(),
          internal(
            new RegExp(
              `schema "${schema}" is at version ${LATEST + 7}, newer than ` +
                `this toolgate supports \\(${LATEST}\\); upgrade toolgate`,
            ),
          ),
        );
      }));

    it('upgrades a schema of the first version: its runs stay, tool pins start empty', () =>
      withSchema(async (open, schema) => {
        const client = new Client({ connectionString: POSTGRES_TEST_URL });
        await client.connect();
        try {
          await applyPostgresMigrations(client, { schema, label: 'test', migrations: POSTGRES_MIGRATIONS.slice(0, 1) });
          await client.query(
            `INSERT INTO "${schema}".runs (id, status, input, model, usage, created_at, ` +
              `updated_at) VALUES ('run_old', 'completed', 'x', 'm', '{}', now(), now())`,
          );
        } finally {
          await client.end();
        }
        const store = await open();
        assert.equal((await store.getRun('run_old'))?.status, 'completed');
        assert.deepEqual(await store.listToolPins(), []);
        const pin = {
          server: 'crm',
          tool: 'list_orders',
          fingerprint: 'f1',
          definition: { name: 'list_orders' },
          pinnedAt: '2025-01-02T03:04:05.000Z',
          acceptedBy: 'first-seen',
        };
        assert.deepEqual(await store.pinToolIfNew(pin), pin);
        const versions = await adminQuery(`SELECT version FROM "${schema}".${MIGRATIONS_TABLE} ORDER BY version`);
        assert.deepEqual(
          versions.map((row) => Number(row['version'])),
          POSTGRES_MIGRATIONS.map((m) => m.version),
        );
      }));

    it('keeps the event log append-only in the database', () =>
      withSchema(async (open, schema) => {
        const store = await open();
        const { id } = await store.createRun({ input: 'x', model: 'm' });
        await store.append(id, [draft('user_message', { text: 'original' })]);
        await assert.rejects(adminQuery(`UPDATE "${schema}".events SET type = 'x'`), /events are append-only/);
        await assert.rejects(adminQuery(`DELETE FROM "${schema}".events`), /events are append-only/);
        assert.deepEqual((await store.readEvents(id))[0]?.data, { text: 'original' });
      }));

    it('says which database is missing, without the password', async () => {
      const url = new URL(POSTGRES_TEST_URL);
      url.pathname = '/toolgate_no_such_database';
      url.password = 'pa55-word';
      await assert.rejects(
        openPostgresRunStore({ url: url.toString(), schema: 'toolgate_test_none' }),
        (error: unknown) => {
          internal(/could not open the database: .*does not exist; the database named in the URL does not exist/)(
            error,
          );
          assert.ok(
            error instanceof Error && !error.message.includes('pa55-word'),
            error instanceof Error ? error.message : '',
          );
          return true;
        },
      );
    });
  });
});
