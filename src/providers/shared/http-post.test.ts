import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { isConnectionError } from './http-errors.ts';
import { ConnectionFailure } from './connection-failure.ts';
import type { HttpAnswer } from './http-answer.ts';
import { httpPostFor, postWithFetch } from './http-post.ts';
import { postWithUndici } from './post-with-undici.ts';
import { readText } from './read-body.ts';
import { rejection } from '../../../test/support/rejection.ts';
import { waitUntil } from '../../../test/support/wait-until.ts';

type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  nth: { request: number; onSocket: number },
) => void;

interface TestServer {
  url: string;
  connections: () => number;
  closed: () => number;
  close: () => Promise<void>;
}

const servers: TestServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
});

async function listen(
  server: Server,
  handler: Handler,
  host = '127.0.0.1',
  protocol: 'http' | 'https' = 'http',
): Promise<TestServer> {
  let connections = 0;
  let closed = 0;
  let requests = 0;
  const perSocket = new WeakMap<Socket, number>();
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => {
      closed += 1;
      sockets.delete(socket);
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests += 1;
    const onSocket = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, onSocket);
    const nth = { request: requests, onSocket };
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, res, body, nth));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  const test: TestServer = {
    url: `${protocol}://${shown}:${port}/v1/chat`,
    connections: () => connections,
    closed: () => closed,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(test);
  return test;
}

const serve = (handler: Handler, host?: string): Promise<TestServer> => listen(createServer(), handler, host);

/** Answers 200 with the pieces `next` gives until it gives none, writing only as fast as the client reads. */
function writeAsRead(res: ServerResponse, next: () => string | Buffer | undefined): void {
  res.writeHead(200);
  const more = (): void => {
    for (let piece = next(); piece !== undefined; piece = next()) {
      if (!res.write(piece)) {
        res.once('drain', more);
        return;
      }
    }
    res.end();
  };
  more();
}

const post = (
  url: string,
  over: { headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {},
): Promise<HttpAnswer> =>
  postWithUndici(url, {
    headers: over.headers ?? { 'content-type': 'application/json' },
    body: over.body ?? '{"hello":"wörld"}',
    signal: over.signal ?? new AbortController().signal,
  });

const text = (answer: HttpAnswer): Promise<string> => readText(answer, { maxBytes: 64 * 1024 * 1024 });

describe('postWithUndici', () => {
  it('sends the body with its byte length and the headers given, and reads status, headers and body', async () => {
    let seen:
      | { method: string | undefined; url: string | undefined; headers: IncomingMessage['headers']; body: string }
      | undefined;
    const server = await serve((req, res, body) => {
      seen = { method: req.method, url: req.url, headers: req.headers, body };
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-Request-Id': 'r-1' });
      res.end('{"ok":true}');
    });
    const answer = await post(`${server.url}?api-version=2`, {
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    });
    assert.equal(answer.status, 201);
    assert.equal(answer.ok, true);
    assert.equal(answer.headers.get('content-type'), 'application/json');
    assert.equal(answer.headers.get('X-REQUEST-ID'), 'r-1');
    assert.equal(answer.headers.get('set-cookie'), 'a=1, b=2');
    assert.equal(answer.headers.get('x-absent'), null);
    assert.equal(await text(answer), '{"ok":true}');
    assert.ok(seen !== undefined);
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, '/v1/chat?api-version=2');
    assert.equal(seen.body, '{"hello":"wörld"}');
    assert.equal(seen.headers['content-length'], String(Buffer.byteLength('{"hello":"wörld"}')));
    assert.equal(seen.headers['authorization'], 'Bearer k');
    assert.equal(seen.headers['user-agent'], 'toolgate');
  });

  it('keeps a user-agent that is given', async () => {
    let agent: string | undefined;
    const server = await serve((req, res) => {
      agent = req.headers['user-agent'];
      res.end('');
    });
    await text(await post(server.url, { headers: { 'user-agent': 'my-app/1.0' } }));
    assert.equal(agent, 'my-app/1.0');
  });

  it('answers an error status as an answer, not a failure', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(503, { 'retry-after': '2' });
      res.end('busy');
    });
    const answer = await post(server.url);
    assert.equal(answer.status, 503);
    assert.equal(answer.ok, false);
    assert.equal(answer.headers.get('Retry-After'), '2');
    assert.equal(await text(answer), 'busy');
  });

  it('reuses one connection for calls made one after the other, once each body is read', async () => {
    const server = await serve((_req, res, _body, nth) => res.end(`answer ${nth.request}`));
    // undici reuses a connection one event loop turn after its answer ended (a server that closes it
    // against its word is seen first): calls a turn apart share one, calls back to back take turns on two.
    for (let i = 1; i <= 5; i += 1) {
      assert.equal(await text(await post(server.url)), `answer ${i}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(server.connections(), 1);
    for (let i = 6; i <= 10; i += 1) assert.equal(await text(await post(server.url)), `answer ${i}`);
    assert.ok(server.connections() <= 2, `${server.connections()} connections for calls back to back`);
  });

  it('once undici is loaded, hands the request to it before returning (not a turn later)', async () => {
    const server = await serve((_req, res) => res.end('ok'));
    await text(await post(server.url));
    let handedOver = false;
    const onCreate = (message: unknown): void => {
      const request = (message as { request: { path?: unknown } }).request;
      if (String(request.path).startsWith('/v1/chat')) handedOver = true;
    };
    subscribe('undici:request:create', onCreate);
    try {
      const pending = post(server.url);
      // Work the caller queues for the check phase after this (a SQLite group commit) must not go ahead of it.
      assert.equal(handedOver, true);
      assert.equal(await text(await pending), 'ok');
    } finally {
      unsubscribe('undici:request:create', onCreate);
    }
  });

  it('speaks to an IPv6 address', async (t) => {
    let server: TestServer;
    try {
      server = await serve((_req, res) => res.end('six'), '::1');
    } catch {
      t.skip('this machine has no IPv6 loopback');
      return;
    }
    assert.match(server.url, /^http:\/\/\[::1\]:\d+\//);
    assert.equal(await text(await post(server.url)), 'six');
  });

  it('tries once more on a new connection when a reused one was closed by the server while idle', async () => {
    // The second request on any connection finds it closed, as when the server's idle timeout ran out just before it.
    const server = await serve((req, res, _body, nth) => {
      if (nth.onSocket > 1) {
        req.socket.destroy();
        return;
      }
      res.end(`answer ${nth.request}`);
    });
    assert.equal(await text(await post(server.url)), 'answer 1');
    // A turn later the pool hands the first connection out again.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await text(await post(server.url)), 'answer 3');
    assert.equal(server.connections(), 2);
  });

  it('does not try again when a new connection is reset: that is a ConnectionFailure for the retry loop', async () => {
    let requests = 0;
    const server = await serve((req) => {
      requests += 1;
      req.socket.destroy();
    });
    const error = await rejection(post(server.url));
    assert.ok(error instanceof ConnectionFailure, String(error));
    // undici's code for a connection the other side closed or reset mid-request.
    assert.equal(error.code, 'UND_ERR_SOCKET');
    assert.equal(isConnectionError(error), true);
    assert.equal(requests, 1);
  });

  it('reports a refused connection as a ConnectionFailure with its code', async () => {
    const server = await serve((_req, res) => res.end(''));
    const { url } = server;
    await server.close();
    const error = await rejection(post(url));
    assert.ok(error instanceof ConnectionFailure, String(error));
    assert.equal(error.code, 'ECONNREFUSED');
    assert.equal(isConnectionError(error), true);
  });

  it('decodes gzip, deflate and br bodies, as fetch does', async () => {
    const payload = JSON.stringify({ text: 'é'.repeat(5000) });
    const encoded: Record<string, Buffer> = {
      gzip: gzipSync(payload),
      'x-gzip': gzipSync(payload),
      deflate: deflateSync(payload),
      br: brotliCompressSync(payload),
    };
    const server = await serve((req, res) => {
      const encoding = String(req.headers['x-want']);
      res.writeHead(200, { 'content-encoding': encoding, 'content-type': 'application/json' });
      res.end(encoded[encoding]);
    });
    for (const encoding of Object.keys(encoded)) {
      assert.equal(await text(await post(server.url, { headers: { 'x-want': encoding } })), payload, encoding);
    }
  });

  it('fails a body that does not decode, naming its Content-Encoding', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end('this is not gzip');
    });
    const error = await rejection(post(server.url).then(text));
    assert.ok(error instanceof Error);
    assert.match(error.message, /could not be decoded \(Content-Encoding: gzip\)/);
    assert.equal(isConnectionError(error), false);
  });

  it('rejects with the signal reason when aborted before the answer, and closes the connection', async () => {
    let received = 0;
    const server = await serve(() => {
      received += 1;
    });
    const controller = new AbortController();
    const pending = post(server.url, { signal: controller.signal });
    await waitUntil(() => received === 1, 'the request');
    const reason = new Error('stop now');
    controller.abort(reason);
    assert.equal(await rejection(pending), reason);
    // A connection that carried the request is not used again: its answer may still come.
    await waitUntil(
      () => server.closed() >= 1 && server.closed() === server.connections(),
      'the server to see every connection closed',
    );
    assert.equal(received, 1);
  });

  it('rejects at once under a signal already aborted, sending nothing', async () => {
    const server = await serve((_req, res) => res.end(''));
    const controller = new AbortController();
    controller.abort(new Error('already'));
    const error = await rejection(post(server.url, { signal: controller.signal }));
    assert.equal((error as Error).message, 'already');
    assert.equal(server.connections(), 0);
  });

  it('cancelling a body ends a pending read and closes the connection', async () => {
    let received = 0;
    const server = await serve((_req, res) => {
      received += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const answer = await post(server.url);
    assert.ok(answer.body !== null);
    const reader = answer.body.getReader();
    const first = await reader.read();
    assert.equal(first.done, false);
    assert.equal(Buffer.from(first.value ?? new Uint8Array()).toString(), 'data: first\n\n');
    const pending = reader.read();
    await reader.cancel();
    assert.deepEqual(await pending, { done: true });
    assert.deepEqual(await reader.read(), { done: true });
    await waitUntil(
      () => server.closed() >= 1 && server.closed() === server.connections(),
      'the server to see every connection closed',
    );
    assert.equal(received, 1);
  });

  it('a connection that breaks in the middle of a body fails the read with a ConnectionFailure', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: partial\n\n', () => setTimeout(() => req.socket.destroy(), 20));
    });
    const answer = await post(server.url);
    const error = await rejection(text(answer));
    assert.ok(error instanceof ConnectionFailure, String(error));
    assert.equal(isConnectionError(error), true);
  });

  it('holds the body back while it is not read, so a large answer does not fill memory', async () => {
    const piece = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    let stopped = false;
    const server = await serve((_req, res) =>
      writeAsRead(res, () => {
        if (stopped || written >= 64 * 1024 * 1024) return undefined;
        written += piece.length;
        return piece;
      }),
    );
    const answer = await post(server.url);
    assert.ok(answer.body !== null);
    const reader = answer.body.getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const whileIdle = written;
    stopped = true;
    await reader.cancel();
    assert.ok(whileIdle < 16 * 1024 * 1024, `the server wrote ${whileIdle} bytes while nothing was read`);
  });

  it('a large body read slowly arrives whole, in order, after the connection was paused and resumed', async () => {
    const source = Array.from({ length: 100_000 }, (_, i) => `line ${i}\n`).join('');
    const server = await serve((_req, res) => {
      let at = 0;
      writeAsRead(res, () => {
        if (at >= source.length) return undefined;
        const part = source.slice(at, at + 7_777);
        at += part.length;
        return part;
      });
    });
    const answer = await post(server.url);
    assert.ok(answer.body !== null);
    const reader = answer.body.getReader();
    const decoder = new TextDecoder();
    let received = '';
    let reads = 0;
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      reads += 1;
      // Slower than the server: chunks queue up and the connection is paused between reads.
      if (reads % 4 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      received += decoder.decode(read.value, { stream: true });
    }
    assert.equal(received.length, source.length);
    assert.ok(received === source, 'the body read is not the body sent');
  });

  it('a body over the reader’s limit fails at the limit, after its connection was paused', async () => {
    const piece = Buffer.alloc(64 * 1024, 'x');
    const server = await serve((_req, res) => {
      let written = 0;
      writeAsRead(res, () => {
        if (written >= 32 * 1024 * 1024) return undefined;
        written += piece.length;
        return piece;
      });
    });
    const answer = await post(server.url);
    // Not read until the first chunks have queued: the connection is paused when reading starts.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const error = await rejection(
      readText(answer, { maxBytes: 256 * 1024, tooLarge: () => new Error('over the limit') }),
    );
    assert.equal((error as Error).message, 'over the limit');
  });

  it('refuses a URL with credentials without quoting them, and a URL that is not http(s)', async () => {
    const error = await rejection(post('http://user:s3cret@127.0.0.1:1/v1'));
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /holds credentials/);
    assert.doesNotMatch(error.message, /s3cret/);
    const other = await rejection(post('ftp://127.0.0.1/v1'));
    assert.match((other as Error).message, /only http: and https: URLs/);
  });

  it('refuses an invalid header value before sending anything', async () => {
    const server = await serve((_req, res) => res.end(''));
    const error = await rejection(post(server.url, { headers: { 'x-bad': 'line\nbreak' } }));
    assert.ok(error instanceof Error);
    assert.match(error.message, /x-bad/);
    assert.equal(isConnectionError(error), false);
    assert.equal(server.connections(), 0);
  });

  it('verifies the certificate of an https server', async () => {
    const tls = new URL('../../../test/fixtures/tls/', import.meta.url);
    const server = await listen(
      createHttpsServer({
        key: readFileSync(new URL('localhost-key.pem', tls)),
        cert: readFileSync(new URL('localhost-cert.pem', tls)),
      }),
      (_req, res) => res.end('secure'),
      '127.0.0.1',
      'https',
    );
    const error = await rejection(post(server.url));
    assert.ok(error instanceof ConnectionFailure, String(error));
    assert.match(String(error.code), /SELF_SIGNED|UNABLE_TO_VERIFY/);
  });
});

describe('httpPostFor', () => {
  it('uses undici by default and the fetch it is given otherwise', async () => {
    assert.equal(httpPostFor(undefined), postWithUndici);
    let called = 0;
    const fake: typeof fetch = async () => {
      called += 1;
      return new Response('from fetch', { status: 200 });
    };
    const answer = await httpPostFor(fake)('http://model.invalid/v1', {
      headers: {},
      body: '{}',
      signal: new AbortController().signal,
    });
    assert.equal(await text(answer), 'from fetch');
    assert.equal(called, 1);
  });

  it('a fetch that ignores its signal is still cut off when the signal aborts', async () => {
    const hanging: typeof fetch = () => new Promise(() => undefined);
    const controller = new AbortController();
    const pending = postWithFetch(hanging)('http://model.invalid/v1', {
      headers: {},
      body: '{}',
      signal: controller.signal,
    });
    controller.abort(new Error('timed out'));
    assert.equal(((await rejection(pending)) as Error).message, 'timed out');
  });
});

/** Runs a model call in a Node process of its own, with the environment given, and returns what it printed. */
function callInChild(
  env: Record<string, string>,
  url: string,
): Promise<{ code: number | null; out: string; err: string }> {
  const adapter = fileURLToPath(new URL('../openai/openai-adapter.ts', import.meta.url));
  const script = `
    const { createOpenAIAdapter } = await import(${JSON.stringify(adapter)});
    const model = createOpenAIAdapter({ model: 'm', baseUrl: ${JSON.stringify(url)}, maxRetries: 0, timeoutMs: 5000 });
    const answer = await model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [], stream: false });
    console.log(JSON.stringify(answer.text));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const completion = (content: string): string =>
  JSON.stringify({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });

describe('model calls in a process of their own', () => {
  it('go through the proxy named by HTTP_PROXY when NODE_USE_ENV_PROXY=1', async () => {
    const model = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(completion('through the proxy'));
    });
    // A proxy that tunnels CONNECT to the model server whatever host is asked for (model.invalid resolves nowhere), and
    // answers absolute-form requests itself.
    const asked: string[] = [];
    const proxyServer = createServer();
    proxyServer.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      asked.push(`${req.method} ${req.url}`);
      const upstream = connect(Number(new URL(model.url).port), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    const proxy = await listen(proxyServer, (req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(completion('through the proxy'));
    });
    const proxyUrl = new URL(proxy.url).origin;
    const result = await callInChild(
      { NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, NO_PROXY: '', no_proxy: '' },
      'http://model.invalid/v1',
    );
    assert.equal(result.code, 0, result.err);
    assert.equal(result.out.trim(), '"through the proxy"');
    assert.equal(asked.length, 1, asked.join('; '));
    assert.match(asked[0] ?? '', /^(?:CONNECT model\.invalid:80|POST http:\/\/model\.invalid\/v1\/chat\/completions)$/);
  });

  it('trust a certificate authority given by NODE_EXTRA_CA_CERTS over https', async () => {
    const tls = new URL('../../../test/fixtures/tls/', import.meta.url);
    const server = await listen(
      createHttpsServer({
        key: readFileSync(new URL('localhost-key.pem', tls)),
        cert: readFileSync(new URL('localhost-cert.pem', tls)),
      }),
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(completion('over tls'));
      },
      '127.0.0.1',
      'https',
    );
    const port = new URL(server.url).port;
    const result = await callInChild(
      { NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('localhost-cert.pem', tls)) },
      `https://localhost:${port}/v1`,
    );
    assert.equal(result.code, 0, result.err);
    assert.equal(result.out.trim(), '"over tls"');
  });
});
