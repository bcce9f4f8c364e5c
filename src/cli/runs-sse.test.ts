import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readSse, SseParser } from './runs-sse.ts';

describe('the SSE parser', () => {
  it('reads ids, event names and multi-line data across chunk boundaries and line-end styles; skips comments', () => {
    const parser = new SseParser();
    const wire = '\ufeff: ping\r\nid: 1\r\nevent: run_status\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 2\rdata: x\r\rid: 3\ndata: y\n\n';
    const messages = [...wire].flatMap((char) => parser.push(char));
    assert.deepEqual(messages, [
      { id: '1', event: 'run_status', data: '{"a":\n1}' },
      { id: '2', data: 'x' },
      { id: '3', data: 'y' },
    ]);
  });

  it('a message without data is not dispatched; one cut off by the end of the stream is dropped', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('event: x\n\ndata: whole\n\ndata: cut'));
        controller.close();
      },
    });
    const messages = [];
    for await (const m of readSse(body)) messages.push(m);
    assert.deepEqual(messages, [{ data: 'whole' }]);
  });
});
