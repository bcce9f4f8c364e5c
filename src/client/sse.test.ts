import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readSse, type SseMessage } from './sse.ts';

const encoder = new TextEncoder();

/** A body that delivers these byte chunks, in order. */
function body(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function read(chunks: readonly Uint8Array[], maxEventBytes?: number): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  const options = maxEventBytes === undefined ? {} : { maxEventBytes };
  for await (const message of readSse(body(chunks), options)) messages.push(message);
  return messages;
}

/** The wire cut into two byte chunks at every position, and into single bytes. */
function everySplit(wire: string): Uint8Array[][] {
  const bytes = encoder.encode(wire);
  const splits: Uint8Array[][] = [];
  for (let at = 0; at <= bytes.length; at += 1) splits.push([bytes.slice(0, at), bytes.slice(at)]);
  splits.push([...bytes].map((b) => Uint8Array.of(b)));
  return splits;
}

const WIRE =
  '\ufeff: ping\r\nid: 1\r\nevent: run_status\r\ndata: {"a":\r\ndata: 1}\r\n\r\n' +
  'id: 2\rdata: x\r\r: comment\nid: 3\ndata: y — ü 😀\n\n' +
  'event: overflow\ndata: {"lastEventId":3}\n\n';
const EXPECTED: SseMessage[] = [
  { id: '1', event: 'run_status', data: '{"a":\n1}' },
  { id: '2', event: 'message', data: 'x' },
  { id: '3', event: 'message', data: 'y — ü 😀' },
  // The id is the stream's last one, as EventSource keeps it.
  { id: '3', event: 'overflow', data: '{"lastEventId":3}' },
];

describe('the client reads an event stream', () => {
  it('reads ids, names, comments and multi-line data with CRLF, CR and LF line ends', async () => {
    assert.deepEqual(await read([encoder.encode(WIRE)]), EXPECTED);
  });

  it('gives the same events however the network cuts the bytes (inside CRLF, inside a character)', async () => {
    for (const chunks of everySplit(WIRE)) {
      assert.deepEqual(await read(chunks), EXPECTED, `cut into ${chunks.map((c) => c.length).join('+')} bytes`);
    }
  });

  it('an event without data is not dispatched; one cut off by the end of the stream is dropped', async () => {
    assert.deepEqual(await read([encoder.encode('event: x\n\ndata: whole\n\ndata: cut')]), [
      { event: 'message', data: 'whole' },
    ]);
  });

  it('keeps a field without a colon, an empty data line, and a value without the optional space', async () => {
    assert.deepEqual(await read([encoder.encode('data\ndata:\ndata:no-space\nretry: 10\nfoo: bar\n\n')]), [
      { event: 'message', data: '\n\nno-space' },
    ]);
    assert.deepEqual(
      await read([encoder.encode('id: a\0b\ndata: z\n\n')]),
      [{ event: 'message', data: 'z' }],
      'an id with NUL is ignored',
    );
  });

  it('an event or a line larger than the limit is refused instead of buffered', async () => {
    await assert.rejects(read([encoder.encode(`data: ${'a'.repeat(200)}\n\n`)], 100), /larger than 100 bytes/);
    await assert.rejects(read([encoder.encode(`: ${'a'.repeat(200)}`)], 100), /larger than 100 bytes/);
    // Characters count as their UTF-8 bytes: 60 × "é" is 120 bytes (in 66 characters with the field's name).
    await assert.rejects(read([encoder.encode(`data: ${'é'.repeat(60)}\n\n`)], 100), /larger than 100 bytes/);
    assert.equal((await read([encoder.encode(`data: ${'é'.repeat(40)}\n\n`)], 100)).length, 1);
  });

  it('stopping early cancels the body', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(encoder.encode('id: 1\ndata: x\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const message of readSse(stream)) {
      assert.equal(message.data, 'x');
      break;
    }
    assert.equal(cancelled, true);
  });
});
