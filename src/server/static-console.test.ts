import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { CONSOLE_CSP } from './static-console.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';

const root = mkdtempSync(join(tmpdir(), 'toolgate-console-'));
const dir = join(root, 'console');
after(() => rmSync(root, { recursive: true, force: true }));

/** A GET with the path exactly as written: fetch would resolve `..` and `%2e%2e` before sending. */
function rawGet(
  url: string,
  path: string,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request({ host: target.hostname, port: target.port, method, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the browser console’s files', () => {
  let server: TestServer;
  before(async () => {
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1);');
    writeFileSync(join(dir, 'assets', 'app.css'), 'body{}');
    writeFileSync(join(dir, 'logo.svg'), '<svg/>');
    writeFileSync(join(dir, 'app.js.map'), '{}');
    writeFileSync(join(dir, 'font.woff2'), 'w');
    writeFileSync(join(dir, '.env'), 'SECRET=1');
    writeFileSync(join(root, 'secret.txt'), 'outside');
    symlinkSync(join(root, 'secret.txt'), join(dir, 'link.txt'));
    server = await startTestServer(new MemoryRunStore(), {
      apiKeys: [{ key: 'key-acme-0123456789', tenantId: 'acme' }],
      consoleDir: dir,
    });
  });
  after(() => server.close());

  it('serves index.html at / with the security headers and the CSP, without a key', async () => {
    const response = await fetch(`${server.url}/`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), '<!doctype html><title>console</title>');
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(response.headers.get('content-security-policy'), CONSOLE_CSP);
    assert.equal(
      CONSOLE_CSP,
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    const head = await rawGet(server.url, '/', 'HEAD');
    assert.deepEqual([head.status, head.body, head.headers['content-length']], [200, '', '37']);
  });

  it('serves /console/<file> and one subfolder with their content types', async () => {
    const expected: [string, string][] = [
      ['/console/assets/app.js', 'text/javascript; charset=utf-8'],
      ['/console/assets/app.css', 'text/css; charset=utf-8'],
      ['/console/logo.svg', 'image/svg+xml'],
      ['/console/app.js.map', 'application/json; charset=utf-8'],
      ['/console/font.woff2', 'font/woff2'],
      ['/console/index.html', 'text/html; charset=utf-8'],
    ];
    for (const [path, type] of expected) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('content-type'), type, path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(response.headers.get('cache-control'), 'no-cache', path);
      assert.equal(response.headers.get('content-security-policy') !== null, path.endsWith('.html'), path);
    }
    assert.equal(await (await fetch(`${server.url}/console/assets/app.js`)).text(), 'console.log(1);');
  });

  it(
    'refuses traversal, encodings, dotfiles, deeper folders, ' + 'symlinks out and missing files with the JSON 404',
    async () => {
      for (const path of [
        '/console/../package.json',
        '/console/%2e%2e/package.json',
        '/console/%2E%2E%2Fpackage.json',
        '/console/assets/../../secret.txt',
        '/console/..',
        '/console/.env',
        '/console/./index.html',
        '/console/a/b/c.js',
        '/console/link.txt',
        '/console/missing.js',
        '/console/assets',
        '/console/',
      ]) {
        const response = await rawGet(server.url, path);
        assert.equal(response.status, 404, path);
        assert.match(String(response.headers['content-type']), /^application\/json/, path);
        assert.equal((JSON.parse(response.body) as { error: { code: string } }).error.code, 'not_found', path);
        assert.doesNotMatch(response.body, /SECRET|outside|"name"/, path);
      }
    },
  );

  it('leaves the API as it is', async () => {
    assert.equal((await fetch(`${server.url}/v1/runs`)).status, 401);
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const post = await fetch(`${server.url}/`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });
});

describe('the console when it is not built, or not served', () => {
  it('answers / with 503 and how to build it when the folder has no index.html', async () => {
    const empty = join(root, 'empty');
    mkdirSync(empty, { recursive: true });
    const server = await startTestServer(new MemoryRunStore(), { consoleDir: empty });
    try {
      const response = await fetch(`${server.url}/`);
      assert.equal(response.status, 503);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await response.text(), /console is not built.*npm run build/s);
      assert.equal((await fetch(`${server.url}/console/app.js`)).status, 404);
    } finally {
      await server.close();
    }
  });

  it('without consoleDir, / and /console/ are the usual JSON 404', async () => {
    const server = await startTestServer(new MemoryRunStore());
    try {
      for (const path of ['/', '/console/index.html']) {
        const response = await fetch(`${server.url}${path}`);
        assert.equal(response.status, 404, path);
        assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'not_found');
      }
    } finally {
      await server.close();
    }
  });
});
