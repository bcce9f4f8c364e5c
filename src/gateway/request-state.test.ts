import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RequestStateCodec, type HeldCallRef } from './request-state.ts';

const SECRET = 'a-state-secret-of-at-least-32-characters';
const REF: HeldCallRef = {
  runId: 'run_0123456789abcdef01234567',
  toolCallId: 'call_0123456789abcdef01234567',
  request: RequestStateCodec.requestHash('placeOrder', { qty: 1 }),
};

/** Replaces the character at `index` by another one of the base64url alphabet that changes its high bits. */
function flipAt(text: string, index: number): string {
  const ch = text[index] ?? 'A';
  return `${text.slice(0, index)}${ch === 'A' ? 'g' : 'A'}${text.slice(index + 1)}`;
}

function split(state: string): [string, string] {
  const dot = state.indexOf('.');
  return [state.slice(0, dot), state.slice(dot + 1)];
}

describe('RequestStateCodec', () => {
  it('decodes what it encoded', () => {
    for (const codec of [new RequestStateCodec(), new RequestStateCodec(SECRET)]) {
      const state = codec.encode(REF);
      assert.match(state, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'base64url body and mac, one dot');
      assert.deepEqual(codec.decode(state), REF);
    }
  });

  it('round-trips any ids, unicode included', () => {
    const codec = new RequestStateCodec(SECRET);
    fc.assert(
      fc.property(
        fc.record({
          runId: fc.string({ unit: 'binary' }),
          toolCallId: fc.string({ unit: 'binary' }),
          request: fc.string(),
        }),
        (ref) => {
          const state = codec.encode(ref);
          if (state.length > 4096) return;
          const decoded = codec.decode(state);
          // A lone surrogate cannot survive UTF-8; every well-formed string does.
          if (ref.runId.isWellFormed() && ref.toolCallId.isWellFormed()) assert.deepEqual(decoded, { ...ref });
        },
      ),
    );
  });

  it('two codecs with the same secret read each other’s states (several gateway instances)', () => {
    const one = new RequestStateCodec(SECRET);
    const two = new RequestStateCodec(SECRET);
    assert.equal(one.encode(REF), two.encode(REF), 'the encoding is deterministic');
    assert.deepEqual(two.decode(one.encode(REF)), REF);
  });

  it('a state signed with another key names nothing: random defaults and other secrets', () => {
    const state = new RequestStateCodec().encode(REF);
    assert.equal(new RequestStateCodec().decode(state), undefined, 'each default codec has a random key of its own');
    assert.equal(new RequestStateCodec(SECRET).decode(state), undefined);
    const signed = new RequestStateCodec(SECRET).encode(REF);
    assert.equal(new RequestStateCodec(`${SECRET}!`).decode(signed), undefined);
    assert.equal(new RequestStateCodec().decode(signed), undefined);
  });

  it('a tampered body or mac names nothing', () => {
    const codec = new RequestStateCodec(SECRET);
    const [body, mac] = split(codec.encode(REF));
    const otherRun = Buffer.from(
      JSON.stringify({ r: 'run_other', c: REF.toolCallId, q: REF.request }),
      'utf8',
    ).toString('base64url');
    assert.equal(codec.decode(`${otherRun}.${mac}`), undefined, 'another run under the old mac');
    for (let i = 0; i < body.length; i += 5)
      assert.equal(codec.decode(`${flipAt(body, i)}.${mac}`), undefined, `body changed at ${i}`);
    for (let i = 0; i < mac.length - 1; i += 3)
      assert.equal(codec.decode(`${body}.${flipAt(mac, i)}`), undefined, `mac changed at ${i}`);
    assert.equal(codec.decode(`${body}.${mac.slice(0, -2)}`), undefined, 'a short mac');
    assert.equal(codec.decode(`${body}.`), undefined, 'no mac');
    assert.equal(codec.decode(`${body}.${mac}.${mac}`), undefined, 'a second dot');
  });

  it('a mac with characters added or its padding bits changed names nothing', () => {
    const codec = new RequestStateCodec(SECRET);
    const state = codec.encode(REF);
    assert.equal(codec.decode(`${state}=`), undefined);
    assert.equal(codec.decode(`${state}!!`), undefined);
  });

  it('garbage, a missing dot, an empty body and an over-long string name nothing', () => {
    const codec = new RequestStateCodec(SECRET);
    const state = codec.encode(REF);
    const [body, mac] = split(state);
    for (const garbage of [
      '',
      '.',
      'x',
      'no-dot-at-all',
      state.replace('.', ''),
      `.${mac}`,
      `${body}${mac}`,
      '%%%.%%%',
      '\u0000.\u0000',
      '😀.😀',
    ]) {
      assert.equal(codec.decode(garbage), undefined, JSON.stringify(garbage));
    }
    const long = new RequestStateCodec(SECRET).encode({ ...REF, toolCallId: 'c'.repeat(4_000) });
    assert.ok(long.length > 4096);
    assert.equal(codec.decode(long), undefined, 'a state over 4096 characters is not even checked');
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => codec.decode(text) === undefined));
  });

  it('a signed body that is not a reference names nothing', () => {
    // Something else signed with the same key must not be readable as a held call.
    const sign = (json: string): string => {
      const body = Buffer.from(json, 'utf8').toString('base64url');
      return `${body}.${createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(body).digest('base64url')}`;
    };
    const codec = new RequestStateCodec(SECRET);
    for (const json of [
      '[1,2]',
      '"text"',
      'null',
      '{"r":"run","c":"call"}',
      '{"r":1,"c":"call","q":"h"}',
      'not json',
      '{"r":"run","c":"call","q":null}',
    ]) {
      assert.equal(codec.decode(sign(json)), undefined, json);
    }
    assert.deepEqual(
      codec.decode(sign('{"r":"run","c":"call","q":"h"}')),
      { runId: 'run', toolCallId: 'call', request: 'h' },
      'the signing above is the codec’s own',
    );
  });

  it('requestHash: stable for the same call, different for another name or other arguments', () => {
    const hash = RequestStateCodec.requestHash('placeOrder', { qty: 1, side: 'BUY' });
    assert.equal(RequestStateCodec.requestHash('placeOrder', { qty: 1, side: 'BUY' }), hash);
    assert.match(hash, /^[A-Za-z0-9_-]{43}$/, 'sha256 as base64url');
    assert.notEqual(RequestStateCodec.requestHash('cancelOrder', { qty: 1, side: 'BUY' }), hash);
    assert.notEqual(RequestStateCodec.requestHash('placeOrder', { qty: 2, side: 'BUY' }), hash);
    assert.notEqual(RequestStateCodec.requestHash('placeOrder', { qty: 1 }), hash);
    assert.notEqual(
      RequestStateCodec.requestHash('placeOrder', { qty: '1', side: 'BUY' }),
      hash,
      'a string is not a number',
    );
    assert.notEqual(
      RequestStateCodec.requestHash('a', { bc: 1 }),
      RequestStateCodec.requestHash('ab', { c: 1 }),
      'name and arguments do not run together',
    );
  });
});
