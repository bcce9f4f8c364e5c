import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deserializeMessage } from '@modelcontextprotocol/client';
import { BoundedReadBuffer } from './bounded-read-buffer.ts';
import { refusedAnswerOf } from './refused-answer.ts';

const encoder = new TextEncoder();

function reader(): { buffer: BoundedReadBuffer; errors: string[]; read: () => unknown[] } {
  const errors: string[] = [];
  const buffer = new BoundedReadBuffer({
    limits: { keepBytes: 100, headBytes: 60, maxDepth: 8 },
    deserialize: deserializeMessage,
    onError: (error) => errors.push(error.message),
  });
  const read = (): unknown[] => {
    const out: unknown[] = [];
    for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) out.push(message);
    return out;
  };
  return { buffer, errors, read };
}

describe('BoundedReadBuffer', () => {
  it('reads lines split anywhere as the SDK does, skipping lines that are not JSON', () => {
    const { buffer, read, errors } = reader();
    const text =
      'starting up\n{"jsonrpc":"2.0","id":1,"result":{}}\r\n\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
    for (const c of encoder.encode(text)) buffer.append(Uint8Array.of(c));
    assert.deepEqual(read(), [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    assert.deepEqual(errors, []);
  });

  it('answers for a line over the limit or too deep, drops a notification over it, and reads on', () => {
    const { buffer, read, errors } = reader();
    const big = `{"result":{"content":[{"type":"text","text":"${'a'.repeat(500)}"}]},"jsonrpc":"2.0","id":5}`;
    const deep = `{"result":{"structuredContent":${'['.repeat(10)}${']'.repeat(10)}},"jsonrpc":"2.0","id":6}`;
    const noisy = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'b'.repeat(200)}"}}`;
    buffer.append(encoder.encode(`${big}\n${deep}\n${noisy}\n{"jsonrpc":"2.0","id":7,"result":{}}\n`));
    const [first, second, third, ...rest] = read() as { id: number; error?: unknown }[];
    assert.deepEqual(rest, []);
    assert.equal(first?.id, 5);
    const refused = refusedAnswerOf(first?.error);
    assert.deepEqual([refused?.reason, refused?.bytes], ['too_large', big.length]);
    assert.match(JSON.stringify(refused?.partial), /^\{"content":\[\{"type":"text","text":"a+"\}\]\}$/);
    assert.deepEqual([second?.id, refusedAnswerOf(second?.error)?.reason], [6, 'too_deep']);
    assert.deepEqual(third, { jsonrpc: '2.0', id: 7, result: {} });
    assert.deepEqual(errors, [
      `dropped a request or notification from the server: it is ` +
        `${noisy.length} bytes, more than the 100 read of one message`,
    ]);
  });
});
