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
const NOT_MCP = fileURLToPath(new URL('../../../test/fixtures/mcp/not-mcp-server.ts', import.meta.url));
const CONNECT_TIMEOUT_MS = 5000;
/** For servers that never answer: long enough for a loaded machine to start node and let it print first. */
const NO_ANSWER_TIMEOUT_MS = 3000;
/** For an HTTP server that is already listening and never answers. */
const SHORT_TIMEOUT_MS = 1000;

/** Starts a source that must fail, checks the error's shape, and returns it. */
async function startFailure(server: McpServerConfig, connectTimeoutMs = CONNECT_TIMEOUT_MS): Promise<ToolgateError> {
  const source = new McpToolSource({ name: 'crm', server, connectTimeoutMs });
  try {
    await source.listTools();
  } catch (error) {
    assert.ok(error instanceof ToolgateError, String(error));
    assert.equal(error.code, 'tool_unavailable');
    assert.match(error.message, /^could not start MCP server "crm" \(/);
    assert.doesNotMatch(error.message, /\n|\s{4}at /, 'one line, no stack trace');
    assert.ok(error.message.length < 700, `bounded: ${error.message.length}`);
    const cause = String(error.details?.['cause']);
    assert.ok(error.message.includes(`): ${cause}. `), 'the details carry the cause shown in the message');
    assert.ok(error.cause !== undefined, 'the original error is kept');
    return error;
  } finally {
    await source.close();
  }
  assert.fail('the server started');
}

describe('MCP start errors say the cause (stdio)', () => {
  it('a script that does not exist: Cannot find module, not the tail of the stack trace', async () => {
    const error = await startFailure({ command: process.execPath, args: ['/nonexistent/server.js'] });
    assert.match(
      error.message,
      new RegExp(
        String.raw`the server exited with code 1 before answering the MCP handsh` +
          String.raw`ake: Error: Cannot find module '\/nonexistent\/server\.js'\. `,
      ),
    );
    assert.doesNotMatch(error.message, /requireStack|Node\.js v\d|MODULE_NOT_FOUND/);
    assert.match(error.message, /Check servers\.crm\.command and args in your config/);
    assert.equal(error.details?.['reason'], 'exited');
  });

  it('a server that throws while starting: its error line, past the warning', async () => {
    const error = await startFailure({ command: process.execPath, args: [CRASH_AT_START] });
    assert.match(
      error.message,
      /exited with code 1 before answering the MCP handshake: Error: CRM_DATABASE_URL is not set\./,
    );
  });

  it('a server killed by a signal says which', async () => {
    const error = await startFailure({
      command: process.execPath,
      args: ['-e', "process.kill(process.pid, 'SIGKILL')"],
    });
    assert.match(error.message, /the server was killed by SIGKILL before answering the MCP handshake/);
  });

  it('the last thing on stderr counts even without a newline', async () => {
    const error = await startFailure({
      command: process.execPath,
      args: ['-e', "process.stderr.write('fatal: config.yaml: no such file'); process.exit(2)"],
    });
    assert.match(
      error.message,
      /the server exited with code 2 before answering the MCP handshake: fatal: config\.yaml: no such file\./,
    );
  });

  it('a command that is not installed', async () => {
    const error = await startFailure({ command: 'toolgate-no-such-command', args: [] });
    assert.match(
      error.message,
      /command not found: toolgate-no-such-command \(is it installed and on PATH\?\)\. Check servers\.crm\.command/,
    );
    assert.equal(error.details?.['reason'], 'command_not_found');
  });

  it('a file that is not executable', async () => {
    // Fixtures are checked out without the executable bit.
    const error = await startFailure({ command: CRASH_AT_START });
    assert.match(error.message, /permission denied running .*crash-at-start\.ts \(is it executable\?\)/);
    assert.equal(error.details?.['reason'], 'not_executable');
  });

  it('text on stdout that is not JSON-RPC is quoted, whether the program exits or waits', async () => {
    const exits = await startFailure({ command: process.execPath, args: [NOT_MCP, 'banner-then-exit'] });
    assert.match(
      exits.message,
      new RegExp(
        String.raw`the server wrote something that is not MCP JSON-RPC on stdout: "CRM serve` +
          String.raw`r v1\.2 starting on stdio, press Ctrl\+C to stop" and exited with code 3\.`,
      ),
    );
    assert.match(exits.message, /must write only JSON-RPC on stdout and log to stderr/);
    assert.equal(exits.details?.['reason'], 'protocol');
    const waits = await startFailure(
      { command: process.execPath, args: [NOT_MCP, 'banner-then-wait'] },
      NO_ANSWER_TIMEOUT_MS,
    );
    assert.match(waits.message, /not MCP JSON-RPC on stdout: "CRM server v1\.2 starting on stdio/);
  });

  it('a server that never answers: the handshake timeout, with what it logged', async () => {
    const error = await startFailure({ command: process.execPath, args: [NOT_MCP, 'silent'] }, NO_ANSWER_TIMEOUT_MS);
    assert.match(
      error.message,
      new RegExp(
        `did not answer the MCP handshake within ${NO_ANSWER_TIMEOUT_MS} ` +
          `ms \\(stderr: Waiting for the database at db\\.internal:5432\\)`,
      ),
    );
    assert.equal(error.details?.['reason'], 'timeout');
  });

  it('a call to a server that cannot start is tool_unavailable, not sent, with the same cause', async (t) => {
    const server = { command: process.execPath, args: ['/nonexistent/server.js'] };
    const source = new McpToolSource({ name: 'crm', server });
    t.after(() => source.close());
    const first = await source.callTool({ name: 'lookup', arguments: {} });
    assert.deepEqual([first.ok, first.error?.code, first.notSent], [false, 'tool_unavailable', true]);
    assert.match(
      first.error?.message ?? '',
      /^could not start MCP server "crm" .*Cannot find module '\/nonexistent\/server\.js'/,
    );
    // The next call tries to start it again and says the same.
    const again = await source.callTool({ name: 'lookup', arguments: {} });
    assert.deepEqual(
      [again.error?.code, again.notSent, again.error?.message],
      ['tool_unavailable', true, first.error?.message],
    );
  });
});

describe('MCP start errors say the cause (Streamable HTTP)', () => {
  let http: Server;
  let base = '';
  before(async () => {
    http = createServer((req, res) => {
      const path = req.url?.split('?')[0] ?? '/';
      if (path === '/hang') return; // accepts the request and never answers
      if (path === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>');
        return;
      }
      const status = Number(path.slice(1)) || 404;
      res.writeHead(status, { 'content-type': 'text/plain' });
      if (status === 401)
        res.end(`status 401 from the test server; you sent ${req.headers.authorization ?? 'nothing'}`);
      else
        res.end(
          status === 404
            ? 'no MCP endpoint here,\n\ttry /mcp\u0007'
            : `status ${status} from the test server ${'x'.repeat(1000)}`,
        );
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  after(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it('nothing listens: ECONNREFUSED with the address', async () => {
    const port = await freePort();
    const error = await startFailure({ url: `http://127.0.0.1:${port}/mcp` });
    assert.match(error.message, new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port} \\(connection refused`));
    assert.match(error.message, /Check servers\.crm\.url in your config and that the server is running\.$/);
    assert.equal(error.details?.['reason'], 'refused');
  });

  it('a refused connection: the HTTP status and the body, cleaned and bounded', async () => {
    const notFound = await startFailure({ url: `${base}/404` });
    assert.match(
      notFound.message,
      new RegExp(
        String.raw`the server answered HTTP 404 Not Found: no MCP endpoint here, try \/mcp\. Ch` +
          String.raw`eck servers\.crm\.url in your config: it must be the server's MCP endpoint\.$`,
      ),
    );
    assert.equal(notFound.details?.['reason'], 'http_status');
    const broken = await startFailure({ url: `${base}/500` });
    assert.match(
      broken.message,
      /HTTP 500 Internal Server Error: status 500 from the test server x+…\. The server failed on its side/,
    );
    assert.ok(String(broken.details?.['cause']).length < 400);
  });

  it('401 and 403 are named as authentication failures, without the header values', async () => {
    const secret = 'Bearer sk-very-secret-token';
    const unauthorized = await startFailure({
      url: `${base}/401?api_key=sk-in-the-url`,
      headers: { authorization: secret },
    });
    assert.match(
      unauthorized.message,
      /authentication failed \(HTTP 401 Unauthorized: status 401 from the test server/,
    );
    assert.match(
      unauthorized.message,
      /Check servers\.crm\.headers in your config \(e\.g\. the Authorization header\)\.$/,
    );
    // The server echoed the header back: its value is blanked out all the same.
    assert.match(unauthorized.message, /you sent \*\*\*/);
    assert.doesNotMatch(unauthorized.message, /sk-very-secret|sk-in-the-url/);
    const forbidden = await startFailure({ url: `${base}/403`, headers: { authorization: secret } });
    assert.match(forbidden.message, /access denied \(HTTP 403 Forbidden: status 403 from the test server/);
    assert.equal(forbidden.details?.['reason'], 'auth');
  });

  it('credentials in the URL stay out of the message', async () => {
    const error = await startFailure({ url: `${base.replace('http://', 'http://crm:hunter22@')}/mcp` });
    assert.match(error.message, /\(http:\/\/crm:\*\*\*@127\.0\.0\.1:\d+\/mcp\)/);
    assert.doesNotMatch(error.message, /hunter22/);
  });

  it('a page that is not an MCP endpoint, and a server that never answers', async () => {
    const html = await startFailure({ url: `${base}/html` });
    assert.match(html.message, /the server did not answer as an MCP endpoint: Unexpected content type: text\/html/);
    assert.equal(html.details?.['reason'], 'protocol');
    const hang = await startFailure({ url: `${base}/hang` }, SHORT_TIMEOUT_MS);
    assert.match(
      hang.message,
      new RegExp(`did not answer the MCP handshake within ${SHORT_TIMEOUT_MS} ms\\. Check servers\\.crm\\.url`),
    );
    assert.equal(hang.details?.['reason'], 'timeout');
  });
});
