import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeStartError, meaningfulStderrLine } from './start-error.ts';

// As Node 24 prints them.
const NODE_MODULE_NOT_FOUND = `node:internal/modules/cjs/loader:1413
  throw err;
  ^

Error: Cannot find module '/x/server.js'
    at Function._resolveFilename (node:internal/modules/cjs/loader:1410:15)
    at defaultResolveImpl (node:internal/modules/cjs/loader:1051:19)
    at node:internal/main/run_main_module:33:47 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v24.21.0`;

const NODE_SYNTAX_ERROR = `/srv/mcp/server.js:3
const x = ;
          ^

SyntaxError: Unexpected token ';'
    at wrapSafe (node:internal/modules/cjs/loader:1486:18)

Node.js v24.21.0`;

const PYTHON = `Traceback (most recent call last):
  File "/srv/server.py", line 1, in <module>
    from mcp.server.fastmcp import FastMCP
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
  it('names network failures by code and address, walking the cause chain', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3000'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 3000 });
    const result = describeStartError({ error: new TypeError('fetch failed', { cause: refused }), stderr: [], timeoutMs: 1000 });
    assert.deepEqual(result, { reason: 'refused', cause: 'ECONNREFUSED 127.0.0.1:3000 (connection refused: nothing listens there)' });
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND mcp.internal'), { code: 'ENOTFOUND', hostname: 'mcp.internal' });
    assert.equal(describeStartError({ error: new TypeError('fetch failed', { cause: dns }), stderr: [], timeoutMs: 1000 }).cause, 'ENOTFOUND mcp.internal (host not found)');
  });

  it('an HTTP refusal gives status and body; 401/403 are named as authentication failures', () => {
    const http = (status: number, text: string): Error => Object.assign(new Error(`Error POSTing to endpoint: ${text}`), { data: { status, statusText: '', text } });
    assert.deepEqual(describeStartError({ error: http(404, 'no route /mcp'), stderr: [], timeoutMs: 1 }), { reason: 'http_status', cause: 'the server answered HTTP 404: no route /mcp' });
    assert.match(describeStartError({ error: http(403, 'forbidden'), stderr: [], timeoutMs: 1 }).cause, /^access denied \(HTTP 403: forbidden\): check the headers/);
    const unauthorized = Object.assign(new Error('Unauthorized'), { name: 'UnauthorizedError' });
    assert.equal(describeStartError({ error: unauthorized, stderr: [], timeoutMs: 1 }).reason, 'auth');
  });

  it('a command that does not exist, and a server that died, say so with what it printed', () => {
    const enoent = Object.assign(new Error('spawn crm-server ENOENT'), { code: 'ENOENT' });
    assert.equal(describeStartError({ error: enoent, command: 'crm-server', stderr: [], timeoutMs: 1 }).cause, 'command not found: crm-server (is it installed and on PATH?)');
    const died = describeStartError({ error: new Error('Connection closed'), command: 'node', stderr: NODE_MODULE_NOT_FOUND.split('\n'), timeoutMs: 1 });
    assert.deepEqual(died, { reason: 'exited', cause: "the server exited before answering: Error: Cannot find module '/x/server.js'" });
  });
});
