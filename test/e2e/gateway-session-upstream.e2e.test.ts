// A session's own upstream connections (its client declared sampling or roots) behave like the shared ones: their
// list changes and resource updates reach that session, its resources, prompts and subscriptions go over them, they
// close when unused for gateway.sessionUpstreamIdleMs (not while subscribed) and when the session ends, and their
// servers' stderr reaches the gateway's log. Also: requests other than tools/call refused by the rate limit (now
// completion/complete and resources/subscribe too) are recorded. Real gateway and server processes, the SDK client.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport, type ClientCapabilities } from '@modelcontextprotocol/client';
import { openStore } from '../../src/app/open-store.ts';
import { ofType } from '../support/events.ts';
import { connectStdio, eventually, textOf } from '../support/gateway.ts';
import { TOOLGATE_BIN, startProcess, type StartedProcess } from '../support/processes.ts';

const KEY = 'acme-key-123456';
const ASKING = fileURLToPath(new URL('../fixtures/mcp/asking-server.ts', import.meta.url));
const NOTIFYING = fileURLToPath(new URL('../fixtures/mcp/notifying-server.ts', import.meta.url));
const NODE = JSON.stringify(process.execPath);
const CAPABILITIES: ClientCapabilities = { sampling: {}, roots: { listChanged: true } };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of asking servers whose client declared roots and sampling (a session's own), in the order they started. */
function ownPids(log: string): number[] {
  return [...log.matchAll(/asking server pid (\d+): client declared roots,sampling/g)].map((m) => Number(m[1]));
}

describe('toolgate gateway: a session’s own upstream connections', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-session-upstream-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('forwards their changes and updates, closes them when idle or ended, logs their stderr', async () => {
    const file = join(dir, 'http.yaml');
    writeFileSync(
      file,
      `
servers:
  asking: { command: ${NODE}, args: [${JSON.stringify(ASKING)}] }
  notifying: { command: ${NODE}, args: [${JSON.stringify(NOTIFYING)}] }
tenants:
  acme: { apiKeys: [{ key: ${KEY}, userId: alice }] }
gateway:
  sessionUpstreamIdleMs: 1000
`,
    );
    const gateway: StartedProcess & { match: RegExpMatchArray } = await startProcess({
      command: process.execPath,
      args: [TOOLGATE_BIN, 'gateway', '--config', file, '--port', '0', '--store', 'memory', '--verbose'],
      cwd: dir,
      env: { NO_COLOR: '1', TOOLGATE_LOG_LEVEL: 'info' },
      ready: /MCP at (http:\/\/[^\s]+)\/mcp/,
      timeoutMs: 30_000,
    });
    const client = new Client({ name: 'own-upstream', version: '1.0.0' }, { capabilities: CAPABILITIES });
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    client.setRequestHandler('sampling/createMessage', async () => ({
      model: 'm',
      role: 'assistant',
      content: { type: 'text', text: 'ok' },
    }));
    const told: string[] = [];
    for (const method of [
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ] as const)
      client.setNotificationHandler(method, () => void told.push(method.split('/')[1] ?? ''));
    const updated: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.match[1]}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
    });
    try {
      await client.connect(transport);
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('askModel') && names.includes('add_item'), names.join(', '));
      // The session's own asking server started; its stderr is in the gateway's log.
      const [first] = await eventually(async () => nonEmpty(ownPids(gateway.output())), 10_000, 'own server pid');
      assert.ok(alive(first));

      // List changes of its own servers: told, and its view re-listed through the gateway.
      await client.listPrompts();
      await client.listResources();
      assert.equal(textOf(await client.callTool({ name: 'add_item', arguments: { name: 'zed' } })), 'added');
      await eventually(async () => (told.length >= 3 ? true : undefined), 10_000, 'three list changes');
      assert.deepEqual([...told].sort(), ['prompts', 'resources', 'tools']);
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'item_zed'));
      assert.ok((await client.listPrompts()).prompts.some((p) => p.name === 'prompt_zed'));
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      assert.ok(uris.includes('notify://items/zed'), 'resources are listed over its own connections');

      // A subscription is made on its own connection, and its updates reach it.
      await client.subscribeResource({ uri: 'notify://counter' });
      assert.equal(textOf(await client.callTool({ name: 'subscriptions', arguments: {} })), 'notify://counter');
      await client.callTool({ name: 'touch_counter', arguments: {} });
      await eventually(async () => (updated.length > 0 ? true : undefined), 10_000, 'a resource update');
      assert.deepEqual(updated, ['notify://counter']);

      // Subscribed: kept open although unused. Unsubscribed: closed after the idle time, opened again on demand.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.ok(alive(first), 'a subscribed session keeps its connections');
      await client.unsubscribeResource({ uri: 'notify://counter' });
      await eventually(async () => (alive(first) ? undefined : true), 10_000, 'the idle server to stop');
      assert.equal(textOf(await client.callTool({ name: 'ping', arguments: {} })), 'pong');
      const second = await eventually(
        async () => ownPids(gateway.output()).find((pid) => pid !== first),
        10_000,
        'the server to start again',
      );
      assert.ok(alive(second));

      // The session ends (DELETE): its servers stop with it, the gateway stays up.
      await transport.terminateSession();
      await eventually(async () => (alive(second) ? undefined : true), 10_000, 'the ended session’s server to stop');
      assert.equal(gateway.child.exitCode, null);
    } finally {
      await client.close().catch(() => undefined);
      await gateway.stop();
    }
  });

  it('records rate-limited requests other than tools/call, completion and subscribe included', async () => {
    const file = join(dir, 'limits.yaml');
    writeFileSync(
      file,
      `
servers:
  notifying: { command: ${NODE}, args: [${JSON.stringify(NOTIFYING)}] }
gateway:
  rateLimits: { tenant: { calls: 2, perSeconds: 600 } }
`,
    );
    const store = `sqlite:${join(dir, 'limits.db')}`;
    const { client } = await connectStdio(['--config', file, '--store', store], { cwd: dir });
    const ref = { type: 'ref/prompt' as const, name: 'greet' };
    try {
      const completed = await client.complete({ ref, argument: { name: 'language', value: 'f' } });
      assert.deepEqual(completed.completion.values, ['french', 'finnish']);
      await client.listResources();
      await assert.rejects(
        client.complete({ ref, argument: { name: 'language', value: 'f' } }),
        /completion\/complete refused: /,
      );
      await assert.rejects(client.subscribeResource({ uri: 'notify://counter' }), /resources\/subscribe refused/);
    } finally {
      await client.close();
    }
    const opened = await openStore(store, { cwd: dir });
    try {
      const { runs } = await opened.listRuns();
      assert.equal(runs.length, 1);
      const refused = ofType(await opened.readEvents(runs[0]?.id ?? ''), 'request_refused');
      assert.deepEqual(
        refused.map((e) => [e.data.method, e.data.code]),
        [
          ['completion/complete', 'rate_limited'],
          ['resources/subscribe', 'rate_limited'],
        ],
      );
      assert.match(refused[0]?.data.reason ?? '', /^completion\/complete refused: /);
    } finally {
      await opened.close();
    }
  });
});

function nonEmpty(pids: number[]): [number, ...number[]] | undefined {
  const [first, ...rest] = pids;
  return first === undefined ? undefined : [first, ...rest];
}
