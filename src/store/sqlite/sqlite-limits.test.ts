import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { applyMigrations } from './apply-migrations.ts';
import { SQLITE_MIGRATIONS } from './migrations.ts';
import { SqliteConnection } from './sqlite-connection.ts';
import { SqliteLimits } from './sqlite-limits.ts';

function limitsOn(db: DatabaseSync, maxStrikeKeys: number): SqliteLimits {
  applyMigrations(db, { label: ':memory:', migrations: SQLITE_MIGRATIONS });
  return new SqliteLimits(new SqliteConnection({ db, label: ':memory:', busyTimeoutMs: 0 }), { maxStrikeKeys });
}

function rows(db: DatabaseSync, table: string): number {
  return Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.['n']);
}

describe('SqliteLimits', () => {
  it(
    'a sweep removes expired slots and forgotten strikes, then ' +
      'the strikes nearest to being forgotten beyond the bound',
    async () => {
      const db = new DatabaseSync(':memory:');
      const limits = limitsOn(db, 3);
      await limits.takeSlot({ id: 'gone', limits: [{ key: 'k', max: 5, ttlMs: 1 }] });
      await limits.takeSlot({ id: 'kept', limits: [{ key: 'k', max: 5, ttlMs: 60_000 }] });
      await limits.addStrike({ key: 'forgotten', forgetAfterMs: 1 });
      for (let i = 0; i < 5; i++) await limits.addStrike({ key: `rotating-${i}`, forgetAfterMs: 60_000 + i });
      const wait = Date.now() + 5;
      while (Date.now() < wait) await new Promise((resolve) => setImmediate(resolve));
      limits.sweep();
      assert.equal(rows(db, 'limit_slots'), 1);
      assert.deepEqual(
        Object.keys(await limits.readStrikes(['forgotten', ...Array.from({ length: 5 }, (_, i) => `rotating-${i}`)])),
        ['rotating-2', 'rotating-3', 'rotating-4'],
      );
      db.close();
    },
  );
});
