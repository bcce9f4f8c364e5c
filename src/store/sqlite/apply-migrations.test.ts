import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { applyMigrations, userVersion } from './apply-migrations.ts';
import { SQLITE_MIGRATIONS, type SqliteMigration } from './migrations.ts';

function tableNames(db: DatabaseSync): string[] {
  return db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((row) => String(row['name']));
}

const STEP_ONE: SqliteMigration = { version: 1, description: 'a', sql: 'CREATE TABLE a (x INTEGER)' };
const STEP_TWO: SqliteMigration = { version: 2, description: 'b', sql: 'CREATE TABLE b (y INTEGER)' };

describe('applyMigrations', () => {
  it('has migration versions 1, 2, 3… in order with no gap', () => {
    assert.deepEqual(
      SQLITE_MIGRATIONS.map((m) => m.version),
      SQLITE_MIGRATIONS.map((_, i) => i + 1),
    );
  });

  it('builds the whole schema on an empty database and records its version', () => {
    const db = new DatabaseSync(':memory:');
    const version = applyMigrations(db, { label: ':memory:' });
    assert.equal(version, SQLITE_MIGRATIONS.length);
    assert.equal(userVersion(db), SQLITE_MIGRATIONS.length);
    assert.deepEqual(tableNames(db), [
      'events',
      'idempotency_keys',
      'limit_slots',
      'limit_strikes',
      'runs',
      'thread_messages',
      'threads',
      'tool_pins',
    ]);
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'")
      .all()
      .map((r) => r['name']);
    for (const name of ['runs_tenant_status', 'runs_thread', 'runs_created', 'runs_claimable'])
      assert.ok(indexes.includes(name), `index ${name} missing`);
    db.close();
  });

  it('does nothing on a database that is already current', () => {
    const db = new DatabaseSync(':memory:');
    applyMigrations(db, { label: ':memory:' });
    assert.equal(applyMigrations(db, { label: ':memory:' }), SQLITE_MIGRATIONS.length);
    db.close();
  });

  it('applies only the steps a database has not run yet', () => {
    const db = new DatabaseSync(':memory:');
    assert.equal(applyMigrations(db, { label: 'test', migrations: [STEP_ONE] }), 1);
    db.exec('INSERT INTO a VALUES (7)');
    assert.equal(applyMigrations(db, { label: 'test', migrations: [STEP_ONE, STEP_TWO] }), 2);
    assert.deepEqual(tableNames(db), ['a', 'b']);
    assert.equal(db.prepare('SELECT x FROM a').get()?.['x'], 7, 'step 1 must not run twice');
    db.close();
  });

  it('rolls back every step of a run that fails part-way', () => {
    const db = new DatabaseSync(':memory:');
    const broken: SqliteMigration = { version: 2, description: 'broken', sql: 'CREATE TABLE oops (' };
    assert.throws(() => applyMigrations(db, { label: 'test', migrations: [STEP_ONE, broken] }));
    assert.equal(userVersion(db), 0);
    assert.deepEqual(tableNames(db), []);
    assert.equal(db.isTransaction, false);
    db.close();
  });

  it('refuses a database written by a newer toolgate', () => {
    const db = new DatabaseSync(':memory:');
    db.exec('PRAGMA user_version = 9');
    assert.throws(
      () => applyMigrations(db, { label: 'data/runs.db', migrations: [STEP_ONE, STEP_TWO] }),
      new RegExp(
        String.raw`database schema version 9 is newer than this toolgate sup` +
          String.raw`ports \(2\); upgrade toolgate \(database: data\/runs\.db\)`,
      ),
    );
    assert.equal(userVersion(db), 9);
    db.close();
  });
});
