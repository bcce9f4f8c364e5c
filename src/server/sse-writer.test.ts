import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { parseSse, type SseMessage } from '../../test/support/sse-client.ts';
import { SseWriter, type SseWriterOptions } from './sse-writer.ts';

const BIG = JSON.stringify('x'.repeat(200 * 1024));

/** A loopback server whose one response is handed to `onResponse`. */
async function serve(onResponse: (res: ServerResponse) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => onResponse(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

function writer(res: ServerResponse, options: Partial<SseWriterOptions> = {}): SseWriter {
  return new SseWriter({
    res,
    heartbeatMs: 60_000,
    bufferLimitBytes: 64 * 1024 * 1024,
    idleTimeoutMs: 30_000,
    lastEventId: 0,
    ...options,
  });
}

async function collect(port: number): Promise<SseMessage[]> {
  const response = await fetch(`http://127.0.0.1:${port}/`);
  assert.ok(response.body);
  const messages: SseMessage[] = [];
  for await (const message of parseSse(response.body)) messages.push(message);
  return messages;
}

describe('SseWriter', () => {
  it('end() while congested writes what is queued before it closes', async () => {
    let congested = false;
    const { server, port } = await serve((res) => {
      const sse = writer(res);
      sse.open();
      sse.send({ id: 1, event: 'assistant_message', data: BIG });
      congested = sse.congested;
      sse.send({ id: 2, event: 'run_completed', data: BIG });
      sse.end();
      assert.equal(sse.send({ id: 3, event: 'late', data: '{}' }), false, 'nothing is accepted after end()');
    });
    try {
      const messages = await collect(port);
      assert.ok(congested, 'the first frame did not fill the socket: the test proves nothing');
      assert.deepEqual(
        messages.map((m) => [m.id, m.event, m.data.length]),
        [
          ['1', 'assistant_message', BIG.length],
          ['2', 'run_completed', BIG.length],
        ],
      );
    } finally {
      await stop(server);
    }
  });

  it('destroys a socket that accepts nothing for idleTimeoutMs while it drains', { timeout: 20_000 }, async () => {
    let closedAfter = -1;
    let finished = false;
    let idle = 0;
    const started = Date.now();
    const { server, port } = await serve((res) => {
      const sse = writer(res, { idleTimeoutMs: 300, onIdleTimeout: () => (idle += 1) });
      sse.open();
      // Far more than loopback socket buffers hold.
      for (let i = 1; i <= 32; i += 1)
        sse.send({ id: i, event: 'assistant_delta', data: JSON.stringify(String(i % 10).repeat(512 * 1024)) });
      sse.end();
      res.once('finish', () => (finished = true));
      res.socket?.once('close', () => (closedAfter = Date.now() - started));
    });
    const client = connect(port, '127.0.0.1');
    try {
      await once(client, 'connect');
      client.pause();
      client.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      for (let waited = 0; closedAfter === -1 && waited < 5000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.notEqual(closedAfter, -1, 'the socket was still open 5 s later');
      assert.ok(closedAfter >= 250, `closed after ${closedAfter} ms`);
      assert.equal(finished, false, 'the response cannot have finished: the client read nothing');
      assert.equal(idle, 1);
    } finally {
      client.destroy();
      await stop(server);
    }
  });

  it('still drops its queue and sends `overflow` when a congested subscriber passes the buffer limit', async () => {
    let overflowAt: number | undefined;
    const { server, port } = await serve((res) => {
      const sse = writer(res, { bufferLimitBytes: 64 * 1024, onOverflow: (lastEventId) => (overflowAt = lastEventId) });
      sse.open();
      sse.send({ id: 1, event: 'assistant_delta', data: BIG });
      sse.send({ id: 2, event: 'assistant_delta', data: JSON.stringify('y'.repeat(40 * 1024)) });
      assert.equal(sse.send({ id: 3, event: 'assistant_delta', data: JSON.stringify('z'.repeat(40 * 1024)) }), false);
    });
    try {
      const messages = await collect(port);
      assert.equal(overflowAt, 1);
      assert.deepEqual(
        messages.map((m) => [m.id, m.event]),
        [
          ['1', 'assistant_delta'],
          [undefined, 'overflow'],
        ],
      );
      assert.equal((JSON.parse(messages[1]?.data ?? '{}') as { lastEventId: number }).lastEventId, 1);
    } finally {
      await stop(server);
    }
  });
});
