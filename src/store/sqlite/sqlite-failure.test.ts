import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/index.ts';
import { sqliteFailure } from './sqlite-failure.ts';

const OPTIONS = { label: '/srv/toolgate/runs.db', action: 'append events to run run_1', busyTimeoutMs: 5000 };

function sqliteError(errcode: number, errstr: string): Error {
  return Object.assign(new Error(errstr), { code: 'ERR_SQLITE_ERROR', errcode, errstr });
}

describe('sqliteFailure', () => {
  it('names the file and the action, and keeps the cause', () => {
    const cause = sqliteError(1, 'no such table: runs');
    const error = sqliteFailure(cause, OPTIONS);
    assert.equal(error.code, 'internal');
    assert.match(
      error.message,
      /^SQLite store \/srv\/toolgate\/runs\.db: could not append events to run run_1: no such table: runs$/,
    );
    assert.equal(error.cause, cause);
    assert.deepEqual(error.details, { sqliteCode: 1 });
  });

  for (const [errcode, name, hint] of [
    [5, 'SQLITE_BUSY', /busy timeout \(5000 ms\).*raise busyTimeoutMs/],
    [517, 'SQLITE_BUSY_SNAPSHOT (extended)', /busy timeout/],
    [13, 'SQLITE_FULL', /disk is full; free space on the volume that holds \/srv\/toolgate\/runs\.db/],
    [11, 'SQLITE_CORRUPT', /damaged.*restore it from a backup/],
    [26, 'SQLITE_NOTADB', /not a toolgate SQLite database/],
    [8, 'SQLITE_READONLY', /may read and write them/],
    [14, 'SQLITE_CANTOPEN', /may read and write them/],
    [10, 'SQLITE_IOERR', /I\/O error/],
    [778, 'SQLITE_IOERR_WRITE (extended, e.g. a file size limit)', /I\/O error.*ulimit -f/],
  ] as const) {
    it(`says what to check for ${name}`, () => {
      assert.match(sqliteFailure(sqliteError(errcode, 'x'), OPTIONS).message, hint);
    });
  }

  it('store_unavailable for a file that cannot be written for the moment, internal for one that is damaged', () => {
    for (const [errcode, name] of [
      [5, 'SQLITE_BUSY'],
      [6, 'SQLITE_LOCKED'],
      [13, 'SQLITE_FULL'],
      [8, 'SQLITE_READONLY'],
      [778, 'SQLITE_IOERR_WRITE'],
      [14, 'SQLITE_CANTOPEN'],
    ] as const) {
      const error = sqliteFailure(sqliteError(errcode, 'x'), OPTIONS);
      assert.equal(error.code, 'store_unavailable', name);
      assert.deepEqual(error.details, { sqliteCode: errcode, retryAfterSeconds: 1 }, name);
    }
    for (const [errcode, name] of [
      [11, 'SQLITE_CORRUPT'],
      [26, 'SQLITE_NOTADB'],
      [1, 'SQLITE_ERROR'],
    ] as const) {
      assert.equal(sqliteFailure(sqliteError(errcode, 'x'), OPTIONS).code, 'internal', name);
    }
  });

  it('passes a ToolgateError through unchanged', () => {
    const original = new ToolgateError('not_found', 'run run_1 does not exist');
    assert.equal(sqliteFailure(original, OPTIONS), original);
  });

  it('copes with errors that are not from SQLite', () => {
    assert.match(
      sqliteFailure(new TypeError('Do not know how to serialize a BigInt'), OPTIONS).message,
      /could not append.*BigInt$/,
    );
    assert.match(sqliteFailure('plain string', OPTIONS).message, /plain string$/);
  });
});
