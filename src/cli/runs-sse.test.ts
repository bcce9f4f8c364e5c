import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readSse, type SseMessage } from './runs-sse.ts';

function body(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
}

async function read(stream: ReadableStream<Uint8Array>, maxEventBytes?: number): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  for await (const m of readSse(stream, maxEventBytes)) messages.push(m);
  return messages;
}

describe('reading a run event stream', () => {
  it(
    'reads ids, event names and multi-line data across ' + 'chunk boundaries and line-end styles; skips comments',
    async () => {
      const wire =
        '\ufeff: ping\r\nid: 1\r\nevent: run_status\r\ndata: ' +
        '{"a":\r\ndata: 1}\r\n\r\nid: 2\rdata: x\r\rid: 3\ndata: y\n\n';
      assert.deepEqual(await read(body(...wire)), [
        { id: '1', event: 'run_status', data: '{"a":\n1}' },
        { id: '2', event: 'message', data: 'x' },
        { id: '3', event: 'message', data: 'y' },
      ]);
    },
  );

  it('a message without data is not dispatched; one cut off by the end of the stream is dropped', async () => {
    assert.deepEqual(await read(body('event: x\n\ndata: whole\n\ndata: cut')), [{ event: 'message', data: 'whole' }]);
  });

  it('an event larger than the limit is refused instead of buffered', async () => {
    await assert.rejects(
      read(body(`data: ${'a'.repeat(200)}\n\n`), 100),
      /the server sent an event larger than 100 bytes/,
    );
  });
});
