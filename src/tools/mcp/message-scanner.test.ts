import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MessageScanner, type ScanLimits, type ScanVerdict } from './message-scanner.ts';

const encoder = new TextEncoder();
const WIDE: ScanLimits = { keepBytes: 1 << 30, headBytes: 1 << 30, maxDepth: 1000 };

/** Feeds `text` to a scanner in pieces cut at `cuts` (fractions of its length). */
function scan(text: string, limits: ScanLimits, cuts: readonly number[] = []): ScanVerdict {
  const bytes = encoder.encode(text);
  const scanner = new MessageScanner(limits);
  const points = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  let from = 0;
  for (const point of [...points, bytes.length]) {
    // A fresh copy per piece, as a stream hands them over.
    scanner.push(bytes.slice(from, point));
    from = point;
  }
  return scanner.finish();
}

/** A message the way the official SDK writes one: result first, then jsonrpc, then id. */
const answer = (result: unknown, id: number | string): string =>
  `{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
const ids = fc.oneof(fc.integer({ min: 0, max: 1e9 }), fc.string({ maxLength: 20 }));
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

describe('MessageScanner', () => {
  it('passes a message within the limits through unchanged, however it is split', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), ids, cuts, (result, id, at) => {
        const text = answer(result, id);
        const verdict = scan(text, WIDE, at);
        assert.equal(verdict.kind, 'whole');
        assert.equal(verdict.kind === 'whole' ? new TextDecoder().decode(verdict.bytes) : '', text);
      }),
    );
  });

  it(
    'refuses a message over keepBytes, knowing its id and ' +
      'size, and closes its head into JSON wherever the head ends',
    () => {
      fc.assert(
        fc.property(
          fc.jsonValue({ maxDepth: 8 }),
          ids,
          cuts,
          fc.double({ min: 0, max: 0.999, noNaN: true }),
          (result, id, at, headAt) => {
            const text = answer({ content: [{ type: 'text', text: 'x' }], structuredContent: result }, id);
            const size = encoder.encode(text).length;
            const headBytes = Math.floor(headAt * (size - 1));
            const verdict = scan(text, { keepBytes: size - 1, headBytes, maxDepth: 1000 }, at);
            assert.equal(verdict.kind, 'refused');
            if (verdict.kind !== 'refused') return;
            assert.deepEqual(
              { reason: verdict.reason, bytes: verdict.bytes, id: verdict.id, isRequest: verdict.isRequest },
              { reason: 'too_large', bytes: size, id, isRequest: false },
            );
            // Closed: a value (at least the top-level object once its first byte is in).
            if (headBytes > 0) assert.equal(typeof verdict.head, 'object', `head of ${headBytes} bytes of ${text}`);
          },
        ),
      );
    },
  );

  it('keeps what was read of a text cut mid-string: a prefix of it, never half an escape or half a character', () => {
    const original = 'ab"c\\d\u00e9é€😀\n'.repeat(3);
    const text = answer({ content: [{ type: 'text', text: original }] }, 7);
    const bytes = encoder.encode(text);
    const start = encoder.encode(text.slice(0, text.indexOf('"text":"') + 8)).length;
    const end = start + encoder.encode(JSON.stringify(original)).length - 2;
    for (let headBytes = start; headBytes <= end; headBytes += 1) {
      const verdict = scan(text, { keepBytes: bytes.length - 1, headBytes, maxDepth: 100 });
      const head =
        verdict.kind === 'refused' ? (verdict.head as { result?: { content?: { text?: unknown }[] } }) : undefined;
      const cut = head?.result?.content?.[0]?.text;
      assert.equal(typeof cut, 'string', `a head of ${headBytes} bytes keeps the text`);
      assert.ok(original.startsWith(String(cut)), `${JSON.stringify(cut)} is a prefix of the text`);
      // At most one escape (6 bytes) or one character (4 bytes) is held back.
      assert.ok(
        encoder.encode(JSON.stringify(cut)).length - 2 >= headBytes - start - 6,
        `${headBytes}: ${JSON.stringify(cut)}`,
      );
    }
  });

  it('finds the id before or after the result, a string id with escapes, and result.isError', () => {
    const limits: ScanLimits = { keepBytes: 10, headBytes: 10, maxDepth: 100 };
    const first = scan(
      '{"jsonrpc":"2.0","id":"a\\"b","result":{"content":[{"type":"text","text":"xxxxxxxxxxxxxxxx"}],"isError":true}}',
      limits,
    );
    assert.deepEqual(first.kind === 'refused' ? [first.id, first.isError] : [], ['a"b', true]);
    const last = scan(
      '{"result":{"isError":false,"content":[],"nested":{"id":99,"isError":true}},"jsonrpc":"2.0","id":12}',
      limits,
    );
    assert.deepEqual(last.kind === 'refused' ? [last.id, last.isError, last.isRequest] : [], [12, false, false]);
    const request = scan(
      '{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"x":"yyyyyyyyyyyyyyyyyyyy"}}',
      limits,
    );
    assert.deepEqual(request.kind === 'refused' ? [request.id, request.isRequest] : [], [3, true]);
  });

  it('refuses a message nested deeper than maxDepth, and reads the next one as usual', () => {
    const scanner = new MessageScanner({ keepBytes: 1 << 20, headBytes: 1 << 20, maxDepth: 65 });
    scanner.push(
      encoder.encode(answer({ structuredContent: JSON.parse(`${'{"a":'.repeat(64)}1${'}'.repeat(64)}`) }, 1)),
    );
    const deep = scanner.finish();
    assert.deepEqual(deep.kind === 'refused' ? [deep.reason, deep.id] : deep.kind, ['too_deep', 1]);
    scanner.push(
      encoder.encode(answer({ structuredContent: JSON.parse(`${'{"a":'.repeat(62)}1${'}'.repeat(62)}`) }, 2)),
    );
    assert.equal(scanner.finish().kind, 'whole');
  });
});
