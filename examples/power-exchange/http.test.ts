import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { toNodeListener } from './http.ts';

const servers: Server[] = [];
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

async function serve(handler: (request: Request) => Promise<Response>, maxBodyBytes?: number): Promise<string> {
  const options = maxBodyBytes === undefined ? { handler } : { handler, maxBodyBytes };
  const server = createServer(toNodeListener(options));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('toNodeListener', () => {
  it('hands the handler the method, URL, headers and body of the request', async () => {
    let seen: { method: string; url: string; header: string | null; body: string } | undefined;
    const base = await serve(async (request) => {
      seen = {
        method: request.method,
        url: request.url,
        header: request.headers.get('x-probe'),
        body: await request.text(),
      };
      return Response.json({ ok: true }, { status: 201, headers: { 'x-answer': '42' } });
    });
    const response = await fetch(`${base}/mcp?x=1`, {
      method: 'POST',
      headers: { 'x-probe': 'yes' },
      body: '{"hello":1}',
    });
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('x-answer'), '42');
    assert.deepEqual(await response.json(), { ok: true });
    assert.deepEqual(seen, { method: 'POST', url: `${base}/mcp?x=1`, header: 'yes', body: '{"hello":1}' });
  });

  it('streams the response: the first event arrives before the handler writes the second', async () => {
    const encoder = new TextEncoder();
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const base = await serve(async () => {
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode('data: one\n\n'));
          await released;
          controller.enqueue(encoder.encode('data: two\n\n'));
          controller.close();
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    const response = await fetch(`${base}/mcp`);
    assert.ok(response.body);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    // Had the adapter buffered, this read would never resolve: "two" waits for it.
    assert.equal(decoder.decode(first.value), 'data: one\n\n');
    release();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value);
    assert.equal(rest, 'data: two\n\n');
  });

  it('answers other paths with 404 and oversized bodies with 413 without calling the handler', async () => {
    let calls = 0;
    const base = await serve(async () => {
      calls += 1;
      return new Response('unexpected');
    }, 10);
    const missing = await fetch(`${base}/other`);
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /use \/mcp/);
    const big = await fetch(`${base}/mcp`, { method: 'POST', body: 'x'.repeat(11) });
    assert.equal(big.status, 413);
    assert.equal(calls, 0);
  });

  it('turns a handler failure into a 500 with the reason', async () => {
    const base = await serve(async () => {
      throw new Error('boom');
    });
    const response = await fetch(`${base}/mcp`);
    assert.equal(response.status, 500);
    assert.match(await response.text(), /internal error: boom/);
  });
});
