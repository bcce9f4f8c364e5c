import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/index.ts';
import { connectionLost, postgresFailure } from './postgres-failure.ts';

const NAMING = {
  label: 'postgres://app@db:5432/toolgate',
  server: 'db:5432',
  action: 'open the database',
  password: 'pa55',
};

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('postgresFailure', () => {
  it('passes ToolgateErrors through unchanged', () => {
    const original = new ToolgateError('not_found', 'run x does not exist');
    assert.equal(postgresFailure(original, NAMING), original);
  });

  it('names the database, the action and what to check for a refused connection', () => {
    const error = postgresFailure(withCode('connect ECONNREFUSED 10.0.0.1:5432', 'ECONNREFUSED'), NAMING);
    assert.equal(error.code, 'store_unavailable');
    assert.equal(
      error.message,
      'PostgreSQL store postgres://app@db:5432/toolgate: could not open the database: connect ECONNREFUSED ' +
        ('10.0.0.1:5432; nothing accepts connections at db:5432: check that ' +
          'PostgreSQL is running there and listens on TCP (listen_addresses, port)'),
    );
    assert.deepEqual(error.details, { postgresCode: 'ECONNREFUSED', retryAfterSeconds: 1 });
  });

  it(
    'store_unavailable for a database that is gone for ' + 'the moment, internal for an answer that will not change',
    () => {
      const unavailable: [string, string | undefined][] = [
        ['connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'],
        ['read ECONNRESET', 'ECONNRESET'],
        ['getaddrinfo EAI_AGAIN db', 'EAI_AGAIN'],
        ['terminating connection due to administrator command', '57P01'],
        ['the database system is starting up', '57P03'],
        ['sorry, too many clients already', '53300'],
        ['could not extend file: No space left on device', '53100'],
        ['cannot execute INSERT in a read-only transaction', '25006'],
        ['server closed the connection unexpectedly', '08006'],
        ['deadlock detected', '40P01'],
        ['Connection terminated unexpectedly', undefined],
        ['Client has encountered a connection error and is not queryable', undefined],
        ['timeout exceeded when trying to connect', undefined],
      ];
      for (const [message, code] of unavailable) {
        const error =
          code === undefined
            ? postgresFailure(new Error(message), NAMING)
            : postgresFailure(withCode(message, code), NAMING);
        assert.equal(error.code, 'store_unavailable', `${code ?? ''} ${message}`);
        assert.equal(error.details?.['retryAfterSeconds'], 1, 'HTTP answers say when to come back');
      }
      const lasting: [string, string][] = [
        ['password authentication failed for user "app"', '28P01'],
        ['database "toolgate" does not exist', '3D000'],
        ['invalid byte sequence for encoding "UTF8": 0x00', '22021'],
        ['relation "runs" does not exist', '42P01'],
        ['canceling statement due to statement timeout', '57014'],
      ];
      for (const [message, code] of lasting)
        assert.equal(postgresFailure(withCode(message, code), NAMING).code, 'internal', code);
    },
  );

  it('gives a hint per kind of server error', () => {
    const cases: [string, string, RegExp][] = [
      ['password authentication failed for user "app"', '28P01', /check the user and password in the URL/],
      ['no pg_hba.conf entry for host', '28000', /pg_hba\.conf on db:5432/],
      ['database "toolgate" does not exist', '3D000', /create it \(createdb\)/],
      ['permission denied for database toolgate', '42501', /grant it CREATE/],
      ['sorry, too many clients already', '53300', /lower poolSize/],
      ['terminating connection due to administrator command', '57P01', /shutting down or starting up/],
      ['invalid byte sequence for encoding "UTF8": 0x00', '22021', /U\+0000/],
      ['could not serialize access', '40001', /retry/],
    ];
    for (const [message, code, hint] of cases)
      assert.match(postgresFailure(withCode(message, code), NAMING).message, hint, code);
  });

  it('recognises lost connections and timeouts by their message', () => {
    assert.match(
      postgresFailure(new Error('Connection terminated unexpectedly'), NAMING).message,
      /connection to db:5432 was lost/,
    );
    assert.match(
      postgresFailure(new Error('timeout exceeded when trying to connect'), NAMING).message,
      /did not answer in time.*connectTimeoutMs/,
    );
  });

  it('spells out an AggregateError, whose own message is empty', () => {
    const error = Object.assign(
      new AggregateError(
        [new Error('connect ECONNREFUSED ::1:5432'), new Error('connect ECONNREFUSED 127.0.0.1:5432')],
        '',
      ),
      {
        code: 'ECONNREFUSED',
      },
    );
    assert.match(
      postgresFailure(error, NAMING).message,
      new RegExp(
        String.raw`could not open the database: connect ECONNREFUSED ::1:543` +
          String.raw`2; connect ECONNREFUSED 127\.0\.0\.1:5432; nothing accepts`,
      ),
    );
  });

  it('never shows the password, even if a driver message quoted it', () => {
    const error = postgresFailure(new Error('bad startup packet near pa55'), NAMING);
    assert.ok(!error.message.includes('pa55'), error.message);
    assert.match(error.message, /near \*\*\*/);
  });

  it('connectionLost: the connection broke under the statement, not a refusal or an answer', () => {
    const lost = [
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('read ECONNRESET', 'ECONNRESET'),
      withCode('write EPIPE', 'EPIPE'),
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable'),
    ];
    for (const error of lost) assert.equal(connectionLost(error), true, error.message);
    const notLost = [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      withCode('the database system is starting up', '57P03'),
      withCode('relation "runs" does not exist', '42P01'),
      withCode('canceling statement due to statement timeout', '57014'),
      new Error('timeout exceeded when trying to connect'),
      'not an error',
    ];
    for (const error of notLost)
      assert.equal(connectionLost(error), false, String(error instanceof Error ? error.message : error));
  });
});
