// Guessing API keys against a real `toolgate serve`: wrong keys (bearer and
// POST /v1/session) are answered 429 with a growing Retry-After once an address
// has used its free failures, while the right key from another address (the
// client socket bound to 127.0.0.2, …) still works; the failures are logged and
// counted in /metrics; and two instances on one PostgreSQL share the counts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';
import { startServe, type StartedProcess } from '../support/processes.ts';

const KEY = 'acme-key-0123456789';
/** Wrong keys that start like the right one: a guesser aiming at it. */
const guess = (n: number): string => `acme-key-guess-${n}`;

interface Answer {
  status: number;
  retryAfter: number | undefined;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** One request from a chosen loopback address (the client socket is bound to it). */
function call(
  base: string,
  options: { from: string; path?: string; key?: string; method?: string; body?: unknown },
): Promise<Answer> {
  const url = new URL(options.path ?? '/v1/runs', base);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        localAddress: options.from,
        headers: {
          ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }),
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const retry = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: retry === undefined ? undefined : Number(retry),
            body: text,
            headers: res.headers,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Asks until `check` holds, every 100 ms (a backoff that ends is waited for, never slept through blindly). */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function config(store: string): string {
  return `tenants:
  acme:
    apiKeys: ["${KEY}"]
server:
  store: ${store}
  authBackoff: { freeFailures: 2, baseDelayMs: 1000, maxDelayMs: 60000 }
`;
}

describe('failed authentications slow the guesser (toolgate serve)', () => {
  let dir: string;
  let server: StartedProcess & { url: string };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-auth-'));
    writeFileSync(join(dir, 'toolgate.yaml'), config('sqlite:./runs.db'));
    server = await startServe({ cwd: dir });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'wrong bearer keys get 401, then 429 with a Retry-After that ' +
      'grows; the right key from another address still gets 200',
    async () => {
      const from = '127.0.0.1';
      assert.equal((await call(server.url, { from, key: guess(1) })).status, 401);
      assert.equal((await call(server.url, { from, key: guess(2) })).status, 401);
      const third = await call(server.url, { from, key: guess(3) });
      assert.equal(third.status, 429, third.body);
      assert.equal(third.retryAfter, 1);
      const error = (JSON.parse(third.body) as { error: { code: string; message: string } }).error;
      assert.equal(error.code, 'rate_limited');
      assert.match(error.message, /too many failed authentications from your address: retry after 1 s/);

      // The key's own prefix is under attack, yet its owner, elsewhere, is served.
      assert.equal((await call(server.url, { from: '127.0.0.2', key: KEY })).status, 200);
      // The locked address is refused whatever it presents: a right guess must not look different from a wrong one.
      const locked = await call(server.url, { from, key: KEY });
      assert.equal(locked.status, 429);
      // Once its wait is over, the right key works from there again; the next wrong one waits twice as long.
      await until('the first wait to end', async () => (await call(server.url, { from, key: KEY })).status === 200);
      const fourth = await call(server.url, { from, key: guess(4) });
      assert.equal(fourth.status, 429);
      assert.equal(fourth.retryAfter, 2, 'each failure past the free ones doubles the wait');
    },
  );

  it(
    'an address that failed gets no more tries at a prefix ' +
      'many guesses aimed at; a fresh address still has its own',
    async () => {
      // The prefix "acme-key" is past its free failures (the test above); 127.0.0.3 has not failed yet: its guess is
      // compared.
      assert.equal((await call(server.url, { from: '127.0.0.3', key: guess(5) })).status, 401);
      const again = await call(server.url, { from: '127.0.0.3', key: guess(6) });
      assert.equal(again.status, 429);
      assert.match(again.body, /keys that start like this one, and your address has failed too/);
      assert.equal(
        (await call(server.url, { from: '127.0.0.3', key: 'other-prefix-key' })).status,
        401,
        'a key that starts otherwise is compared',
      );
    },
  );

  it(
    'POST /v1/session the same: wrong keys get 401, then 429 ' +
      'with Retry-After; the right key signs in from another address',
    async () => {
      const signIn = (from: string, apiKey: string) =>
        call(server.url, { from, path: '/v1/session', body: { apiKey } });
      assert.equal((await signIn('127.0.0.4', 'globex-guess-1')).status, 401);
      assert.equal((await signIn('127.0.0.4', 'globex-guess-2')).status, 401);
      const refused = await signIn('127.0.0.4', 'globex-guess-3');
      assert.equal(refused.status, 429);
      assert.equal(refused.retryAfter, 1);
      const signedIn = await signIn('127.0.0.5', KEY);
      assert.equal(signedIn.status, 200, signedIn.body);
      assert.match(String(signedIn.headers['set-cookie']), /toolgate_session=/);
    },
  );

  it('logs each failure and counts failures and refusals in /metrics', async () => {
    const metrics = await call(server.url, { from: '127.0.0.6', path: '/metrics', key: KEY });
    assert.equal(metrics.status, 200);
    const value = (name: string, label: string): number =>
      Number(new RegExp(`^${name}\\{${label}\\} (\\d+)`, 'm').exec(metrics.body)?.[1] ?? 0);
    assert.ok(value('toolgate_auth_failures_total', 'via="bearer"') >= 6, metrics.body);
    assert.ok(value('toolgate_auth_failures_total', 'via="sign_in"') >= 3);
    assert.ok(value('toolgate_auth_throttled_total', 'limit="address"') >= 4);
    assert.ok(value('toolgate_auth_throttled_total', 'limit="key_prefix"') >= 1);
    assert.match(server.output(), /failed authentication/);
    assert.match(server.output(), /127\.0\.0\.4/);
    assert.doesNotMatch(server.output(), /acme-key-guess/, 'the log names a key by its first characters only');
  });
});

describe('two instances on one PostgreSQL share the count of failed authentications', { skip: postgresSkip() }, () => {
  const databases: string[] = [];
  let dir: string;
  let servers: (StartedProcess & { url: string })[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-auth-pg-'));
    writeFileSync(join(dir, 'toolgate.yaml'), config(await createDatabase('toolgate_auth', databases)));
    servers = [await startServe({ cwd: dir })];
    servers.push(await startServe({ cwd: dir }));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const name of databases) await dropDatabase(name);
    rmSync(dir, { recursive: true, force: true });
  });

  it('failures at one instance make the address wait at the other', async () => {
    const [one, two] = servers;
    assert.ok(one !== undefined && two !== undefined);
    const from = '127.0.0.7';
    assert.equal((await call(one.url, { from, key: 'wrong-key-000001' })).status, 401);
    assert.equal((await call(two.url, { from, key: 'wrong-key-000002' })).status, 401);
    assert.equal(
      (await call(one.url, { from, key: 'wrong-key-000003' })).status,
      429,
      'the third failure, counted across both',
    );
    const elsewhere = await call(two.url, { from, key: KEY });
    assert.equal(elsewhere.status, 429, 'the other instance makes the address wait too');
    assert.equal((await call(two.url, { from: '127.0.0.8', key: KEY })).status, 200);
  });
});
