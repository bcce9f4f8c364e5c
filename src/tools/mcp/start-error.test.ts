import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeStartError, meaningfulStderrLine } from './start-error.ts';

// Captured from Node 24, Python 3 and Go as they print them.
const NODE_MODULE_NOT_FOUND = `node:internal/modules/cjs/loader:1568
  throw err;
  ^

Error: Cannot find module '/x/server.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1564:15)
    at wrapResolveFilename (node:internal/modules/cjs/loader:1118:27)
    at defaultResolveImplForCJSLoading (node:internal/modules/cjs/loader:1142:10)
    at resolveForCJSWithHooks (node:internal/modules/cjs/loader:1169:12)
    at Module._load (node:internal/modules/cjs/loader:1341:5)
    at wrapModuleLoad (node:internal/modules/cjs/loader:261:19)
    at Module.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:154:5)
    at node:internal/main/run_main_module:33:47 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v24.21.0`;

const NODE_THROWN = `file:///srv/mcp/server.mjs:3
throw new Error('boom');
      ^

Error: boom
    at file:///srv/mcp/server.mjs:3:7
    at ModuleJob.run (node:internal/modules/esm/module_job:561:25)
    at async node:internal/modules/esm/loader:647:26
    at async asyncRunEntryPointWithESMLoader (node:internal/modules/run_main:101:5)

Node.js v24.21.0`;

const NODE_PACKAGE_NOT_FOUND = `node:internal/modules/package_json_reader:331
  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);
        ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find package '@modelcontextprotocol/server' imported from /srv/mcp/server.mjs
    at Object.getPackageJSONURL (node:internal/modules/package_json_reader:331:9)
    at packageResolve (node:internal/modules/esm/resolve:784:25) {
  code: 'ERR_MODULE_NOT_FOUND'
}

Node.js v24.21.0`;

const NODE_SYNTAX_ERROR = `/srv/mcp/server.js:2
const x = ;
          ^

SyntaxError: Unexpected token ';'
    at wrapSafe (node:internal/modules/cjs/loader:1861:18)
    at Module._compile (node:internal/modules/cjs/loader:1903:20)
    at node:internal/main/run_main_module:33:47

Node.js v24.21.0`;

const PYTHON = `Traceback (most recent call last):
  File "/srv/server.py", line 1, in <module>
    import mcp
ModuleNotFoundError: No module named 'mcp'`;

const GO_PANIC = `panic: open config.json: no such file or directory

goroutine 1 [running]:
main.main()
	/src/main.go:12 +0x1d`;

const WITH_WARNING = `(node:4242) ExperimentalWarning: Type Stripping is an experimental feature
(Use \`node --trace-warnings ...\` to show where the warning was created)
listening on stdio, loading 3 tools
Error: DATABASE_URL is not set`;

describe('meaningfulStderrLine', () => {
  const lines = (text: string): string[] => text.split('\n');
  it('finds the error headline, not the tail of a stack trace', () => {
    assert.equal(meaningfulStderrLine(lines(NODE_MODULE_NOT_FOUND)), "Error: Cannot find module '/x/server.js'");
    assert.equal(meaningfulStderrLine(lines(NODE_THROWN)), 'Error: boom');
    assert.equal(
      meaningfulStderrLine(lines(NODE_PACKAGE_NOT_FOUND)),
      'Error [ERR_MODULE_NOT_FOUND]: Cannot find package ' +
        "'@modelcontextprotocol/server' imported from /srv/mcp/server.mjs",
    );
    assert.equal(meaningfulStderrLine(lines(NODE_SYNTAX_ERROR)), "SyntaxError: Unexpected token ';'");
    assert.equal(meaningfulStderrLine(lines(PYTHON)), "ModuleNotFoundError: No module named 'mcp'");
    assert.equal(meaningfulStderrLine(lines(GO_PANIC)), 'panic: open config.json: no such file or directory');
    assert.equal(meaningfulStderrLine(lines(WITH_WARNING)), 'Error: DATABASE_URL is not set');
  });

  it('without a headline, the first line that is not noise; nothing for an empty stderr', () => {
    assert.equal(meaningfulStderrLine(['', 'port 3000 is taken', '    at listen (net.js:1:1)']), 'port 3000 is taken');
    assert.equal(meaningfulStderrLine([]), undefined);
    assert.equal(meaningfulStderrLine(['', '   ']), undefined);
  });

  it('keeps a hostile line to one bounded line without control characters', () => {
    const line = meaningfulStderrLine([`Error: ${'x'.repeat(5000)}\u001b[31m\u0007`]) ?? '';
    assert.ok(line.length <= 301, String(line.length));
    // eslint-disable-next-line no-control-regex -- no control character may survive
    assert.doesNotMatch(line, /[\u0000-\u001f]/);
  });
});

describe('describeStartError', () => {
  const closed = Object.assign(new Error('Connection closed'), { code: 'CONNECTION_CLOSED' });

  it('names network failures by code and address, walking the cause chain', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3000'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 3000,
    });
    const result = describeStartError({
      error: new TypeError('fetch failed', { cause: refused }),
      server: 'crm',
      stderr: [],
      timeoutMs: 1000,
    });
    assert.deepEqual(result, {
      reason: 'refused',
      cause: 'ECONNREFUSED 127.0.0.1:3000 (connection refused: nothing listens there)',
      hint: 'Check servers.crm.url in your config and that the server is running',
    });
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND mcp.internal'), {
      code: 'ENOTFOUND',
      hostname: 'mcp.internal',
    });
    assert.equal(
      describeStartError({ error: new TypeError('fetch failed', { cause: dns }), stderr: [], timeoutMs: 1000 }).cause,
      'ENOTFOUND mcp.internal (host not found)',
    );
  });

  it(
    'an HTTP refusal gives status and body; 401/403 are ' + 'named as authentication failures pointing at the headers',
    () => {
      const http = (status: number, text: string): Error =>
        Object.assign(new Error(`Error POSTing to endpoint: ${text}`), { data: { status, statusText: '', text } });
      const notFound = describeStartError({
        error: http(404, 'no route /mcp'),
        server: 'crm',
        stderr: [],
        timeoutMs: 1,
      });
      assert.deepEqual(notFound, {
        reason: 'http_status',
        cause: 'the server answered HTTP 404: no route /mcp',
        hint: "Check servers.crm.url in your config: it must be the server's MCP endpoint",
      });
      assert.match(
        describeStartError({ error: http(502, 'bad gateway'), server: 'crm', stderr: [], timeoutMs: 1 }).hint,
        /failed on its side/,
      );
      const denied = describeStartError({ error: http(403, 'forbidden'), server: 'crm', stderr: [], timeoutMs: 1 });
      assert.deepEqual(denied, {
        reason: 'auth',
        cause: 'access denied (HTTP 403: forbidden)',
        hint: 'Check servers.crm.headers in your config (e.g. the Authorization header)',
      });
      assert.equal(
        describeStartError({ error: http(401, ''), stderr: [], timeoutMs: 1 }).cause,
        'authentication failed (HTTP 401)',
      );
      const unauthorized = Object.assign(new Error('Unauthorized'), { name: 'UnauthorizedError' });
      assert.equal(describeStartError({ error: unauthorized, stderr: [], timeoutMs: 1 }).reason, 'auth');
      const html = Object.assign(new Error('Unexpected content type: text/html'), {
        code: 'CLIENT_HTTP_UNEXPECTED_CONTENT',
      });
      assert.equal(describeStartError({ error: html, stderr: [], timeoutMs: 1 }).reason, 'protocol');
    },
  );

  it('a command that does not exist or cannot be run says so', () => {
    const enoent = Object.assign(new Error('spawn crm-server ENOENT'), { code: 'ENOENT' });
    const missing = describeStartError({
      error: enoent,
      server: 'crm',
      command: 'crm-server',
      stderr: [],
      timeoutMs: 1,
    });
    assert.deepEqual(missing, {
      reason: 'command_not_found',
      cause: 'command not found: crm-server (is it installed and on PATH?)',
      hint: 'Check servers.crm.command in your config: install the program or give its full path',
    });
    const eacces = Object.assign(new Error('spawn ./server.sh EACCES'), { code: 'EACCES' });
    assert.equal(
      describeStartError({ error: eacces, command: './server.sh', stderr: [], timeoutMs: 1 }).reason,
      'not_executable',
    );
  });

  it('a server that died: how it exited and the line of stderr that says why', () => {
    const died = describeStartError({
      error: closed,
      command: 'node',
      stderr: NODE_MODULE_NOT_FOUND.split('\n'),
      exit: { code: 1, signal: null },
      timeoutMs: 1,
    });
    assert.equal(died.reason, 'exited');
    assert.equal(
      died.cause,
      "the server exited with code 1 before answering the MCP handshake: Error: Cannot find module '/x/server.js'",
    );
    const killed = describeStartError({
      error: closed,
      command: 'node',
      stderr: [],
      exit: { code: null, signal: 'SIGKILL' },
      timeoutMs: 1,
    });
    assert.equal(killed.cause, 'the server was killed by SIGKILL before answering the MCP handshake');
  });

  it('text on stdout that is not JSON-RPC is quoted; a crash on stderr still explains a death better', () => {
    const banner = describeStartError({
      error: closed,
      command: 'node',
      stderr: [],
      stdoutNoise: 'Starting CRM server on stdio...',
      exit: { code: 0, signal: null },
      timeoutMs: 1,
    });
    assert.equal(banner.reason, 'protocol');
    assert.equal(
      banner.cause,
      'the server wrote something that is not MCP JSON-RPC on ' +
        'stdout: "Starting CRM server on stdio..." and exited with code 0',
    );
    assert.match(banner.hint, /must write only JSON-RPC on stdout/);
    const timeout = Object.assign(new Error('Request timed out'), { code: 'REQUEST_TIMEOUT' });
    assert.equal(
      describeStartError({ error: timeout, command: 'node', stderr: [], stdoutNoise: 'ready>', timeoutMs: 1 }).reason,
      'protocol',
    );
    const crashed = describeStartError({
      error: closed,
      command: 'node',
      stderr: NODE_THROWN.split('\n'),
      stdoutNoise: 'starting',
      exit: { code: 1, signal: null },
      timeoutMs: 1,
    });
    assert.equal(crashed.cause, 'the server exited with code 1 before answering the MCP handshake: Error: boom');
  });

  it('a server that never answers: the handshake timeout, with what it printed', () => {
    const timeout = Object.assign(new Error('Request timed out'), { code: 'REQUEST_TIMEOUT' });
    const silent = describeStartError({
      error: timeout,
      command: 'node',
      stderr: ['Waiting for the database at db:5432'],
      timeoutMs: 20000,
    });
    assert.deepEqual(
      [silent.reason, silent.cause],
      ['timeout', 'did not answer the MCP handshake within 20000 ms (stderr: Waiting for the database at db:5432)'],
    );
  });
});
