// A 2026-07-28 client cannot be sent a request: an upstream server's sampling, elicitation and roots requests during
// a call reach it as input_required results, which the official SDK client fulfils with its registered handlers and
// retries. Real gateway and server processes; each question recorded as an upstream_request event.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RunEvent } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { eventually, runEvents, runIdOf, startGateway, textOf, type RunningGateway } from '../support/gateway.ts';

const KEY = 'acme-key-123456';
const ASKING = fileURLToPath(new URL('../fixtures/mcp/asking-server.ts', import.meta.url));
const NODE = JSON.stringify(process.execPath);
const ROOTS = [
  { uri: 'file:///work/project', name: 'project' },
  { uri: 'file:///home/alice/secrets', name: 'secrets' },
];

/** A 2026-07-28 SDK client answering sampling, elicitation and roots; `asked` collects the elicitation messages. */
async function modernClient(gateway: RunningGateway, decide: (message: string) => Record<string, string>) {
  const asked: string[] = [];
  const client = new Client(
    { name: 'modern-asking-client', version: '1.0.0' },
    {
      capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
      versionNegotiation: { mode: 'auto' },
    },
  );
  client.setRequestHandler('sampling/createMessage', async (request) => {
    const last = request.params.messages.at(-1)?.content;
    const said = last !== undefined && !Array.isArray(last) && last.type === 'text' ? last.text : '?';
    return { model: 'test-model', role: 'assistant', content: { type: 'text', text: `echo ${said}` } };
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    const message = 'message' in request.params ? request.params.message : '';
    asked.push(message);
    return { action: 'accept', content: decide(message) };
  });
  client.setRequestHandler('roots/list', async () => ({ roots: ROOTS }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
    }),
  );
  return { client, asked };
}

function upstreamRequests(events: readonly RunEvent[]): string[] {
  return ofType(events, 'upstream_request').map((e) => `${e.data.server} ${e.data.method} ${e.data.outcome}`);
}

describe('toolgate gateway: a 2026-07-28 client answers upstream questions through input_required', () => {
  let dir: string;
  let gateway: RunningGateway | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-input-required-'));
    const file = join(dir, 'gateway.yaml');
    writeFileSync(
      file,
      `
servers:
  asking: { command: ${NODE}, args: [${JSON.stringify(ASKING)}] }
  strict: { command: ${NODE}, args: [${JSON.stringify(ASKING)}] }
tenants:
  acme:
    apiKeys: [{ key: ${KEY}, userId: alice }]
gateway:
  sampling: { strict: deny, "*": approve }
  roots: ["file:///work/**"]
  approvalTimeoutMs: 2000
`,
    );
    gateway = await startGateway({ config: file, store: `sqlite:${join(dir, 'gateway.db')}`, cwd: dir });
  });
  after(async () => {
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('forwards sampling (after the user approved), elicitation and filtered roots; deny refuses', async () => {
    assert.ok(gateway !== undefined);
    let allow = true;
    const { client, asked } = await modernClient(gateway, (message) =>
      message.startsWith('The MCP server') ? { decision: allow ? 'allow' : 'deny' } : { answer: '42' },
    );
    let runId: string;
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const names = (await client.listTools()).tools.map((t) => t.name);
      const named = (server: string, tool: string): string => {
        const found = names.find((name) => name.includes(server) && name.endsWith(tool));
        assert.ok(found !== undefined, `no ${server} ${tool} among ${names.join(', ')}`);
        return found;
      };
      // The session's own connections declare what the client declared: the servers list their asking tools.
      const askModel = named('asking', 'askModel');

      const model = await client.callTool({ name: askModel, arguments: { text: 'hello' } });
      assert.equal(textOf(model), 'model test-model said: echo hello');
      assert.match(asked[0] ?? '', /"asking" asks your model .*1 message, maxTokens 50.*Last message: hello/);
      runId = runIdOf(model);

      const user = await client.callTool({ name: named('asking', 'askUser'), arguments: { text: 'The answer?' } });
      assert.equal(textOf(user), 'user accept: {"answer":"42"}');
      assert.equal(asked[1], 'The answer?');

      const roots = await client.callTool({ name: named('asking', 'listRoots'), arguments: {} });
      assert.deepEqual(JSON.parse(textOf(roots)), { roots: ['file:///work/project'], rootsChanged: 0 });

      allow = false;
      const refusedByUser = await client.callTool({ name: askModel, arguments: { text: 'again' } });
      assert.match(textOf(refusedByUser), /refused \(-1\): .*the user refused the sampling request of "asking"/);

      const denied = await client.callTool({ name: named('strict', 'askModel'), arguments: { text: 'hi' } });
      assert.match(textOf(denied), /refused \(-1\): toolgate's policy refuses sampling requests of "strict"/);
      assert.equal(asked.length, 3, 'deny asks nobody');
    } finally {
      await client.close();
    }
    const events = await eventually(async () => {
      const log = await runEvents(gateway!, runId, KEY);
      return upstreamRequests(log).length >= 5 ? log : undefined;
    });
    assert.deepEqual(upstreamRequests(events), [
      'asking sampling/createMessage forwarded',
      'asking elicitation/create forwarded',
      'asking roots/list forwarded',
      'asking sampling/createMessage denied',
      'strict sampling/createMessage denied',
    ]);
    const roots = ofType(events, 'upstream_request').find((e) => e.data.method === 'roots/list');
    assert.equal(roots?.data.reason, '1 of 2 roots shown');
  });

  it('a client that does not come back: the server gets an error; a stale or forged state is refused', async () => {
    assert.ok(gateway !== undefined);
    const { client } = await modernClient(gateway, () => ({ answer: '42' }));
    try {
      const askUser = (await client.listTools()).tools.map((t) => t.name).find((n) => /asking.*askUser/.test(n));
      assert.ok(askUser !== undefined);
      const params = { name: askUser, arguments: { text: 'Still there?' } };
      const first: Record<string, unknown> = await client.callTool(params, { allowInputRequired: true });
      assert.equal(first['resultType'], 'input_required');
      const requestState = first['requestState'];
      assert.ok(typeof requestState === 'string');
      const answer = { 'upstream-request': { action: 'accept', content: { answer: 'late' } } };
      // Past gateway.approvalTimeoutMs the question is answered with an error upstream, and the answer comes too late.
      await new Promise((resolve) => setTimeout(resolve, 2600));
      // The retry's fields, as the SDK's own driver sends them (its callTool type leaves them out).
      const retry = { ...params, requestState, inputResponses: answer };
      const late = await client.callTool(retry, { allowInputRequired: true });
      assert.match(textOf(late), /no longer pending in this gateway process .*call the tool again/);
      const forgedRetry = { ...retry, requestState: `${requestState.slice(0, -2)}xx` };
      const forged = await client.callTool(forgedRetry, { allowInputRequired: true });
      assert.match(textOf(forged), /not one this gateway issued .*call the tool again/);
      const runId = runIdOf(await client.callTool({ name: askUser.replace('askUser', 'ping'), arguments: {} }));
      const events = await eventually(async () => {
        const log = await runEvents(gateway!, runId, KEY);
        return upstreamRequests(log).length >= 1 ? log : undefined;
      });
      const failed = ofType(events, 'upstream_request').find((e) => e.data.outcome === 'failed');
      assert.equal(`${failed?.data.method} ${failed?.data.outcome}`, 'elicitation/create failed');
      assert.match(failed?.data.reason ?? '', /did not come back with an answer within 2000 ms/);
      // The call itself is recorded: the server answered it after its question failed.
      const calls = ofType(events, 'tool_result').map((e) => JSON.stringify(e.data));
      assert.ok(
        calls.some((c) => c.includes('did not come back')),
        calls.join('\n'),
      );
    } finally {
      await client.close();
    }
  });
});
