import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { verifyWebhook } from '../../client/verify-webhook.ts';
import { deliverWebhook, retryAfter } from './deliver-webhook.ts';

const SECRET = 'a-webhook-secret-of-24-chars-or-more';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('deliverWebhook against a local receiver', () => {
  let server: Server;
  let base = '';
  const received: Received[] = [];
  /** Answers per path: each request takes the next status (the last one repeats); 0 = never answer. */
  const scripts = new Map<string, number[]>();

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const path = req.url ?? '';
        received.push({ path, headers: req.headers, body });
        const script = scripts.get(path) ?? [200];
        const status = script.length > 1 ? (script.shift() ?? 200) : (script[0] ?? 200);
        if (status === 0) return;
        if (status === 302) res.setHeader('location', `${base}/ok`);
        if (status === 429) res.setHeader('retry-after', '0');
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const deliver = (path: string, extra: { timeoutMs?: number; maxAttempts?: number } = {}) =>
    deliverWebhook({
      url: `${base}${path}`,
      secret: SECRET,
      id: `id${path}`,
      body: '{"a":1}',
      retryBaseMs: 5,
      ...extra,
    });

  it('500 then 200: delivered on the second attempt, same webhook-id, each attempt signed', async () => {
    scripts.set('/flaky', [500, 200]);
    const result = await deliver('/flaky', { maxAttempts: 3 });
    assert.deepEqual(result, {
      outcome: 'delivered',
      attempts: 2,
      failures: [{ attempt: 1, status: 500, error: 'HTTP 500 Internal Server Error' }],
    });
    const attempts = received.filter((r) => r.path === '/flaky');
    assert.equal(attempts.length, 2);
    for (const attempt of attempts) {
      assert.equal(attempt.headers['webhook-id'], 'id/flaky');
      assert.equal(attempt.headers['content-type'], 'application/json');
      const verified = await verifyWebhook({ secret: SECRET, headers: attempt.headers, body: attempt.body });
      assert.equal(verified.valid, true);
    }
  });

  it('400: one attempt, failed (a 4xx other than 408/429 is not retried); 429 is retried', async () => {
    scripts.set('/bad', [400]);
    const result = await deliver('/bad', { maxAttempts: 5 });
    assert.equal(result.outcome, 'failed');
    assert.equal(result.attempts, 1);
    assert.equal(result.failures[0]?.status, 400);
    scripts.set('/busy', [429, 429, 200]);
    assert.deepEqual((await deliver('/busy', { maxAttempts: 5 })).attempts, 3);
  });

  it('a receiver that never answers: each attempt times out; attempts stop at maxAttempts', async () => {
    scripts.set('/silent', [0]);
    const result = await deliver('/silent', { timeoutMs: 150, maxAttempts: 2 });
    assert.equal(result.outcome, 'failed');
    assert.equal(result.attempts, 2);
    assert.deepEqual(
      result.failures.map((f) => f.error),
      ['no answer within 150 ms', 'no answer within 150 ms'],
    );
  });

  it('redirects are refused, not followed', async () => {
    scripts.set('/moved', [302]);
    const before = received.filter((r) => r.path === '/ok').length;
    const result = await deliver('/moved', { maxAttempts: 3 });
    assert.equal(result.outcome, 'failed');
    assert.equal(result.attempts, 1);
    assert.match(result.failures[0]?.error ?? '', /redirects are refused/);
    assert.equal(received.filter((r) => r.path === '/ok').length, before);
  });

  it('a target that refuses connections fails with the reason; Retry-After reads seconds and dates', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await deliverWebhook({
      url: `http://127.0.0.1:${port}/x`,
      secret: SECRET,
      id: 'x',
      body: '{}',
      maxAttempts: 1,
    });
    assert.equal(result.outcome, 'failed');
    assert.match(result.failures[0]?.error ?? '', /ECONNREFUSED/);
    assert.equal(retryAfter('7', 0), 7000);
    assert.equal(retryAfter(new Date(5000).toUTCString(), 1000), 4000);
    assert.equal(retryAfter('soon', 0), undefined);
  });
});
