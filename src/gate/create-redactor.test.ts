import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRedactor, REDACTED } from './create-redactor.ts';

describe('createRedactor', () => {
  const redact = createRedactor();

  it('hides values under sensitive keys at any depth, whatever their type', () => {
    const input = {
      user: 'alice',
      password: 'hunter2',
      nested: { api_key: 'k', deeper: [{ accessToken: 'abc', keep: 1 }, { clientSecret: { v: 1 } }] },
      headers: { Authorization: 'Bearer x', 'X-API-Key': 'y', 'content-type': 'json' },
      pin: { passwd: 1234 },
    };
    assert.deepEqual(redact(input), {
      user: 'alice',
      password: REDACTED,
      nested: { api_key: REDACTED, deeper: [{ accessToken: REDACTED, keep: 1 }, { clientSecret: REDACTED }] },
      headers: { Authorization: REDACTED, 'X-API-Key': REDACTED, 'content-type': 'json' },
      pin: { passwd: REDACTED },
    });
    assert.equal(input.password, 'hunter2', 'the input is not mutated');
  });

  it('hides the value of {name, value} header entries with a sensitive name', () => {
    const headers = [
      { name: 'Authorization', value: 'Bearer x' },
      { name: 'Accept', value: 'text/plain' },
      { name: 'Secret Santa list', value: 3 },
    ];
    assert.deepEqual(redact({ headers }), {
      headers: [
        { name: 'Authorization', value: REDACTED },
        { name: 'Accept', value: 'text/plain' },
        { name: 'Secret Santa list', value: 3 },
      ],
    });
  });

  it('supports custom patterns with globs matched against the whole key', () => {
    const custom = createRedactor(['iban', 'x*id']);
    assert.deepEqual(custom({ IBAN: 'DE00', payoutIban: 'DE01', xRequestId: 'r', requestId: 'q', password: 'p' }), {
      IBAN: REDACTED,
      payoutIban: REDACTED,
      xRequestId: REDACTED,
      requestId: 'q',
      password: 'p',
    });
  });

  it('leaves scalars and unmatched structures as they are', () => {
    assert.equal(redact('password'), 'password');
    assert.equal(redact(null), null);
    assert.deepEqual(redact([1, 'a', { ok: true }]), [1, 'a', { ok: true }]);
    assert.deepEqual(createRedactor([])({ password: 'p' }), { password: 'p' });
  });
});
