import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/index.ts';
import { postgresLabel, postgresTarget } from './postgres-url.ts';

function configInvalid(pattern: RegExp): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError && error.code === 'config_invalid', String(error));
    assert.match(error.message, pattern);
    return true;
  };
}

describe('postgresTarget', () => {
  it('labels the URL without password or query, and names host:port', () => {
    const target = postgresTarget('postgres://app:s3cret@db.internal:6543/toolgate?sslmode=require', 'public');
    assert.equal(target.label, 'postgres://app@db.internal:6543/toolgate');
    assert.equal(target.server, 'db.internal:6543');
    assert.equal(target.password, 's3cret');
    const parsed = new URL(target.connectionString);
    assert.equal(parsed.searchParams.get('sslmode'), 'require');
    assert.equal(parsed.searchParams.get('options'), '-c search_path=public');
  });

  it('defaults the port, keeps options the URL sets and puts the schema last so it wins', () => {
    const target = postgresTarget('postgresql://localhost/db?options=-c%20statement_timeout%3D5000', 'toolgate_a');
    assert.equal(target.server, 'localhost:5432');
    assert.equal(target.password, undefined);
    assert.equal(
      new URL(target.connectionString).searchParams.get('options'),
      '-c statement_timeout=5000 -c search_path=toolgate_a',
    );
  });

  it('finds a password given as a query parameter', () => {
    assert.equal(postgresTarget('postgres://u@h/db?password=hidden', 'public').password, 'hidden');
  });

  it('refuses what is not a postgres URL without echoing it', () => {
    assert.throws(
      () => postgresTarget('not a url with pa55', 'public'),
      (error: unknown) => {
        configInvalid(/not a valid URL/)(error);
        assert.ok(error instanceof Error && !error.message.includes('pa55'));
        return true;
      },
    );
    assert.throws(
      () => postgresTarget('mysql://u:p@h/db', 'public'),
      configInvalid(/must start with postgres:\/\/ or postgresql:\/\//),
    );
  });

  it('refuses a schema name that would need quoting', () => {
    for (const schema of ['', 'Upper', 'has space', 'semi;colon', '1starts_with_digit', 'x'.repeat(64)]) {
      assert.throws(() => postgresTarget('postgres://h/db', schema), configInvalid(/schema/), schema);
    }
  });

  it('labels an unparseable URL without showing it', () => {
    assert.equal(postgresLabel('::::'), '(invalid URL)');
  });
});
