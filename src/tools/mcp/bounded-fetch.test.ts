import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSse, type SseMessage } from '../../../test/support/sse-client.ts';
import { boundedFetch } from './bounded-fetch.ts';
import type { ScanLimits } from './message-scanner.ts';
import { REFUSED_ANSWER_KEY } from './refused-answer.ts';

const LIMITS: ScanLimits = { keepBytes: 200, headBytes: 120, maxDepth: 10 };

/** What the SDK would read: the body of `answer` through boundedFetch, handed over in pieces of `piece` bytes. */
async function through(
  answer: { type: string; body: string },
  options: { piece?: number; sent?: unknown } = {},
): Promise<{ text: string; errors: string[] }> {
  const bytes = new TextEncoder().encode(answer.body);
  const piece = options.piece ?? bytes.length;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += piece) controller.enqueue(bytes.slice(at, at + piece));
      controller.close();
    },
  });
  const errors: string[] = [];
  const fetch = boundedFetch({
    limits: LIMITS,
    onError: (error) => errors.push(error.message),
    fetch: async () => new Response(body, { headers: { 'content-type': answer.type } }),
  });
  const response = await fetch('http://upstream/mcp', {
    method: 'POST',
    body: JSON.stringify(options.sent ?? { jsonrpc: '2.0', id: 41, method: 'tools/call' }),
  });
  return { text: await response.text(), errors };
}

async function events(text: string): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const message of parseSse([text])) out.push(message);
  return out;
}

const small = JSON.stringify({ result: { content: [{ type: 'text', text: 'hi' }] }, jsonrpc: '2.0', id: 3 });
const large = JSON.stringify({
  result: { content: [{ type: 'text', text: 'x'.repeat(500) }], isError: true },
  jsonrpc: '2.0',
  id: 4,
});

describe('boundedFetch', () => {
  it(
    'passes an event stream within the limits as the SDK ' + 'would read it, however it is split (CR LF split too)',
    async () => {
      const stream =
        `: ping\r\nid: 7\r\nevent: message\r\ndata: ${small}\r\n\r\ndata: ` +
        `{"jsonrpc":"2.0",\ndata: "method":"notifications/progress"}\n\n`;
      const expected = await events(stream);
      for (const piece of [1, 2, 3, 7, 64, stream.length]) {
        const { text, errors } = await through({ type: 'text/event-stream', body: stream }, { piece });
        assert.deepEqual(await events(text), expected, `pieces of ${piece}`);
        assert.deepEqual(errors, []);
      }
    },
  );

  it(
    'replaces the data of an event over the limit by an error answer ' +
      'to its id, keeping the event id, and drops a notification over it',
    async () => {
      const notification = JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { data: 'y'.repeat(500) },
      });
      const stream = `id: 9\ndata: ${large}\n\ndata: ${notification}\n\ndata: ${small}\n\n`;
      for (const piece of [5, 64, stream.length]) {
        const { text, errors } = await through({ type: 'text/event-stream', body: stream }, { piece });
        const [refused, next, ...rest] = await events(text);
        assert.equal(refused?.id, '9');
        const message = JSON.parse(refused?.data ?? '{}') as {
          id: number;
          error: {
            code: number;
            message: string;
            data: Record<string, { reason: string; bytes: number; isError: boolean; partial: unknown }>;
          };
        };
        assert.equal(message.id, 4);
        assert.match(
          message.error.message,
          /^the server's answer was \d+ bytes, more than the 200 bytes read of one message/,
        );
        const refusal = message.error.data[REFUSED_ANSWER_KEY];
        assert.deepEqual([refusal?.reason, refusal?.bytes, refusal?.isError], ['too_large', large.length, true]);
        assert.match(JSON.stringify(refusal?.partial), /^\{"content":\[\{"type":"text","text":"x+"\}\]\}$/);
        assert.equal(next?.data, small, 'the next event is read as usual');
        assert.deepEqual(rest, []);
        assert.deepEqual(errors, [
          `dropped a request or notification from the server: it is ` +
            `${notification.length} bytes, more than the 200 read of one message`,
        ]);
      }
    },
  );

  it('answers a JSON body over the limit for its id, or for the id sent when it names none', async () => {
    const named = JSON.parse((await through({ type: 'application/json', body: large }, { piece: 10 })).text) as {
      id: number;
      error: { message: string };
    };
    assert.equal(named.id, 4);
    const anonymous = JSON.parse(
      (await through({ type: 'application/json', body: `{"result":{"text":"${'z'.repeat(300)}"}}` })).text,
    ) as { id: number };
    assert.equal(anonymous.id, 41);
    assert.equal((await through({ type: 'application/json', body: small }, { piece: 3 })).text, small);
  });

  it('cuts any other body at the limit', async () => {
    const { text } = await through({ type: 'text/html', body: 'e'.repeat(1000) }, { piece: 64 });
    assert.equal(text, 'e'.repeat(200));
  });
});
