import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/index.ts';
import { openPostgresRunStore } from './open-postgres-run-store.ts';

function rejectsWith(code: string, pattern: RegExp): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

/** A port nothing listens on (taken, then given back). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

describe('openPostgresRunStore', () => {
  it('refuses bad options before connecting', async () => {
    await assert.rejects(openPostgresRunStore({ url: '' }), rejectsWith('config_invalid', /url is empty/));
    await assert.rejects(
      openPostgresRunStore({ url: 'postgres://h/db', poolSize: 0 }),
      rejectsWith('config_invalid', /poolSize/),
    );
    await assert.rejects(
      openPostgresRunStore({ url: 'postgres://h/db', connectTimeoutMs: 1.5 }),
      rejectsWith('config_invalid', /connectTimeoutMs/),
    );
    await assert.rejects(
      openPostgresRunStore({ url: 'postgres://h/db', schema: 'Bad-Name' }),
      rejectsWith('config_invalid', /schema "Bad-Name"/),
    );
  });

  it('names the server and what to check when nothing answers, never the password', async () => {
    const port = await freePort();
    await assert.rejects(
      openPostgresRunStore({ url: `postgres://app:pa55-word@127.0.0.1:${port}/toolgate` }),
      (error: unknown) => {
        rejectsWith(
          'store_unavailable',
          new RegExp(
            `PostgreSQL store postgres://app@127\\.0\\.0\\.1:${port}/toolgate: could ` +
              `not open the database: .*ECONNREFUSED.*check that PostgreSQL is running`,
          ),
        )(error);
        assert.ok(error instanceof Error && !error.message.includes('pa55-word'));
        return true;
      },
    );
  });
});
