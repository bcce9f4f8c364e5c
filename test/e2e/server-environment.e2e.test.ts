// What a spawned stdio MCP server receives of toolgate's environment, asked of the
// server itself: a real `toolgate gateway --stdio` with a config, a fixture server that
// answers with its environment, and the official SDK as the client.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio';
import { TOOLGATE_BIN } from '../support/processes.ts';

const ENV_SERVER = fileURLToPath(new URL('../fixtures/mcp/env-report-server.ts', import.meta.url));

/** toolgate's own environment in these tests: a secret, a private CA and a proxy, in both spellings. */
const NETWORK = {
  NODE_EXTRA_CA_CERTS: '/etc/ssl/private-ca.pem',
  SSL_CERT_FILE: '/etc/ssl/certs/bundle.pem',
  SSL_CERT_DIR: '/etc/ssl/certs',
  HTTPS_PROXY: 'http://proxy.internal:3128',
  HTTP_PROXY: 'http://proxy.internal:3128',
  NO_PROXY: '127.0.0.1,localhost',
  https_proxy: 'http://proxy.internal:3128',
  http_proxy: 'http://proxy.internal:3128',
  no_proxy: '127.0.0.1,localhost',
};
const SECRET = { OPENAI_API_KEY: 'sk-not-for-servers', DATABASE_URL: 'postgres://app:secret@db/app' };

describe("a stdio MCP server's environment", () => {
  let dir: string;
  let client: Client;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-server-env-'));
    const node = JSON.stringify(process.execPath);
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `servers:\n  plain:\n    command: ${node}\n    args: [${JSON.stringify(ENV_SERVER)}]\n    env: { ` +
        (`GIVEN: plain, HTTPS_PROXY: "http://own-proxy:8080" }\n  whole:\n    command: ${node}\n   ` +
          ` args: [${JSON.stringify(ENV_SERVER)}]\n    inheritEnv: true\n    env: { GIVEN: whole }\n`),
    );
    client = new Client({ name: 'env-test', version: '1.0.0' });
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [TOOLGATE_BIN, 'gateway', '--stdio', '--config', 'toolgate.yaml', '--store', 'memory:'],
        cwd: dir,
        env: { ...env, ...NETWORK, ...SECRET, NO_COLOR: '1' },
      }),
    );
  });
  after(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function environmentOf(server: string): Promise<Record<string, string>> {
    const { tools } = await client.listTools();
    const name =
      tools.map((t) => t.name).find((n) => n === `${server}_reportEnv` || n === `${server}/reportEnv`) ??
      assert.fail(`no reportEnv of ${server} in ${tools.map((t) => t.name).join(', ')}`);
    const result = await client.callTool({ name, arguments: {} });
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
    return JSON.parse(text) as Record<string, string>;
  }

  it("by default: the SDK's short list, the TLS and proxy variables, then env: — no secret of toolgate's", async () => {
    const received = await environmentOf('plain');
    const sdkDefaults = DEFAULT_INHERITED_ENV_VARS.filter(
      (name) => process.env[name] !== undefined && !(process.env[name] ?? '').startsWith('()'),
    );
    assert.deepEqual(Object.keys(received).sort(), [...sdkDefaults, ...Object.keys(NETWORK), 'GIVEN'].sort());
    assert.equal(received['NODE_EXTRA_CA_CERTS'], NETWORK.NODE_EXTRA_CA_CERTS);
    assert.equal(received['no_proxy'], NETWORK.no_proxy);
    assert.equal(received['HTTPS_PROXY'], 'http://own-proxy:8080', 'env: wins over what is passed by default');
    assert.equal(received['GIVEN'], 'plain');
    assert.equal(received['OPENAI_API_KEY'], undefined);
  });

  it('inheritEnv: true passes the whole environment, env: over it', async () => {
    const received = await environmentOf('whole');
    assert.equal(received['OPENAI_API_KEY'], SECRET.OPENAI_API_KEY);
    assert.equal(received['DATABASE_URL'], SECRET.DATABASE_URL);
    assert.equal(received['SSL_CERT_DIR'], NETWORK.SSL_CERT_DIR);
    assert.equal(received['PATH'], process.env['PATH']);
    assert.equal(received['GIVEN'], 'whole');
  });
});
