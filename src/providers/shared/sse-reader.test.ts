import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ToolgateError } from '../../core/errors.ts';
import { readSseEvents, SseParser, type SseEvent } from './sse-reader.ts';

function parseAll(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  await readSseEvents(body, {}, (event) => out.push(event));
  return out;
}

/** Splits bytes at the given cut points (any byte offset, mid-character included). */
function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.slice(start, point));
    start = point;
  }
  return chunks;
}

describe('SseParser', () => {
  it('reads data events and leaves [DONE] to the caller', () => {
    assert.deepEqual(parseAll('data: {"a":1}\n\ndata: [DONE]\n\n'), [
      { event: 'message', data: '{"a":1}' },
      { event: 'message', data: '[DONE]' },
    ]);
  });

  it('joins multi-line data with \\n and keeps a value without the optional space', () => {
    assert.deepEqual(parseAll('data: line one\ndata:line two\ndata:  indented\n\n'), [
      { event: 'message', data: 'line one\nline two\n indented' },
    ]);
  });

  it('ignores comments and unknown fields, keeps event names and ids', () => {
    const text = ': OPENROUTER PROCESSING\n\nretry: 100\nevent: delta\nid: 7\nfoo: bar\ndata: x\n\n';
    assert.deepEqual(parseAll(text), [{ event: 'delta', data: 'x', id: '7' }]);
  });

  it('accepts CRLF and lone CR line endings', () => {
    assert.deepEqual(parseAll('data: a\r\n\r\ndata: b\r\rdata: c\n\n'), [
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
      { event: 'message', data: 'c' },
    ]);
  });

  it('treats a CR at the end of one chunk and LF at the start of the next as one line break', () => {
    const parser = new SseParser();
    const events = [
      ...parser.push('data: a\r'),
      ...parser.push('\ndata: b\r'),
      ...parser.push('\n\r'),
      ...parser.push('\n'),
      ...parser.end(),
    ];
    assert.deepEqual(events, [{ event: 'message', data: 'a\nb' }]);
  });

  it('keeps a last event whose closing blank line never came', () => {
    assert.deepEqual(parseAll('data: one\n\ndata: two'), [
      { event: 'message', data: 'one' },
      { event: 'message', data: 'two' },
    ]);
  });

  it('dispatches nothing for a blank line without data', () => {
    assert.deepEqual(parseAll('\n\n: ping\n\nevent: x\n\n'), []);
  });
});

describe('readSseEvents', () => {
  it('decodes a multi-byte character split across network chunks', async () => {
    const bytes = new TextEncoder().encode('data: €87 ⚡\n\n');
    const euro = 6; // first byte of the three-byte "€"
    const events = await collect(
      streamOf([bytes.slice(0, euro + 1), bytes.slice(euro + 1, euro + 2), bytes.slice(euro + 2)]),
    );
    assert.deepEqual(events, [{ event: 'message', data: '€87 ⚡' }]);
  });

  it('strips a UTF-8 byte-order mark', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('data: x\n\n')]);
    assert.deepEqual(await collect(streamOf([bytes])), [{ event: 'message', data: 'x' }]);
  });

  it('property: any split of a valid stream yields the same events', async () => {
    const lineText = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !/[\r\n]/.test(s));
    const eventArb = fc.record({
      name: fc.option(fc.constantFrom('delta', 'done', 'error'), { nil: undefined }),
      data: fc.array(lineText, { minLength: 1, maxLength: 3 }),
      comment: fc.option(lineText, { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArb, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (events, eol, cuts) => {
          let text = '';
          const expected: SseEvent[] = [];
          for (const e of events) {
            if (e.comment !== undefined) text += `:${e.comment}${eol}`;
            if (e.name !== undefined) text += `event: ${e.name}${eol}`;
            for (const line of e.data) text += `data: ${line}${eol}`;
            text += eol;
            expected.push({ event: e.name ?? 'message', data: e.data.join('\n') });
          }
          const bytes = new TextEncoder().encode(text);
          assert.deepEqual(await collect(streamOf(splitAt(bytes, cuts))), expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

const limitError =
  (option: string) =>
  (e: unknown): boolean =>
    e instanceof ToolgateError &&
    e.code === 'model_error' &&
    e.message.includes(option) &&
    e.message.includes(`providers.openai.${option}`);

describe('SseParser: maxEventBytes', () => {
  it('refuses a line that never ends, however it is split', () => {
    const parser = new SseParser({ maxEventBytes: 1000 });
    parser.push('data: ');
    assert.throws(() => {
      for (let i = 0; i < 1000; i += 1) parser.push('aaaaaaaaaa');
    }, limitError('maxEventBytes'));
  });

  it('refuses one event made of many lines, empty data lines included', () => {
    assert.throws(
      () => new SseParser({ maxEventBytes: 1000 }).push('data: aaaaaaaaaaaaaaaaaaaa\n'.repeat(60)),
      limitError('maxEventBytes'),
    );
    assert.throws(
      () => new SseParser({ maxEventBytes: 1000 }).push('data:\n'.repeat(200)),
      limitError('maxEventBytes'),
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    assert.throws(
      () => new SseParser({ maxEventBytes: 40 }).push(`data: ${'€'.repeat(12)}\n\n`),
      limitError('maxEventBytes'),
    );
    assert.deepEqual(new SseParser({ maxEventBytes: 40 }).push(`data: ${'a'.repeat(12)}\n\n`), [
      { event: 'message', data: 'a'.repeat(12) },
    ]);
  });

  it('limits each event, not the stream: many events under the limit pass', () => {
    const parser = new SseParser({ maxEventBytes: 100 });
    const events = parser.push('data: {"x":"0123456789"}\n\n: ping\n\n'.repeat(1000));
    assert.equal(events.length, 1000);
  });
});

describe('SseParser.feed', () => {
  it('hands each event over before it reads the rest of the text', () => {
    const parser = new SseParser({ maxEventBytes: 100 });
    const seen: string[] = [];
    // The second event is over the limit: the first must already be out when the parser fails on it.
    assert.throws(
      () => parser.feed(`data: first\n\ndata: ${'x'.repeat(200)}\n\n`, (event) => void seen.push(event.data)),
      limitError('maxEventBytes'),
    );
    assert.deepEqual(seen, ['first']);
  });

  it('reads nothing more once emit returns false, in this text or a later one', () => {
    const parser = new SseParser({ maxEventBytes: 100 });
    const seen: string[] = [];
    const emit = (event: SseEvent): boolean => {
      seen.push(event.data);
      return false;
    };
    parser.feed(`data: [DONE]\n\ndata: ${'x'.repeat(200)}\n\n`, emit);
    parser.feed('data: later\n\n', emit);
    parser.finish(emit);
    assert.deepEqual(seen, ['[DONE]']);
  });

  it('counts a non-ASCII character split from its line across texts', () => {
    const parser = new SseParser({ maxEventBytes: 40 });
    parser.feed('data: ', () => undefined);
    assert.throws(() => {
      for (let i = 0; i < 12; i += 1) parser.feed('€', () => undefined);
    }, limitError('maxEventBytes'));
  });
});

describe('readSseEvents: bounds', () => {
  /** `piece` repeated up to 8 MiB (far past every limit below), recording whether the reader cancelled it. */
  function endless(piece: string): { body: ReadableStream<Uint8Array>; cancelled: () => boolean } {
    const bytes = new TextEncoder().encode(piece);
    let cancelled = false;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (sent > 8 * 1024 * 1024) controller.close();
        else controller.enqueue(bytes);
        sent += bytes.length;
      },
      cancel: () => void (cancelled = true),
    });
    return { body, cancelled: () => cancelled };
  }

  it('stops after maxBytes in total, and cancels the body', async () => {
    const source = endless('data: {"x":1}\n\n');
    let seen = 0;
    await assert.rejects(async () => {
      await readSseEvents(source.body, { maxBytes: 10_000 }, () => (seen += 1));
    }, limitError('maxStreamBytes'));
    assert.ok(seen > 100 && seen < 1000, `${seen} events`);
    assert.equal(source.cancelled(), true);
  });

  it('stops on one event over maxEventBytes, and cancels the body', async () => {
    const source = endless('aaaaaaaaaaaaaaaa');
    await assert.rejects(async () => {
      await readSseEvents(source.body, { maxEventBytes: 10_000 }, () => assert.fail('no event expected'));
    }, limitError('maxEventBytes'));
    assert.equal(source.cancelled(), true);
  });

  it('an abort ends the read even when the body never answers, and cancels it', async () => {
    let cancelled = false;
    const silent = new ReadableStream<Uint8Array>({ cancel: () => void (cancelled = true) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 20);
    const guard = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('still reading after 2 s')), 2_000).unref(),
    );
    const read = async (): Promise<void> => {
      await readSseEvents(silent, { signal: controller.signal }, () => assert.fail('no event expected'));
    };
    await assert.rejects(Promise.race([read(), guard]), /stop/);
    assert.equal(cancelled, true);
  });
});
