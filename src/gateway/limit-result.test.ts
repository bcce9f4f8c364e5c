import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonValue, ToolContent, ToolResult } from '../core/index.ts';
import { DEFAULT_MAX_RESULT_BYTES, TRUNCATED_META_KEY, limitResourceContents, limitResult } from './limit-result.ts';
import type { JsonObject } from '../core/index.ts';

/** The smallest `gateway.maxResultBytes` the config accepts. */
const MIN_LIMIT = 1024;
const encoder = new TextEncoder();

/** What the limit is measured on: content and structured content as JSON, in UTF-8 bytes. */
function bytesOf(result: ToolResult): number {
  return encoder.encode(JSON.stringify({ content: result.content, structuredContent: result.structuredContent }))
    .length;
}

function texts(result: ToolResult): string[] {
  return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
}

/** A lone surrogate (half of a character) anywhere in the string. */
function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

const text = (value: string): ToolResult => ({ ok: true, content: [{ type: 'text', text: value }] });

describe('limitResult', () => {
  it('returns a result within the limit as the same object, without `truncated`', () => {
    const result: ToolResult = { ok: true, content: [{ type: 'text', text: 'small' }], structuredContent: { a: 1 } };
    assert.equal(limitResult(result, MIN_LIMIT), result);
    assert.equal(limitResult(result, MIN_LIMIT).truncated, undefined);
    const exact = text('x'.repeat(500));
    assert.equal(limitResult(exact, bytesOf(exact)), exact, 'exactly at the limit is within it');
    assert.equal(DEFAULT_MAX_RESULT_BYTES, 1024 * 1024);
  });

  it('cuts a long text to fit, records the original size and says that it was cut', () => {
    const result = text('abcdefghij'.repeat(1_000));
    const original = bytesOf(result);
    const limited = limitResult(result, 2_048);
    assert.ok(bytesOf(limited) <= 2_048, `${bytesOf(limited)} bytes`);
    assert.deepEqual(limited.truncated, { bytes: original, limit: 2_048 });
    assert.equal(limited.ok, true);
    const [kept, note] = texts(limited);
    assert.ok(kept !== undefined && kept.endsWith('…'), 'the kept text ends with an ellipsis');
    assert.ok('abcdefghij'.repeat(1_000).startsWith(kept.slice(0, -1)), 'what is kept is a prefix of the text');
    assert.ok(kept.length > 1_000, 'most of the room is used for the text');
    assert.equal(
      note,
      `[toolgate: the text was cut; the result was ${original} bytes, over the gateway's limit of 2048]`,
    );
    assert.equal(result.content.length, 1, 'the original result is left untouched');
    assert.equal(result.truncated, undefined);
  });

  it('keeps an error result an error, with its code', () => {
    const failed: ToolResult = {
      ok: false,
      content: [{ type: 'text', text: 'E'.repeat(5_000) }],
      error: { code: 'tool_error', message: 'boom' },
    };
    const limited = limitResult(failed, MIN_LIMIT);
    assert.equal(limited.ok, false);
    assert.deepEqual(limited.error, { code: 'tool_error', message: 'boom' });
    assert.ok(bytesOf(limited) <= MIN_LIMIT);
  });

  it('replaces an image block that does not fit by a note, keeping the blocks that do', () => {
    const image: ToolContent = { type: 'image', data: 'A'.repeat(10_000), mimeType: 'image/png' };
    const result: ToolResult = { ok: true, content: [{ type: 'text', text: 'caption' }, image] };
    const limited = limitResult(result, 2_048);
    assert.ok(bytesOf(limited) <= 2_048);
    assert.deepEqual(limited.content[0], { type: 'text', text: 'caption' });
    assert.ok(!limited.content.some((block) => block.type === 'image'), 'no half image');
    assert.ok(
      texts(limited).some((t) =>
        /^\[toolgate: 1 image block left out; the result was \d+ bytes, over the gateway's limit of 2048\]$/.test(t),
      ),
    );
    assert.deepEqual(limited.truncated, { bytes: bytesOf(result), limit: 2_048 });
  });

  it('drops structured content that does not fit, with a note', () => {
    const result: ToolResult = {
      ok: true,
      content: [{ type: 'text', text: 'rows attached' }],
      structuredContent: { rows: Array.from({ length: 500 }, (_, i) => ({ id: i })) },
    };
    const limited = limitResult(result, 2_048);
    assert.equal(limited.structuredContent, undefined);
    assert.equal('structuredContent' in limited, false);
    assert.ok(bytesOf(limited) <= 2_048);
    assert.equal(texts(limited)[0], 'rows attached');
    assert.match(texts(limited)[1] ?? '', /^\[toolgate: the structured content left out; the result was \d+ bytes/);
    assert.notEqual(result.structuredContent, undefined, 'the original keeps it');
  });

  it('keeps structured content that fits beside a short text', () => {
    const result: ToolResult = {
      ok: true,
      content: [
        { type: 'text', text: 'ok' },
        { type: 'image', data: 'B'.repeat(4_000), mimeType: 'image/png' },
      ],
      structuredContent: { id: 7 },
    };
    const limited = limitResult(result, 2_048);
    assert.deepEqual(limited.structuredContent, { id: 7 });
    assert.ok(bytesOf(limited) <= 2_048);
  });

  it('never leaves half a character at the cut: multi-byte and astral characters', () => {
    for (const unit of ['é', '😀', 'a😀', 'é😀x', '中文', '\u0001', '"\\']) {
      for (let limit = MIN_LIMIT; limit <= MIN_LIMIT + 300; limit += 7) {
        const limited = limitResult(text(unit.repeat(2_000)), limit);
        assert.ok(bytesOf(limited) <= limit, `${JSON.stringify(unit)} at ${limit}: ${bytesOf(limited)} bytes`);
        const kept = texts(limited)[0] ?? '';
        assert.ok(!hasLoneSurrogate(kept), `${JSON.stringify(unit)} at ${limit}: a lone surrogate at the cut`);
        assert.ok(unit.repeat(2_000).startsWith(kept.slice(0, -1)));
      }
    }
  });

  it('property: any text result over the limit comes back within it, whole characters only, and says so', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 0, maxLength: 4_000 }),
        fc.integer({ min: MIN_LIMIT, max: 8_192 }),
        (value, limit) => {
          const result = text(value);
          const limited = limitResult(result, limit);
          if (bytesOf(result) <= limit) {
            assert.equal(limited, result);
            return;
          }
          assert.ok(bytesOf(limited) <= limit, `${bytesOf(limited)} > ${limit}`);
          assert.deepEqual(limited.truncated, { bytes: bytesOf(result), limit });
          const [kept, note] = texts(limited);
          assert.ok(kept !== undefined && !hasLoneSurrogate(kept));
          assert.ok(value.startsWith(kept.slice(0, -1)));
          assert.match(note ?? '', /^\[toolgate: the text was cut; /);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('property: mixed blocks and structured content over the limit come back within it', () => {
    const block: fc.Arbitrary<ToolContent> = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 2_000 }).map((t): ToolContent => ({ type: 'text', text: t })),
      fc
        .string({ unit: 'binary-ascii', maxLength: 3_000 })
        .map((d): ToolContent => ({ type: 'image', data: d, mimeType: 'image/png' })),
    );
    fc.assert(
      fc.property(
        fc.array(block, { maxLength: 3 }),
        fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
        fc.integer({ min: MIN_LIMIT, max: 4_096 }),
        (content, structured, limit) => {
          const result: ToolResult = {
            ok: true,
            content,
            ...(structured === undefined ? {} : { structuredContent: structured as JsonValue }),
          };
          const limited = limitResult(result, limit);
          assert.ok(bytesOf(limited) <= limit, `${bytesOf(limited)} > ${limit}`);
          if (limited !== result) assert.deepEqual(limited.truncated, { bytes: bytesOf(result), limit });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('many blocks that do not fit still come back within the limit', () => {
    const content: ToolContent[] = [{ type: 'text', text: 'x'.repeat(5_000) }];
    for (let i = 0; i < 10; i++) content.push({ type: 'image', data: 'A'.repeat(100), mimeType: 'image/png' });
    const limited = limitResult({ ok: true, content }, 2_048);
    assert.ok(bytesOf(limited) <= 2_048, `${bytesOf(limited)} bytes for a limit of 2048`);
  });

  it(
    'a result its source cut while reading it keeps the size it ' +
      'had and says only its first part was read, even when it fits',
    () => {
      const read: ToolResult = {
        ok: true,
        content: [{ type: 'text', text: 'head of the text' }],
        truncated: { bytes: 300_000_000, limit: 4_259_840 },
      };
      const fits = limitResult(read, 2_048, 'the limit (maxResultBytes)');
      assert.deepEqual(fits.truncated, { bytes: 300_000_000, limit: 2_048 });
      assert.deepEqual(texts(fits), [
        'head of the text',
        '[toolgate: only its first part was read; the result was ' +
          '300000000 bytes, over the limit (maxResultBytes) of 2048]',
      ]);
      const cut = limitResult({ ...read, content: [{ type: 'text', text: 'y'.repeat(5_000) }] }, 2_048);
      assert.ok(bytesOf(cut) <= 2_048);
      assert.equal(
        texts(cut).at(-1),
        '[toolgate: only its first part was read, the text was cut; the ' +
          "result was 300000000 bytes, over the gateway's limit of 2048]",
      );
    },
  );
});

describe('limitResourceContents', () => {
  const URI = 'file:///reports/q3.txt';
  const contentsBytes = (read: JsonObject): number => encoder.encode(JSON.stringify(read['contents'])).length;
  const contentsOf = (read: JsonObject): JsonObject[] => read['contents'] as JsonObject[];

  it('returns a read within the limit, or one without a contents list, as the same object', () => {
    const small: JsonObject = { contents: [{ uri: URI, mimeType: 'text/plain', text: 'small' }] };
    assert.equal(limitResourceContents(small, MIN_LIMIT, URI), small);
    const odd: JsonObject = { contents: 'not a list' };
    assert.equal(limitResourceContents(odd, MIN_LIMIT, URI), odd);
  });

  it(
    'cuts the first text that does not fit, leaves out ' + 'blobs that do not, and says so, with the sizes in _meta',
    () => {
      const read: JsonObject = {
        contents: [
          { uri: URI, mimeType: 'text/plain', text: 'é'.repeat(5_000) },
          { uri: `${URI}#image`, mimeType: 'image/png', blob: 'A'.repeat(3_000) },
        ],
        _meta: { 'toolgate/server': 'files' },
      };
      const limited = limitResourceContents(read, 2_048, URI);
      assert.ok(contentsBytes(limited) <= 2_048, `${contentsBytes(limited)} bytes`);
      const [text, note, ...rest] = contentsOf(limited);
      assert.deepEqual(rest, []);
      assert.equal(text?.['uri'], URI);
      assert.equal(text?.['mimeType'], 'text/plain');
      assert.ok(String(text?.['text']).endsWith('…'));
      assert.ok(/^é+…$/.test(String(text?.['text'])), 'a prefix of the text, whole characters only');
      assert.equal(note?.['uri'], URI);
      assert.match(
        String(note?.['text']),
        new RegExp(
          String.raw`^\[toolgate: the text was cut, 1 blob left out; the res` +
            String.raw`ource was \d+ bytes, over the gateway's limit of 2048\]$`,
        ),
      );
      assert.deepEqual(limited['_meta'], {
        'toolgate/server': 'files',
        [TRUNCATED_META_KEY]: { bytes: contentsBytes(read), limit: 2_048 },
      });
      assert.equal((read['contents'] as JsonObject[]).length, 2, 'the upstream read is not changed');
    },
  );

  it('property: whatever the contents and the limit, the contents sent are within it', () => {
    const item: fc.Arbitrary<JsonObject> = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 3_000 }).map((t): JsonObject => ({ uri: URI, text: t })),
      fc
        .string({ unit: 'binary-ascii', maxLength: 3_000 })
        .map((b): JsonObject => ({ uri: URI, mimeType: 'application/octet-stream', blob: b })),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 4 }), fc.integer({ min: MIN_LIMIT, max: 4_096 }), (contents, limit) => {
        const read: JsonObject = { contents };
        const limited = limitResourceContents(read, limit, URI);
        if (limited === read) {
          assert.ok(contentsBytes(read) <= limit);
          return;
        }
        assert.ok(contentsBytes(limited) <= limit, `${contentsBytes(limited)} > ${limit}`);
        for (const kept of contentsOf(limited)) assert.ok(!hasLoneSurrogate(String(kept['text'] ?? '')));
        assert.deepEqual((limited['_meta'] as JsonObject)[TRUNCATED_META_KEY], { bytes: contentsBytes(read), limit });
      }),
      { numRuns: 200 },
    );
  });

  it('a read its source cut keeps the size it had and says only its first part was read', () => {
    const read = {
      contents: [{ uri: 'x://a', text: 'head' }],
      _meta: { [TRUNCATED_META_KEY]: { bytes: 90_000_000, limit: 4_259_840 } },
    };
    const limited = limitResourceContents(read, 2_048, 'x://a');
    assert.deepEqual((limited['_meta'] as JsonObject)[TRUNCATED_META_KEY], { bytes: 90_000_000, limit: 2_048 });
    assert.deepEqual(limited['contents'], [
      { uri: 'x://a', text: 'head' },
      {
        uri: 'x://a',
        mimeType: 'text/plain',
        text:
          '[toolgate: only its first part was read; the resource ' +
          "was 90000000 bytes, over the gateway's limit of 2048]",
      },
    ]);
  });
});
