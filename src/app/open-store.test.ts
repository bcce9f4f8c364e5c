import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../core/errors.ts';
import { describeStore, isPostgresSpec, openStore } from './open-store.ts';

describe('store specs', () => {
  it('names PostgreSQL by its URL scheme, either spelling', () => {
    assert.equal(isPostgresSpec('postgres://u@h/db'), true);
    assert.equal(isPostgresSpec('postgresql://u@h/db'), true);
    assert.equal(isPostgresSpec('sqlite:./x.db'), false);
  });

  it('never prints a password', () => {
    assert.equal(
      describeStore('postgres://toolgate:s3cret@db:5432/toolgate'),
      'postgres://toolgate:***@db:5432/toolgate',
    );
    assert.equal(describeStore('postgres://toolgate@db/toolgate'), 'postgres://toolgate@db/toolgate');
    assert.equal(describeStore('sqlite:./data/toolgate.db'), 'sqlite:./data/toolgate.db');
    assert.doesNotMatch(describeStore('postgres://a:b@c d'), /b@/);
  });

  it('an unknown store is refused with the ones there are, and without its password', async () => {
    await assert.rejects(openStore('mysql://root:hunter2@db/x'), (error: unknown) => {
      assert.ok(error instanceof ToolgateError && error.code === 'usage');
      assert.match(error.message, /use memory:, sqlite:<file> .* or postgres:\/\//);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    });
  });
});
