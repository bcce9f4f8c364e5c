import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { collectSse, parseSse, type SseMessage } from './sse-client.ts';

async function parseChunks(chunks: (string | Uint8Array)[], onComment?: (text: string) => void): Promise<SseMessage[]> {
  async function* source(): AsyncGenerator<string | Uint8Array> {
    yield* chunks;
  }
  const out: SseMessage[] = [];
  for await (const message of parseSse(source(), onComment === undefined ? {} : { onComment })) out.push(message);
  return out;
}

describe('parseSse', () => {
  it('reads id, event and data fields', async () => {
    const messages = await parseChunks(['id: 1\nevent: run_started\ndata: {"a":1}\n\n', 'data: plain\n\n']);
    assert.deepEqual(messages, [{ id: '1', event: 'run_started', data: '{"a":1}' }, { data: 'plain' }]);
  });

  it('joins multi-line data and accepts CR, LF and CRLF line ends', async () => {
    const messages = await parseChunks(['data: one\r\ndata: two\rdata:three\n\r\n', 'event:x\rdata: y\r\r']);
    assert.deepEqual(messages, [{ data: 'one\ntwo\nthree' }, { event: 'x', data: 'y' }]);
  });

  it('handles a CRLF split across chunks without an empty line in between', async () => {
    const messages = await parseChunks(['data: a\r', '\ndata: b\r', '\n\r', '\n']);
    assert.deepEqual(messages, [{ data: 'a\nb' }]);
  });

  it('decodes UTF-8 split inside a character, and skips a leading BOM', async () => {
    const bytes = new TextEncoder().encode('\uFEFFdata: zürich €\n\n');
    const messages = await parseChunks([bytes.slice(0, 5), bytes.slice(5, 12), bytes.slice(12)]);
    assert.deepEqual(messages, [{ data: 'zürich €' }]);
  });

  it('reports comments and ignores blocks without data and an unterminated tail', async () => {
    const comments: string[] = [];
    const messages = await parseChunks([': ping\n\n', 'id: 7\n\n', 'data: kept\n\n', 'data: cut off'], (text) =>
      comments.push(text),
    );
    assert.deepEqual(comments, ['ping']);
    assert.deepEqual(messages, [{ data: 'kept' }]);
  });
});

describe('collectSse', () => {
  it('reads a stream over HTTP until the server ends it, and refuses non-SSE responses', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/json') {
        res
          .writeHead(404, { 'Content-Type': 'application/json' })
          .end('{"error":{"code":"not_found","message":"nope"}}');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`id: 1\nevent: e\ndata: ${req.headers['last-event-id'] ?? 'none'}\n\n`);
      res.end('id: 2\nevent: e\ndata: end\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const messages = await collectSse(`${base}/sse`, { headers: { 'Last-Event-ID': '5' } });
      assert.deepEqual(messages, [
        { id: '1', event: 'e', data: '5' },
        { id: '2', event: 'e', data: 'end' },
      ]);
      await assert.rejects(collectSse(`${base}/json`), /expected an SSE stream .* 404 .*not_found/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
