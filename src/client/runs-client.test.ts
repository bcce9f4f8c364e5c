import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { TERMINAL_EVENT_TYPES } from '../core/events.ts';
import { ToolgateApiError, ToolgateClientError } from './client-error.ts';
import { CLIENT_TERMINAL_EVENT_TYPES } from './follow-events.ts';
import { ToolgateClient } from './runs-client.ts';
import type { FetchFunction } from './types.ts';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
  credentials: string | undefined;
}

const RUN = { id: 'run_1', status: 'running', input: 'hi', lastEventId: 3, steps: 0, usage: {} };

/** A fetch that records what it was asked and answers with `answer`'s Response. */
function recording(answer: (sent: Sent) => Response): { fetch: FetchFunction; sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    fetch: async (url, init) => {
      const request: Sent = {
        url,
        method: init.method ?? 'GET',
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
        credentials: init.credentials,
      };
      sent.push(request);
      return answer(request);
    },
  };
}

const json = (body: unknown, init: ResponseInit = {}): Response =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' }, ...init });

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

describe('ToolgateClient: errors', () => {
  it("maps toolgate's error body to a ToolgateApiError with its status, code, message, issues and run", async () => {
    const { fetch } = recording(() =>
      json(
        { error: { code: 'conflict', message: 'call c1 is not pending', issues: [{ path: 'x', message: 'bad' }] } },
        { status: 409, headers: { 'retry-after': '2' } },
      ),
    );
    const client = new ToolgateClient({ url: 'http://toolgate.test/', fetch });
    const error = await client.approve('run_1', { toolCallId: 'c1' }).catch((e: unknown) => e);
    assert.ok(error instanceof ToolgateApiError);
    assert.equal(error.status, 409);
    assert.equal(error.code, 'conflict');
    assert.equal(error.message, 'call c1 is not pending');
    assert.deepEqual(error.issues, [{ path: 'x', message: 'bad' }]);
    assert.equal(error.runId, 'run_1');
    assert.equal(error.retryAfterSeconds, 2);
    assert.equal(error.method, 'POST');
    assert.equal(error.url, 'http://toolgate.test/v1/runs/run_1/input');
  });

  it('an error answer that is not JSON names the status and the URL, and keeps the start of the body', async () => {
    const { fetch } = recording(
      () => new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    );
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    const error = await client.getRun('run_1').catch((e: unknown) => e);
    assert.ok(error instanceof ToolgateApiError);
    assert.equal(error.code, 'http_error');
    assert.equal(error.status, 502);
    assert.match(error.message, /^GET http:\/\/toolgate\.test\/v1\/runs\/run_1 answered HTTP 502 Bad Gateway /);
    assert.equal(error.body, '<html>Bad Gateway</html>');
  });

  it('a server that cannot be reached is a ToolgateClientError naming the URL and the network error', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await new ToolgateClient({ url }).listTools().catch((e: unknown) => e);
    assert.ok(error instanceof ToolgateClientError);
    assert.equal(error.reason, 'unreachable');
    assert.equal(error.serverUrl, url);
    assert.match(error.message, new RegExp(`^cannot reach the toolgate server at ${url} \\(.*ECONNREFUSED`));
  });

  it('a success that is not the API answer (another server at the URL) is refused by name', async () => {
    const { fetch } = recording(() => new Response('<html>welcome</html>'));
    const client = new ToolgateClient({ url: 'http://elsewhere.test', fetch });
    await assert.rejects(client.getRun('run_1'), (error: unknown) => {
      assert.ok(error instanceof ToolgateClientError);
      assert.equal(error.reason, 'unexpected_answer');
      assert.match(error.message, /answered GET \/v1\/runs\/\{id\} with a body that is not JSON: it is not toolgate/);
      return true;
    });
    const other = new ToolgateClient({ url: 'http://elsewhere.test', fetch: recording(() => json({ ok: 1 })).fetch });
    await assert.rejects(other.listRuns(), /answered GET \/v1\/runs with JSON that is not its answer/);
  });

  it('a url, a run id or a call id it cannot use is a usage error saying what to give', async () => {
    for (const url of ['', 'ftp://x', '127.0.0.1:8787', 'http://x/?a=1']) {
      assert.throws(
        () => new ToolgateClient({ url }),
        (e: unknown) => e instanceof ToolgateClientError && e.reason === 'usage' && /the server's root/.test(e.message),
        url,
      );
    }
    const client = new ToolgateClient({ url: 'http://x', fetch: recording(() => json(RUN)).fetch });
    assert.throws(() => client.events(''), /needs a run id/);
    await assert.rejects(client.approve('run_1', { toolCallId: '' }), /approve needs the toolCallId/);
    assert.throws(() => client.events('run_1', { after: -1 }), /after must be an event's sequence number/);
  });

  it("the terminal event types are core's", () => {
    assert.deepEqual([...CLIENT_TERMINAL_EVENT_TYPES].sort(), [...TERMINAL_EVENT_TYPES].sort());
  });
});

describe('ToolgateClient: requests', () => {
  it('sends the key, the idempotency key and the trace context; the CSRF token on everything but GET', async () => {
    let token = 'csrf-1';
    const { fetch, sent } = recording((request) =>
      request.method === 'DELETE' ? new Response(null, { status: 204 }) : json(RUN),
    );
    const client = new ToolgateClient({
      url: 'http://toolgate.test/base/',
      apiKey: 'k',
      fetch,
      credentials: 'same-origin',
      csrfToken: () => token,
      headers: (request) => ({ 'X-Trace-Me': `${request.method} ${new URL(request.url).pathname}` }),
    });
    await client.createRun({ input: 'hi', dryRun: true }, { idempotencyKey: 'idem-1', traceparent: 'tp' });
    await client.getRun('run/1');
    token = 'csrf-2';
    await client.signOut();
    const [create, get, signOut] = sent;
    assert.equal(create?.url, 'http://toolgate.test/base/v1/runs');
    assert.deepEqual(create?.body, { input: 'hi', dryRun: true });
    assert.equal(create?.headers['authorization'], 'Bearer k');
    assert.equal(create?.headers['idempotency-key'], 'idem-1');
    assert.equal(create?.headers['traceparent'], 'tp');
    assert.equal(create?.headers['content-type'], 'application/json');
    assert.equal(create?.headers['x-csrf-token'], 'csrf-1');
    assert.equal(create?.headers['x-trace-me'], 'POST /base/v1/runs');
    assert.equal(create?.credentials, 'same-origin');
    assert.equal(get?.url, 'http://toolgate.test/base/v1/runs/run%2F1');
    assert.equal(get?.headers['x-csrf-token'], undefined, 'GET needs no token');
    assert.equal(signOut?.headers['x-csrf-token'], 'csrf-2', 'asked for each request');
  });

  it('approve, reject, edit, mark done, message and cancel send the bodies the API takes', async () => {
    const { fetch, sent } = recording(() => json(RUN, { status: 202 }));
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    await client.approve('run_1', { toolCallId: 'c1' });
    await client.reject('run_1', { toolCallId: 'c1', reason: 'too big' });
    await client.edit('run_1', { toolCallId: 'c1', arguments: { qty: 4 } });
    await client.markDone('run_1', { toolCallId: 'c1', result: 'on the book' });
    await client.sendMessage('run_1', 'go on');
    await client.submitInput('run_1', { type: 'message', text: 'x', userId: 'mallory' });
    await client.cancel('run_1', { reason: 'wrong account' });
    await client.cancel('run_1');
    assert.deepEqual(
      sent.map((s) => [s.method, new URL(s.url).pathname, s.body]),
      [
        ['POST', '/v1/runs/run_1/input', { type: 'approval', toolCallId: 'c1', decision: 'approve' }],
        ['POST', '/v1/runs/run_1/input', { type: 'approval', toolCallId: 'c1', decision: 'reject', reason: 'too big' }],
        [
          'POST',
          '/v1/runs/run_1/input',
          { type: 'approval', toolCallId: 'c1', decision: 'edit', arguments: { qty: 4 } },
        ],
        [
          'POST',
          '/v1/runs/run_1/input',
          { type: 'approval', toolCallId: 'c1', decision: 'mark_done', result: 'on the book' },
        ],
        ['POST', '/v1/runs/run_1/input', { type: 'message', text: 'go on' }],
        // Who decided is the key's caller: the API takes no user from a body.
        ['POST', '/v1/runs/run_1/input', { type: 'message', text: 'x' }],
        ['POST', '/v1/runs/run_1/cancel', { reason: 'wrong account' }],
        ['POST', '/v1/runs/run_1/cancel', undefined],
      ],
    );
  });

  it('lists with a query, and listAllRuns follows nextCursor to the end', async () => {
    const pages: Record<string, unknown> = {
      '': { runs: [{ id: 'r3' }, { id: 'r2' }], nextCursor: 'c1' },
      c1: { runs: [], nextCursor: 'c2' },
      c2: { runs: [{ id: 'r1' }] },
    };
    const { fetch, sent } = recording((request) => json(pages[new URL(request.url).searchParams.get('cursor') ?? '']));
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch });
    const ids: string[] = [];
    for await (const run of client.listAllRuns({ status: 'completed', limit: 2, q: 'book', fields: ['status'] }))
      ids.push(run.id);
    assert.deepEqual(ids, ['r3', 'r2', 'r1']);
    assert.deepEqual(
      sent.map((s) => new URL(s.url).search),
      [
        '?status=completed&q=book&limit=2&fields=status',
        '?status=completed&q=book&cursor=c1&limit=2&fields=status',
        '?status=completed&q=book&cursor=c2&limit=2&fields=status',
      ],
    );
  });

  it('fork sends where to fork and the settings, with the trace context and the CSRF token', async () => {
    const { fetch, sent } = recording(() => json({ ...RUN, id: 'run_2' }, { status: 201 }));
    const client = new ToolgateClient({ url: 'http://toolgate.test', fetch, csrfToken: () => 'csrf-1' });
    const fork = await client.fork('run_1', {
      afterEventId: 7,
      settings: { strategy: 'plan', maxSteps: 3 },
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    assert.equal(fork.id, 'run_2');
    await client.fork('run_1', { afterEventId: 4 });
    assert.deepEqual(
      sent.map((s) => [s.method, new URL(s.url).pathname, s.body, s.headers['traceparent'], s.headers['x-csrf-token']]),
      [
        [
          'POST',
          '/v1/runs/run_1/fork',
          { afterEventId: 7, settings: { strategy: 'plan', maxSteps: 3 } },
          '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          'csrf-1',
        ],
        ['POST', '/v1/runs/run_1/fork', { afterEventId: 4 }, undefined, 'csrf-1'],
      ],
    );
    await assert.rejects(client.fork('', { afterEventId: 4 }), /needs a run id/);
  });
});
