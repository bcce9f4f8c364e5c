// Start failures with real processes and real sockets: each error says the cause.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ToolgateError } from '../../core/index.ts';
import { freePort } from '../../../test/support/processes.ts';
import { McpToolSource, type McpServerConfig } from './mcp-tool-source.ts';

const CRASH_AT_START = fileURLToPath(new URL('../../../test/fixtures/mcp/crash-at-start.ts', import.meta.url));

async function startFailure(server: McpServerConfig): Promise<ToolgateError> {
  const source = new McpToolSource({ name: 'crm', server, connectTimeoutMs: 5000 });
  try {
    await source.listTools();
  } catch (error) {
    assert.ok(error instanceof ToolgateError, String(error));
    assert.equal(error.code, 'tool_unavailable');
    assert.match(error.message, /^could not start MCP server "crm" \(/);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error;
  } finally {
    await source.close();
  }
  assert.fail('the server started');
}

describe('MCP start errors say the cause (stdio)', () => {
  it('a script that does not exist: Cannot find module, not the tail of the stack trace', async () => {
    const error = await startFailure({ command: process.execPath, args: ['/nonexistent/server.js'] });
    assert.match(error.message, /Cannot find module '\/nonexistent\/server\.js'/);
    assert.doesNotMatch(error.message, /requireStack|Node\.js v\d/);
    assert.equal(error.details?.['reason'], 'exited');
  });

  it('a server that throws while starting: its error line, past the warning', async () => {
    const error = await startFailure({ command: process.execPath, args: [CRASH_AT_START] });
    assert.match(error.message, /the server exited before answering: Error: CRM_DATABASE_URL is not set/);
  });

  it('a command that is not installed', async () => {
    const error = await startFailure({ command: 'toolgate-no-such-command', args: [] });
    assert.match(error.message, /command not found: toolgate-no-such-command \(is it installed and on PATH\?\)/);
    assert.equal(error.details?.['reason'], 'command_not_found');
  });

  it('a call to a server that cannot start is tool_unavailable, not sent, with the same cause', async () => {
    const source = new McpToolSource({ name: 'crm', server: { command: process.execPath, args: ['/nonexistent/server.js'] } });
    try {
      const result = await source.callTool({ name: 'lookup', arguments: {} });
      assert.deepEqual([result.ok, result.error?.code, result.notSent], [false, 'tool_unavailable', true]);
      assert.match(result.error?.message ?? '', /Cannot find module '\/nonexistent\/server\.js'/);
    } finally {
      await source.close();
    }
  });
});

describe('MCP start errors say the cause (Streamable HTTP)', () => {
  let http: Server;
  let base = '';
  before(async () => {
    http = createServer((req, res) => {
      const status = Number(req.url?.slice(1)) || 404;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 404 ? 'no MCP endpoint here,\n\ttry /mcp\u0007' : `status ${status} from the test server`);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => http.close(() => resolve())));

  it('nothing listens: ECONNREFUSED with the address', async () => {
    const port = await freePort();
    const error = await startFailure({ url: `http://127.0.0.1:${port}/mcp` });
    assert.match(error.message, new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port} \\(connection refused`));
    assert.equal(error.details?.['reason'], 'refused');
  });

  it('a refused connection: the HTTP status and the body, cleaned', async () => {
    const notFound = await startFailure({ url: `${base}/404` });
    assert.match(notFound.message, /the server answered HTTP 404 Not Found: no MCP endpoint here, try \/mcp\./);
    const broken = await startFailure({ url: `${base}/500` });
    assert.match(broken.message, /HTTP 500 Internal Server Error: status 500 from the test server/);
  });

  it('401 and 403 are named as authentication failures, without the header values', async () => {
    const secret = 'Bearer sk-very-secret-token';
    const unauthorized = await startFailure({ url: `${base}/401`, headers: { authorization: secret } });
    assert.match(unauthorized.message, /authentication failed \(HTTP 401/);
    assert.match(unauthorized.message, /check the headers \(e\.g\. Authorization\)/);
    assert.doesNotMatch(unauthorized.message, /sk-very-secret/);
    const forbidden = await startFailure({ url: `${base}/403`, headers: { authorization: secret } });
    assert.match(forbidden.message, /access denied \(HTTP 403: status 403 from the test server\)/);
    assert.equal(forbidden.details?.['reason'], 'auth');
  });
});
