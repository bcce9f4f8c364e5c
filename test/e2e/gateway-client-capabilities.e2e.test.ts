// Client capabilities offered upstream: a client that declares sampling,
// elicitation and roots gets upstream connections of its own that declare
// them, and the servers' requests reach it under gateway.sampling and
// gateway.roots, each recorded as an upstream_request event. Real gateway and
// server processes, the official SDK client with real handlers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
  Client,
  StreamableHTTPClientTransport,
  type ClientCapabilities,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { openStore } from '../../src/app/open-store.ts';
import type { RunEvent } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { eventually, runEvents, runIdOf, startGateway, textOf } from '../support/gateway.ts';
import { EVERYTHING_SERVER, TOOLGATE_BIN, startProcess, type StartedProcess } from '../support/processes.ts';

const KEY = 'acme-key-123456';
const ASKING = fileURLToPath(new URL('../fixtures/mcp/asking-server.ts', import.meta.url));
const NODE = JSON.stringify(process.execPath);
const ROOTS = [
  { uri: 'file:///work/project', name: 'project' },
  { uri: 'file:///home/alice/secrets', name: 'secrets' },
];

/** An SDK client declaring `capabilities`, answering sampling, elicitation and roots; `asked` collects questions. */
function askingClient(
  capabilities: ClientCapabilities,
  decide: (message: string) => Record<string, string> = () => ({ answer: '42' }),
): { client: Client; asked: string[] } {
  const asked: string[] = [];
  const client = new Client({ name: 'asking-client', version: '1.0.0' }, { capabilities });
  if (capabilities.sampling !== undefined)
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const last = request.params.messages.at(-1)?.content;
      const said = last !== undefined && !Array.isArray(last) && last.type === 'text' ? last.text : '?';
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: `echo ${said}` } };
    });
  if (capabilities.elicitation !== undefined)
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = 'message' in request.params ? request.params.message : '';
      asked.push(message);
      return { action: 'accept', content: decide(message) };
    });
  if (capabilities.roots !== undefined) client.setRequestHandler('roots/list', async () => ({ roots: ROOTS }));
  return { client, asked };
}

const ALL: ClientCapabilities = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };

function upstreamRequests(events: readonly RunEvent[]): string[] {
  return ofType(events, 'upstream_request').map((e) => `${e.data.server} ${e.data.method} ${e.data.outcome}`);
}

describe('toolgate gateway: client capabilities offered upstream', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-client-caps-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('over stdio: lists what servers show such a client, forwards sampling, elicitation, filtered roots', async () => {
    const file = join(dir, 'stdio.yaml');
    writeFileSync(
      file,
      `
servers:
  asking: { command: ${NODE}, args: [${JSON.stringify(ASKING)}] }
  everything: { command: ${NODE}, args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio] }
tools:
  "everything/trigger-sampling-request": { effect: read }
gateway:
  identity: { user: alice }
  sampling: { asking: allow, "*": deny }
  roots: ["file:///work/**"]
`,
    );
    const store = `sqlite:${join(dir, 'stdio.db')}`;
    // What server-everything shows a client with these capabilities when asked directly.
    const direct = askingClient(ALL).client;
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] }));
    const directTools = (await direct.listTools()).tools.map((t) => t.name);
    await direct.close();
    assert.ok(directTools.includes('trigger-sampling-request') && directTools.includes('get-roots-list'));

    const { client, asked } = askingClient(ALL);
    const transport: Transport = new StdioClientTransport({
      command: process.execPath,
      args: [TOOLGATE_BIN, 'gateway', '--stdio', '--config', file, '--store', store],
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' } as Record<string, string>,
    });
    await client.connect(transport);
    let runId: string;
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const name of directTools) assert.ok(names.includes(name), `${name} is not listed through the gateway`);
      assert.equal(names.length, directTools.length + 4, names.join(', '));
      const model = await client.callTool({ name: 'askModel', arguments: { text: 'hello' } });
      assert.equal(textOf(model), 'model test-model said: echo hello');
      runId = runIdOf(model);
      assert.equal(textOf(await client.callTool({ name: 'ping', arguments: {} })), 'pong');
      const user = await client.callTool({ name: 'askUser', arguments: { text: 'What is the answer?' } });
      assert.equal(textOf(user), 'user accept: {"answer":"42"}');
      assert.deepEqual(asked, ['What is the answer?']);
      await client.sendRootsListChanged();
      const roots = await client.callTool({ name: 'listRoots', arguments: {} });
      assert.deepEqual(JSON.parse(textOf(roots)), { roots: ['file:///work/project'], rootsChanged: 1 });
      const refused = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } });
      assert.match(textOf(refused), /toolgate's policy refuses sampling requests of "everything".*gateway\.sampling/);
    } finally {
      await client.close();
    }
    const opened = await openStore(store, { cwd: dir });
    try {
      const events = await eventually(async () => {
        const log = await opened.readEvents(runId);
        return log.some((e) => e.type === 'run_completed') ? log : undefined;
      });
      const requests = upstreamRequests(events);
      for (const expected of [
        'asking sampling/createMessage forwarded',
        'asking elicitation/create forwarded',
        'asking roots/list forwarded',
        'everything sampling/createMessage denied',
      ])
        assert.ok(requests.includes(expected), `${expected} is not among ${requests.join('; ')}`);
      // The session's own server's log message is the session's.
      assert.ok(ofType(events, 'upstream_log').some((e) => e.data.server === 'asking'));
      const sampling = ofType(events, 'upstream_request').find((e) => e.data.server === 'asking');
      assert.equal(sampling?.data.summary, '1 message, maxTokens 50, model hints small-model');
    } finally {
      await opened.close();
    }
  });

  it('over HTTP (2025-era session): approve asks the user, and denies when the client cannot be asked', async () => {
    let upstream: StartedProcess | undefined;
    let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
    try {
      const started = await startProcess({
        command: process.execPath,
        args: [ASKING, '--http', '0'],
        ready: /asking server at (http:\/\/\S+)/,
      });
      upstream = started;
      const file = join(dir, 'http.yaml');
      writeFileSync(
        file,
        `
servers:
  asking-web: { url: ${JSON.stringify(started.match[1])} }
tenants:
  acme:
    apiKeys: [{ key: ${KEY}, userId: alice }]
`,
      );
      gateway = await startGateway({ config: file, store: `sqlite:${join(dir, 'http.db')}`, cwd: dir });
      const connect = async (client: Client): Promise<void> =>
        client.connect(
          new StreamableHTTPClientTransport(new URL(`${gateway?.url ?? ''}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${KEY}` } },
          }),
        );

      // No sampling, elicitation or roots: the shared connection, which declares none.
      const plain = new Client({ name: 'plain', version: '1.0.0' });
      await connect(plain);
      assert.deepEqual(
        (await plain.listTools()).tools.map((t) => t.name),
        ['ping'],
      );
      await plain.close();

      let allow = true;
      const { client, asked } = askingClient({ sampling: {}, elicitation: { form: {} } }, () => ({
        decision: allow ? 'allow' : 'deny',
      }));
      await connect(client);
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['askModel', 'askUser', 'ping']);
      const approved = await client.callTool({ name: 'askModel', arguments: { text: 'hello' } });
      assert.equal(textOf(approved), 'model test-model said: echo hello');
      assert.match(asked[0] ?? '', /"asking-web" asks your model .*1 message, maxTokens 50.*Last message: hello/);
      allow = false;
      const refused = await client.callTool({ name: 'askModel', arguments: { text: 'again' } });
      assert.match(textOf(refused), /refused \(-1\): .*the user refused the sampling request of "asking-web"/);
      const runId = runIdOf(approved);
      await client.close();

      const onlySampling = askingClient({ sampling: {} }).client;
      await connect(onlySampling);
      const cannot = await onlySampling.callTool({ name: 'askModel', arguments: { text: 'hi' } });
      assert.match(textOf(cannot), /client cannot be asked \(it has no elicitation\): set gateway\.sampling/);
      await onlySampling.close();

      const events = await eventually(async () => {
        const log = await runEvents(gateway!, runId, KEY);
        return upstreamRequests(log).length >= 2 ? log : undefined;
      });
      assert.deepEqual(upstreamRequests(events), [
        'asking-web sampling/createMessage forwarded',
        'asking-web sampling/createMessage denied',
      ]);
    } finally {
      await gateway?.stop();
      await upstream?.stop();
    }
  });
});
