import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeUtf8 } from './utf8.ts';

const strict = new TextDecoder('utf-8', { fatal: true });
const decodes = (bytes: Uint8Array): boolean => {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe('decodeUtf8', () => {
  it('decodes UTF-8 as it is, U+FFFD the client sent included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        assert.deepEqual(decodeUtf8(new TextEncoder().encode(text)), { ok: true, text });
      }),
    );
    assert.deepEqual(decodeUtf8(new TextEncoder().encode('a\uFFFDb')), { ok: true, text: 'a\uFFFDb' });
  });

  it(
    'names where the first ill-formed sequence starts: everything ' +
      'before it is UTF-8, nothing from it on completes a character',
    () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
          const decoded = decodeUtf8(bytes);
          assert.equal(decoded.ok, decodes(bytes));
          if (decoded.ok) return;
          assert.ok(decodes(bytes.subarray(0, decoded.offset)), 'the bytes before the offset are UTF-8');
          for (let k = 1; k <= 4; k += 1)
            assert.ok(
              !decodes(bytes.subarray(0, decoded.offset + k)) || decoded.offset + k > bytes.length,
              `no character starts at ${decoded.offset} and ends ${k} bytes later`,
            );
          assert.equal(decoded.byte, bytes[decoded.offset]);
        }),
        { numRuns: 2000 },
      );
    },
  );

  it('reports overlong forms, surrogates, code points past U+10FFFF and cut sequences at their first byte', () => {
    for (const [bytes, offset] of [
      [[0x61, 0xc0, 0xaf], 1],
      [[0x61, 0xe0, 0x80, 0xaf], 1],
      [[0xed, 0xa0, 0x80], 0],
      [[0xf4, 0x90, 0x80, 0x80], 0],
      [[0x61, 0x62, 0xe2, 0x82], 2],
      [[0x80], 0],
      [[0xf0, 0x9f, 0x98, 0x80, 0xff], 4],
    ] as const) {
      const decoded = decodeUtf8(Uint8Array.from(bytes));
      assert.deepEqual(decoded, { ok: false, offset, byte: bytes[offset] }, bytes.join(','));
    }
  });
});
