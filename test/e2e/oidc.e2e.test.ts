// OAuth 2.1 / OpenID Connect end to end: a real OpenID Provider process (oidc-provider) issues JWT access tokens;
// `toolgate serve` and `toolgate gateway` (real processes, SQLite files) accept them beside API keys, refuse
// expired, wrong-audience, foreign and rotated-away tokens, and an MCP client of the official SDK finds the
// authorization server from the gateway's 401 and its RFC 9728 metadata.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  Client,
  ClientCredentialsProvider,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { connectHttp, startGateway, type RunningGateway } from '../support/gateway.ts';
import { startOidcProvider, writeKeyFile, type RunningOidcProvider } from '../support/oidc-provider.ts';
import { POWER_EXCHANGE_SERVER, startServe, type StartedProcess } from '../support/processes.ts';

const GLOBEX_KEY = 'globex-oidc-key-0123456789';
/** The fixture's client whose tokens are expired when issued. */
const EXPIRED = { id: 'expired-service', secret: 'expired-secret' };

function config(issuer: string, extra = ''): string {
  return `
auth:
  oidc:
    - issuer: ${issuer}
      jwksCooldownMs: 0
tenants:
  acme:
    allow: ["*"]
  globex:
    apiKeys: [${GLOBEX_KEY}]
${extra}`;
}

async function call(
  url: string,
  options: { token?: string; method?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown>; challenge: string | null }> {
  const response = await fetch(url, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const body: Record<string, unknown> = await response.json();
  return { status: response.status, body, challenge: response.headers.get('www-authenticate') };
}

/** The status and challenge of an MCP `initialize` sent to the gateway with a bearer token. */
async function mcpInitialize(mcp: string, token: string): Promise<{ status: number; challenge: string }> {
  const response = await fetch(mcp, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'oidc-e2e', version: '1' } },
    }),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}

/** The error message of an answer (or the whole body, for an assertion's output). */
function message(body: Record<string, unknown>): string {
  const error = body['error'];
  return typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
    ? error.message
    : JSON.stringify(body);
}

describe('OAuth 2.1 / OIDC: serve and gateway accept tokens of a real OpenID Provider', () => {
  let dir: string;
  let idp: RunningOidcProvider;
  let stranger: RunningOidcProvider;
  let serve: StartedProcess & { url: string };
  let gateway: RunningGateway;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-oidc-'));
    [idp, stranger] = await Promise.all([startOidcProvider({ dir }), startOidcProvider({ dir })]);
    writeFileSync(join(dir, 'model.json'), JSON.stringify({ turns: [{ text: 'Calm.' }] }));
    writeFileSync(join(dir, 'serve.yaml'), config(idp.issuer, 'model: scripted:./model.json\n'));
    const node = JSON.stringify(process.execPath);
    writeFileSync(
      join(dir, 'gateway.yaml'),
      config(
        idp.issuer,
        `servers:\n  px:\n    command: ${node}\n    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]\n` +
          'gateway:\n  endpoints:\n    /mcp/trading: { tools: ["px/*"] }\n',
      ),
    );
    [serve, gateway] = await Promise.all([
      startServe({
        cwd: dir,
        args: ['--config', 'serve.yaml', '--store', `sqlite:${join(dir, 'serve.db')}`],
        env: { TOOLGATE_LOG_LEVEL: 'warn' },
      }),
      startGateway({ config: join(dir, 'gateway.yaml'), store: `sqlite:${join(dir, 'gateway.db')}`, cwd: dir }),
    ]);
  });

  after(async () => {
    await Promise.all([serve?.stop(), gateway?.stop(), idp?.stop(), stranger?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a valid token acts for its tenant; an API key keeps working beside it', async () => {
    const token = await idp.clientCredentialsToken({ resource: serve.url });
    const mine = await call(`${serve.url}/v1/runs`, { token, body: { input: 'How is the market?' } });
    assert.equal(mine.status, 201, message(mine.body));
    const theirs = await call(`${serve.url}/v1/runs`, { token: GLOBEX_KEY, body: { input: 'Hello' } });
    assert.equal(theirs.status, 201, message(theirs.body));

    const listed = await call(`${serve.url}/v1/runs`, { token });
    assert.equal(listed.status, 200, message(listed.body));
    const ids = JSON.stringify(listed.body);
    assert.ok(ids.includes(String(mine.body['id'])), 'the token lists its own run');
    assert.ok(!ids.includes(String(theirs.body['id'])), "the token does not list another tenant's run");
    const byKey = JSON.stringify((await call(`${serve.url}/v1/runs`, { token: GLOBEX_KEY })).body);
    assert.ok(byKey.includes(String(theirs.body['id'])) && !byKey.includes(String(mine.body['id'])));

    const session = await call(`${serve.url}/v1/session`, { token });
    assert.match(JSON.stringify(session.body), /acme/);
  });

  it('a request without credentials gets a 401 naming the metadata, which names the issuer', async () => {
    const refused = await call(`${serve.url}/v1/runs`);
    assert.equal(refused.status, 401);
    assert.equal(refused.challenge, `Bearer resource_metadata="${serve.url}/.well-known/oauth-protected-resource"`);
    const metadata = await call(`${serve.url}/.well-known/oauth-protected-resource`);
    assert.equal(metadata.status, 200);
    assert.deepEqual(metadata.body, {
      resource: serve.url,
      authorization_servers: [idp.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'toolgate',
    });
  });

  it('a virtual server has metadata of its own; a path gateway.endpoints does not configure has none', async () => {
    const trading = await call(`${gateway.url}/.well-known/oauth-protected-resource/mcp/trading`);
    assert.equal(trading.status, 200);
    assert.equal(trading.body['resource'], `${gateway.url}/mcp/trading`);
    assert.deepEqual(trading.body['authorization_servers'], [idp.issuer]);
    const unknown = await call(`${gateway.url}/.well-known/oauth-protected-resource/mcp/nowhere`);
    assert.equal(unknown.status, 404);
    assert.match(JSON.stringify(unknown.body), /no such MCP endpoint \(configured: \/mcp\/trading\)/);
    // `serve` has no gateway: no virtual server either.
    assert.equal((await call(`${serve.url}/.well-known/oauth-protected-resource/mcp/trading`)).status, 404);
  });

  it('refuses an expired token, a token for another audience and one of an issuer not configured', async () => {
    const expired = await idp.clientCredentialsToken({ resource: serve.url, client: EXPIRED });
    const late = await call(`${serve.url}/v1/runs`, { token: expired });
    assert.equal(late.status, 401);
    assert.match(message(late.body), /expired at/);
    assert.match(late.challenge ?? '', /error="invalid_token", error_description="bearer token refused: expired at/);

    const elsewhere = await idp.clientCredentialsToken({ resource: 'https://elsewhere.example.com' });
    const wrongAudience = await call(`${serve.url}/v1/runs`, { token: elsewhere });
    assert.equal(wrongAudience.status, 401);
    assert.match(message(wrongAudience.body), /audience "https:\/\/elsewhere\.example\.com" not accepted/);

    const foreign = await stranger.clientCredentialsToken({ resource: serve.url });
    const wrongIssuer = await call(`${serve.url}/v1/runs`, { token: foreign });
    assert.equal(wrongIssuer.status, 401);
    assert.match(message(wrongIssuer.body), new RegExp(`issuer "${stranger.issuer}" not configured`));

    // The gateway's /mcp refuses the same tokens (minted for its own resource), naming its metadata.
    const mcp = `${gateway.url}/mcp`;
    assert.equal((await mcpInitialize(mcp, await idp.clientCredentialsToken({ resource: mcp }))).status, 200);
    const cases = [
      { token: await idp.clientCredentialsToken({ resource: mcp, client: EXPIRED }), why: /expired at/ },
      { token: elsewhere, why: /audience/ },
      { token: await stranger.clientCredentialsToken({ resource: mcp }), why: /not configured/ },
    ];
    for (const { token, why } of cases) {
      const refused = await mcpInitialize(mcp, token);
      assert.equal(refused.status, 401);
      assert.match(refused.challenge, /oauth-protected-resource\/mcp", error="invalid_token"/);
      assert.match(refused.challenge, why);
    }
  });

  it('an MCP client finds the authorization server from the 401 of /mcp and lists tools with its token', async () => {
    const mcp = `${gateway.url}/mcp`;
    const refused = await fetch(mcp, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(refused.status, 401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(refused);
    assert.equal(resourceMetadataUrl?.href, `${gateway.url}/.well-known/oauth-protected-resource/mcp`);
    const metadata = await discoverOAuthProtectedResourceMetadata(mcp, { resourceMetadataUrl });
    assert.equal(metadata.resource, mcp);
    assert.deepEqual(metadata.authorization_servers, [idp.issuer]);
    const server = await discoverAuthorizationServerMetadata(metadata.authorization_servers?.[0] ?? '');
    assert.equal(server?.token_endpoint, `${idp.issuer}/token`);

    // The SDK's own flow: 401 → metadata → authorization server → client credentials for resource <base>/mcp.
    const client = new Client({ name: 'oidc-e2e', version: '1.0.0' });
    const authProvider = new ClientCredentialsProvider({
      clientId: 'service',
      clientSecret: 'service-secret',
      expectedIssuer: idp.issuer,
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp), { authProvider }));
    try {
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((tool) => tool.name.endsWith('placeOrder')),
        JSON.stringify(tools.map((t) => t.name)),
      );
      assert.equal(authProvider.tokens()?.token_type.toLowerCase(), 'bearer');
    } finally {
      await client.close();
    }

    // An API key still opens the gateway; a token for the runs API's audience elsewhere does not.
    const keyed = await connectHttp(gateway, { key: GLOBEX_KEY });
    try {
      assert.ok((await keyed.client.listTools()).tools.length > 0);
    } finally {
      await keyed.client.close();
    }
    const elsewhere = await idp.clientCredentialsToken({ resource: serve.url });
    const wrong = await fetch(mcp, { method: 'POST', headers: { authorization: `Bearer ${elsewhere}` } });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /oauth-protected-resource\/mcp", error="invalid_token"/);
  });

  it('after the issuer rotates its key, its old tokens are refused and new ones accepted', async () => {
    const old = await idp.clientCredentialsToken({ resource: serve.url });
    assert.equal((await call(`${serve.url}/v1/runs`, { token: old })).status, 200);
    const mcp = `${gateway.url}/mcp`;
    const oldMcp = await idp.clientCredentialsToken({ resource: mcp });
    assert.equal((await mcpInitialize(mcp, oldMcp)).status, 200);
    await idp.stop();
    idp = await startOidcProvider({ dir, port: idp.port, keyFile: await writeKeyFile(join(dir, 'rotated.json')) });
    const fresh = await idp.clientCredentialsToken({ resource: serve.url });
    const accepted = await call(`${serve.url}/v1/runs`, { token: fresh });
    assert.equal(accepted.status, 200, message(accepted.body));
    const refused = await call(`${serve.url}/v1/runs`, { token: old });
    assert.equal(refused.status, 401);
    assert.match(message(refused.body), /signature does not verify with the issuer's keys/);
    // The gateway learns of the new key from the first token that names it; from then on the old key is gone.
    assert.equal((await mcpInitialize(mcp, await idp.clientCredentialsToken({ resource: mcp }))).status, 200);
    assert.equal((await mcpInitialize(mcp, oldMcp)).status, 401, 'the gateway refuses the rotated-away key too');
  });
});
