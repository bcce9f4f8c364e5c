// HTTP edge cases against a real `toolgate serve` and the MCP face of a real
// `toolgate gateway`, over real sockets: a body over the limit gets a 413 the
// client reads (whether it announced its length or not) instead of a reset;
// bytes that are not UTF-8 get a 400 naming their offset, never stored as
// U+FFFD; HEAD answers on /healthz and /readyz as GET does, without a body.
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startGateway, type RunningGateway } from '../support/gateway.ts';
import { startServe, type StartedProcess } from '../support/processes.ts';

const ECHO_SERVER = fileURLToPath(new URL('../fixtures/mcp/meta-echo-server.ts', import.meta.url));
/** server.maxBodyBytes of the serve process. */
const LIMIT = 256 * 1024;
/** The gateway's limit for one MCP message (MAX_MCP_BODY_BYTES). */
const MCP_LIMIT = 4 * 1024 * 1024;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The socket the answer came on (to see whether the next request reuses it). */
  socket: unknown;
}

/**
 * POSTs `body` with node:http, written in 64 KiB pieces as the socket takes
 * them; `announce` sends Content-Length, else the body is chunked. Rejects
 * with the socket error when the client does not get to read an answer.
 */
function post(
  url: string,
  options: { path: string; body: Buffer; announce: boolean; agent?: Agent; headers?: Record<string, string> },
): Promise<Answer> {
  const target = new URL(options.path, url);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        ...(options.agent === undefined ? {} : { agent: options.agent }),
        headers: {
          'content-type': 'application/json',
          ...(options.announce ? { 'content-length': String(options.body.length) } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, socket: res.socket }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const piece = 64 * 1024;
    let at = 0;
    const write = (): void => {
      while (at < options.body.length) {
        const chunk = options.body.subarray(at, at + piece);
        at += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

/** A JSON body of `bytes` bytes: {"input": "aaa…"}. */
function bigBody(bytes: number): Buffer {
  const head = '{"input":"';
  return Buffer.concat([Buffer.from(head), Buffer.alloc(bytes - head.length - 2, 'a'), Buffer.from('"}')]);
}

/**
 * Sends raw bytes on a new TCP connection and returns everything read until the server closes it or `until` matches.
 */
function rawExchange(url: string, bytes: Buffer, until: RegExp): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (until.test(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('end', () => resolve(text));
    socket.on('error', (error) => (text === '' ? reject(error) : resolve(text)));
    socket.write(bytes);
  });
}

describe('HTTP edge cases (toolgate serve, toolgate gateway)', { timeout: 60_000 }, () => {
  let dir: string;
  let serve: StartedProcess & { url: string };
  let gateway: RunningGateway;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-http-edges-'));
    const node = JSON.stringify(process.execPath);
    // A model, so that a body the server took would become a run.
    writeFileSync(join(dir, 'script.json'), JSON.stringify({ turns: [{ text: 'ok' }] }));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: scripted:./script.json\nserver:\n  store: "memory:"\n  maxBodyBytes: ${LIMIT}\n`,
    );
    writeFileSync(
      join(dir, 'gateway.yaml'),
      `servers:\n  echo:\n    command: ${node}\n    args: [${JSON.stringify(ECHO_SERVER)}]\n`,
    );
    [serve, gateway] = await Promise.all([
      startServe({ cwd: dir }),
      startGateway({ config: join(dir, 'gateway.yaml'), store: 'memory:', cwd: dir }),
    ]);
  });

  after(async () => {
    await Promise.all([serve?.stop(), gateway?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'a body over server.maxBodyBytes gets a readable 413 naming the limit ' +
      'and the key, announced or not, and the connection serves the next request',
    async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (const announce of [true, false]) {
          const refused = await post(serve.url, { path: '/v1/runs', body: bigBody(8 * LIMIT), announce, agent });
          assert.equal(refused.status, 413, `announce=${announce}: ${refused.body}`);
          assert.deepEqual(JSON.parse(refused.body), {
            error: {
              code: 'usage',
              message:
                `request body is larger than ${LIMIT} bytes (server.maxBodyBytes): ` +
                `send a smaller body, or raise server.maxBodyBytes`,
            },
          });
          // The whole body was read: the connection is kept and the next request is served on it.
          assert.notEqual(refused.headers['connection'], 'close');
          const next = await post(serve.url, {
            path: '/v1/runs/nope/cancel',
            body: Buffer.from('{}'),
            announce: true,
            agent,
          });
          assert.equal(next.status, 404, next.body);
          assert.equal(next.socket, refused.socket, 'the next request went over the same connection');
        }
      } finally {
        agent.destroy();
      }
    },
  );

  it('a raw client announcing a body over the limit reads the 413 before anything is reset', async () => {
    const body = bigBody(4 * LIMIT);
    const head =
      `POST /v1/runs HTTP/1.1\r\nHost: localhost\r\nContent-Type: ` +
      `application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const answer = await rawExchange(serve.url, Buffer.concat([Buffer.from(head), body]), /\r\n\r\n\{.*\}\}$/s);
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /request body is larger than 262144 bytes \(server\.maxBodyBytes\)/);
  });

  it('a body that is not UTF-8 is a 400 naming the byte offset, and nothing is stored', async () => {
    // "café" in Latin-1: 0xe9 at offset 13 is no UTF-8.
    const body = Buffer.concat([Buffer.from('{"input":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const refused = await post(serve.url, { path: '/v1/runs', body, announce: true });
    assert.equal(refused.status, 400, refused.body);
    assert.deepEqual(JSON.parse(refused.body), {
      error: {
        code: 'usage',
        message: 'request body is not valid UTF-8 at byte offset 13 (0xe9): send the JSON encoded as UTF-8',
      },
    });
    // A truncated sequence and an overlong form are named where they start.
    for (const [bytes, offset, byte] of [
      [[0xe2, 0x82], 10, 'e2'],
      [[0xc0, 0xaf], 10, 'c0'],
      [[0xed, 0xa0, 0x80], 10, 'ed'],
    ] as const) {
      const bad = await post(serve.url, {
        path: '/v1/runs',
        body: Buffer.concat([Buffer.from('{"input":"'), Buffer.from(bytes), Buffer.from('"}')]),
        announce: true,
      });
      assert.equal(bad.status, 400);
      assert.match(JSON.parse(bad.body).error.message, new RegExp(`at byte offset ${offset} \\(0x${byte}\\)`));
    }
    const runs = (await (await fetch(`${serve.url}/v1/runs`)).json()) as { runs: unknown[] };
    assert.deepEqual(runs.runs, [], 'no run was created from a body that is not UTF-8');
    // Real UTF-8 (with a U+FFFD the client meant) is taken as it is.
    const ok = await fetch(`${serve.url}/v1/runs/nope/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"reason":"café \uFFFD"}',
    });
    assert.equal(ok.status, 404);
  });

  it('HEAD /healthz and /readyz answer with the status and headers of GET, without a body', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const get = await fetch(`${serve.url}${path}`);
      const text = await get.text();
      const head = await fetch(`${serve.url}${path}`, { method: 'HEAD' });
      assert.equal(head.status, get.status, path);
      assert.equal(head.headers.get('content-type'), get.headers.get('content-type'), path);
      assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(text)), path);
      assert.equal(await head.text(), '', path);
    }
    const other = await fetch(`${serve.url}/v1/runs`, { method: 'HEAD' });
    assert.equal(other.status, 405, 'HEAD is answered only where it is offered');
  });

  it(
    'the gateway MCP face answers an oversized body with a readable ' +
      '413 and bytes that are not UTF-8 with a 400 naming the offset',
    async () => {
      const mcpHeaders = { accept: 'application/json, text/event-stream' };
      const envelope = (text: Buffer): Buffer =>
        Buffer.concat([
          Buffer.from(
            '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echoMeta","arguments":{"text":"',
          ),
          text,
          Buffer.from('"}}}'),
        ]);
      for (const announce of [true, false]) {
        const refused = await post(gateway.url, {
          path: '/mcp',
          body: envelope(Buffer.alloc(2 * MCP_LIMIT, 'a')),
          announce,
          headers: mcpHeaders,
        });
        assert.equal(refused.status, 413, `announce=${announce}`);
        const error = JSON.parse(refused.body) as { error: { code: number; message: string } };
        assert.deepEqual(error.error, {
          code: -32600,
          message: `the request body is larger than ${MCP_LIMIT} bytes, the gateway's limit for one MCP message`,
        });
      }
      const notUtf8 = await post(gateway.url, {
        path: '/mcp',
        body: envelope(Buffer.from([0x61, 0xff, 0x62])),
        announce: true,
        headers: mcpHeaders,
      });
      assert.equal(notUtf8.status, 400);
      const offset = envelope(Buffer.alloc(0)).indexOf('"}}}') + 1;
      assert.deepEqual((JSON.parse(notUtf8.body) as { error: unknown }).error, {
        code: -32700,
        message: `the request body is not valid UTF-8 at byte offset ${offset} (0xff): send the JSON encoded as UTF-8`,
      });
    },
  );
});
