import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import { loadConfig, parseConfig } from './load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-config-errors-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The "  - …" problem lines of a config error (the header and the docs pointer are checked once, below). */
function problems(raw: unknown): string[] {
  try {
    parseConfig(raw, { source: 'toolgate.yaml', env: {} });
  } catch (error) {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError, got ${String(error)}`);
    assert.equal(error.code, 'config_invalid');
    return error.message.split('\n').filter((line) => line.startsWith('  - ')).map((line) => line.slice(4));
  }
  assert.fail('expected a config error');
}

describe('config errors inside a server entry', () => {
  it('a misspelt key is named with its path and the key meant', () => {
    assert.deepEqual(problems({ servers: { pe: { comand: 'node', args: ['server.js'] } } }), ['servers.pe.comand: unknown key — did you mean "command"?']);
  });

  it('args given as one string says it must be a list and shows one', () => {
    const [line] = problems({ servers: { pe: { command: 'node', args: 'server.js --port 3000' } } });
    assert.equal(line, 'servers.pe.args: must be a list of strings, e.g. args: ["server.js", "--port", "3000"]');
  });

  it('names an entry with both command and url, or neither', () => {
    assert.deepEqual(problems({ servers: { pe: { command: 'node', url: 'http://127.0.0.1:3000/mcp' } } }), [
      'servers.pe: has both `command` (a stdio server) and `url` (an HTTP server); keep one of them',
    ]);
    const [neither] = problems({ servers: { pe: { args: ['server.js'] } } });
    assert.match(neither ?? '', /^servers\.pe: a server needs either `command` .* or `url` /);
  });

  it('reports problems from the branch the entry chose', () => {
    assert.deepEqual(problems({ servers: { pe: { command: 'node', headers: { a: 'b' }, env: { PORT: 3000 } } } }), [
      'servers.pe.env.PORT: must be a string; quote numbers and true/false, e.g. "3000"',
      'servers.pe.headers: belongs to HTTP servers (url); a stdio server (command) takes command, args, env, cwd, timeoutMs',
    ]);
    assert.deepEqual(problems({ servers: { remote: { url: '127.0.0.1:3000/mcp' } } }), ['servers.remote.url: must be an http(s) URL, e.g. url: http://127.0.0.1:3000/mcp']);
  });
});

describe('unknown keys anywhere', () => {
  it('suggest the closest key, at the top level without a path', () => {
    assert.deepEqual(problems({ modle: 'openai:x' }), ['modle: unknown key — did you mean "model"?']);
  });

  it('suggest the closest key in nested objects, records and lists', () => {
    assert.deepEqual(problems({ server: { prot: 8787 } }), ['server.prot: unknown key — did you mean "port"?']);
    assert.deepEqual(problems({ providers: { openai: { baseURL: 'http://localhost:11434/v1' } } }), ['providers.openai.baseURL: unknown key — did you mean "baseUrl"?']);
    assert.deepEqual(problems({ tools: { 'x/y': { aproval: 'never' } } }), ['tools.x/y.aproval: unknown key — did you mean "approval"?']);
    assert.deepEqual(problems({ tenants: { acme: { alow: ['x/*'], apiKeys: [{ key: 'key-12345678', usrId: 'u' }] } } }), [
      'tenants.acme.apiKeys.0.usrId: unknown key — did you mean "userId"?',
      'tenants.acme.alow: unknown key — did you mean "allow"?',
    ]);
  });

  it('list the known keys when none is close, one line per key', () => {
    assert.deepEqual(problems({ server: { zzzzqq: 1, port: 1, xqxqxq: 2 } }), [
      'server.zzzzqq: unknown key; known keys: port, host, store, sqliteSynchronous, poolSize, concurrency, queueLimit, leaseMs, heartbeatMs, sseBufferLimitBytes, sseIdleTimeoutMs, sseHistoryTimeoutMs, ssePollMs, shutdownGraceMs, toolStartTimeoutMs, toolRetryMaxDelayMs, metricsPort, metricsHost, cors, sessionSecret, sessionTtlSeconds',
      'server.xqxqxq: unknown key; known keys: port, host, store, sqliteSynchronous, poolSize, concurrency, queueLimit, leaseMs, heartbeatMs, sseBufferLimitBytes, sseIdleTimeoutMs, sseHistoryTimeoutMs, ssePollMs, shutdownGraceMs, toolStartTimeoutMs, toolRetryMaxDelayMs, metricsPort, metricsHost, cors, sessionSecret, sessionTtlSeconds',
    ]);
  });

  it('keeps the header naming the file and points to the docs', () => {
    const file = join(dir, 'typo.yaml');
    writeFileSync(file, 'modle: openai:x\n');
    assert.throws(
      () => loadConfig({ file, cwd: dir, env: {} }),
      (error: unknown) => {
        assert.ok(error instanceof ToolgateError);
        assert.equal(error.code, 'config_invalid');
        assert.equal(error.message.split('\n')[0], `${file} is not a valid toolgate config:`);
        assert.equal(error.message.split('\n')[1], '  - modle: unknown key — did you mean "model"?');
        assert.match(error.message, /docs\/configuration\.md/);
        return true;
      },
    );
  });
});

describe('providers.openai.baseUrl in the file', () => {
  it('must be an absolute http(s) URL', () => {
    for (const baseUrl of ['localhost:11434/v1', 'api.example.com']) {
      assert.deepEqual(problems({ providers: { openai: { baseUrl } } }), [
        'providers.openai.baseUrl: must start with http:// or https://, e.g. http://localhost:11434/v1',
      ]);
    }
    assert.deepEqual(problems({ providers: { openai: { baseUrl: 'http://' } } }), ['providers.openai.baseUrl: is not a valid URL, e.g. http://localhost:11434/v1']);
  });

  it('accepts http and https URLs', () => {
    for (const baseUrl of ['http://localhost:11434/v1', 'https://api.example.com/v1', 'HTTPS://openrouter.ai/api/v1']) {
      assert.equal(parseConfig({ providers: { openai: { baseUrl } } }, { env: {} }).providers?.openai?.baseUrl, baseUrl);
    }
  });
});
