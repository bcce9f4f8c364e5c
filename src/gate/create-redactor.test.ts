import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject, JsonValue } from '../core/json.ts';
import { createRedactor, REDACTED, TOO_DEEP } from './create-redactor.ts';

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

  it('replaces what lies past the depth limit with a marker instead of overflowing the stack', () => {
    const nest = (depth: number, leaf: JsonValue): JsonValue => {
      let value = leaf;
      for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { a: value };
      return value;
    };
    const deep = { password: 'p', data: nest(100_000, { token: 't' }) };
    const out = redact(deep) as JsonObject;
    assert.equal(out['password'], REDACTED);
    let node = out['data'] as JsonValue;
    for (let depth = 2; depth <= 64; depth += 1)
      node = Array.isArray(node) ? (node[0] as JsonValue) : ((node as JsonObject)['a'] as JsonValue);
    assert.equal(node, TOO_DEEP);
    const atLimit = { data: nest(62, { token: 't', keep: 1 }) };
    assert.equal(JSON.stringify(redact(atLimit)), JSON.stringify({ data: nest(62, { token: REDACTED, keep: 1 }) }));
  });
});
