import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ToolgateError } from '../../core/errors.ts';
import { readLines, type ReadLinesOptions } from './ndjson-reader.ts';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>, options: ReadLinesOptions = {}): Promise<string[]> {
  const out: string[] = [];
  await readLines(body, options, (line) => out.push(line));
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

const limitError =
  (option: string, provider = 'openai') =>
  (e: unknown): boolean =>
    e instanceof ToolgateError &&
    e.code === 'model_error' &&
    e.message.includes(option) &&
    e.message.includes(`providers.${provider}.${option}`);

describe('readLines', () => {
  it('yields each line without its ending, skipping blank lines, CRLF or LF', async () => {
    const body = '{"a":1}\n\n{"b":2}\r\n  \r\n\t\n{"c":3}\n';
    assert.deepEqual(await collect(streamOf([encode(body)])), ['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('keeps a last line that has no newline', async () => {
    assert.deepEqual(await collect(streamOf([encode('{"a":1}\n{"done":true}')])), ['{"a":1}', '{"done":true}']);
  });

  it('keeps whitespace inside and around a line that is not blank, and a lone CR inside it', async () => {
    assert.deepEqual(await collect(streamOf([encode(' {"a":"x\ry"} \r\n')])), [' {"a":"x\ry"} ']);
  });

  it('joins a line cut in many chunks, and a CRLF cut between two chunks', async () => {
    assert.deepEqual(await collect(streamOf([encode('{"a"'), encode(':1}\r'), encode('\n{"b"'), encode(':2}\n')])), [
      '{"a":1}',
      '{"b":2}',
    ]);
  });

  it('decodes a multi-byte character split across chunks', async () => {
    const bytes = encode('{"t":"€ ⚡ 🔌"}\n');
    const euro = 6; // first byte of the three-byte "€"
    const chunks = [
      bytes.slice(0, euro + 1),
      bytes.slice(euro + 1, euro + 2),
      bytes.slice(euro + 2, 12),
      bytes.slice(12),
    ];
    assert.deepEqual(await collect(streamOf(chunks)), ['{"t":"€ ⚡ 🔌"}']);
  });

  it('yields nothing for an empty body', async () => {
    assert.deepEqual(await collect(streamOf([])), []);
    assert.deepEqual(await collect(streamOf([encode('\n\r\n')])), []);
  });

  it('property: any split of the bytes yields the same lines, multi-byte characters included', async () => {
    const lineText = fc.string({ unit: 'binary', maxLength: 16 }).filter((s) => !/[\r\n]/.test(s));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(lineText, fc.constantFrom('\n', '\r\n')), { maxLength: 8 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 16 }),
        async (lines, lastTerminated, cuts) => {
          let text = lines.map(([line, eol]) => `${line}${eol}`).join('');
          if (!lastTerminated && lines.length > 0) text = text.replace(/\r?\n$/, '');
          const expected = lines.map(([line]) => line).filter((line) => line.trim() !== '');
          assert.deepEqual(await collect(streamOf(splitAt(encode(text), cuts))), expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('readLines: bounds', () => {
  it('maxLineBytes counts UTF-8 bytes: a line of exactly the limit passes, one byte more fails', async () => {
    const exact = '€'.repeat(10); // 30 bytes
    assert.deepEqual(await collect(streamOf([encode(`${exact}\n`)]), { maxLineBytes: 30 }), [exact]);
    await assert.rejects(collect(streamOf([encode(`${exact}a\n`)]), { maxLineBytes: 30 }), limitError('maxEventBytes'));
    // Ten characters, but thirty bytes.
    await assert.rejects(collect(streamOf([encode(`${exact}\n`)]), { maxLineBytes: 29 }), limitError('maxEventBytes'));
  });

  it('refuses a line that grows over the limit across chunks, before it ends, naming the provider', async () => {
    const chunks = Array.from({ length: 50 }, () => encode('aaaaaaaaaa'));
    await assert.rejects(
      collect(streamOf(chunks), { maxLineBytes: 100, provider: 'ollama' }),
      limitError('maxEventBytes', 'ollama'),
    );
  });

  it('limits each line, not the stream: many short lines pass', async () => {
    const lines = await collect(streamOf([encode('{"x":"0123456789"}\n'.repeat(1000))]), { maxLineBytes: 40 });
    assert.equal(lines.length, 1000);
  });

  it('maxBytes bounds the whole stream, blank lines included', async () => {
    const text = '{"x":1}\n'.repeat(100); // 800 bytes
    assert.equal((await collect(streamOf([encode(text)]), { maxBytes: 800 })).length, 100);
    await assert.rejects(collect(streamOf([encode(text)]), { maxBytes: 799 }), limitError('maxStreamBytes'));
    await assert.rejects(
      collect(streamOf([encode('\n'.repeat(1000))]), { maxBytes: 500, provider: 'ollama' }),
      limitError('maxStreamBytes', 'ollama'),
    );
  });

  /** `piece` repeated up to 8 MiB (far past every limit below), recording whether the reader cancelled it. */
  function endless(piece: string): { body: ReadableStream<Uint8Array>; cancelled: () => boolean } {
    const bytes = encode(piece);
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

  it('stops after maxBytes and cancels the body', async () => {
    const source = endless('{"message":{"content":"x"},"done":false}\n');
    let seen = 0;
    await assert.rejects(async () => {
      await readLines(source.body, { maxBytes: 10_000 }, () => (seen += 1));
    }, limitError('maxStreamBytes'));
    assert.ok(seen > 100 && seen < 1000, `${seen} lines`);
    assert.equal(source.cancelled(), true);
  });

  it('stops on a line over maxLineBytes and cancels the body', async () => {
    const source = endless('aaaaaaaaaaaaaaaa');
    await assert.rejects(async () => {
      await readLines(source.body, { maxLineBytes: 10_000 }, () => assert.fail('no line expected'));
    }, limitError('maxEventBytes'));
    assert.equal(source.cancelled(), true);
  });

  it('an abort ends the read even when the body never answers, and cancels it', async () => {
    let cancelled = false;
    const silent = new ReadableStream<Uint8Array>({ cancel: () => void (cancelled = true) });
    const controller = new AbortController();
    const read = collect(silent, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await assert.rejects(read, /stop/);
    assert.equal(cancelled, true);
  });
});
