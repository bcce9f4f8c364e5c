// Subscriptions over stdio and across an upstream restart (docs/gateway.md, "Every MCP method"): a real
// `toolgate gateway --stdio` process spawned by the official SDK client (2026-07-28 and 2025-era), a real upstream
// server (notifying-server.ts) that the test kills to make the gateway reconnect.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connectStdio, eventually, textOf } from '../support/gateway.ts';
import { LIST_NOTIFICATIONS, notifyingConfig, watchNotifications } from '../support/notifying-config.ts';

const METHODS = LIST_NOTIFICATIONS;
const watch = (client: Client): Map<string, unknown[]> => watchNotifications(client);

/** The URIs of the resource updates received. */
function uris(seen: Map<string, unknown[]>): unknown[] {
  return (seen.get('notifications/resources/updated') ?? []).map((params) => (params as { uri?: unknown }).uri);
}

const ALL_LISTS = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('gateway over stdio: subscriptions/listen, and subscriptions kept across an upstream restart', () => {
  let dir: string;
  let args: string[];
  const clients: Client[] = [];
  const subscribed = async (client: Client): Promise<string> =>
    textOf(await client.callTool({ name: 'subscriptions', arguments: {} }));
  /** Kills the upstream server: the gateway's next request to it restarts it, and must renew its subscriptions. */
  const restartUpstream = async (client: Client): Promise<void> => {
    const pid = Number(textOf(await client.callTool({ name: 'pid', arguments: {} })));
    assert.ok(Number.isInteger(pid) && pid > 0, `pid ${pid}`);
    process.kill(pid, 'SIGKILL');
    // The restarted server knows of no subscription but the gateway's renewed one.
    await eventually(async () => ((await subscribed(client)) === 'notify://counter' ? true : undefined), 10_000);
    const again = Number(textOf(await client.callTool({ name: 'pid', arguments: {} })));
    assert.notEqual(again, pid);
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-gateway-stdio-listen-'));
    const file = join(dir, 'toolgate.yaml');
    writeFileSync(file, notifyingConfig(''));
    args = ['--config', file, '--store', `sqlite:${join(dir, 'stdio.db')}`];
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('2026-07-28 over stdio: each stream is told its own list changes and resource updates', async () => {
    const { client } = await connectStdio(args, { cwd: dir, era: 'auto', name: 'modern-stdio' });
    clients.push(client);
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const seen = watch(client);

    // Refused before it is acknowledged, saying why.
    const many = Array.from({ length: 101 }, (_, i) => `notify://items/x${i}`);
    await assert.rejects(client.listen({ resourceSubscriptions: many }), /101 URIs, more than the 100/);
    // The session listed its tools: still, a stream hears of a change once, as its own view changed.
    await client.listTools();
    const stream = await client.listen({ ...ALL_LISTS, resourceSubscriptions: ['notify://counter'] });
    assert.deepEqual(stream.honoredFilter, { ...ALL_LISTS, resourceSubscriptions: ['notify://counter'] });
    // Subscribed upstream before the stream was acknowledged.
    assert.equal(await subscribed(client), 'notify://counter');

    await client.callTool({ name: 'add_item', arguments: { name: 'fig' } });
    for (const method of METHODS.slice(0, 3)) await eventually(async () => seen.get(method), 5000, method);
    await client.callTool({ name: 'touch_counter', arguments: {} });
    await eventually(async () => seen.get('notifications/resources/updated'), 5000, 'the update');
    await sleep(500);
    assert.equal(seen.get('notifications/tools/list_changed')?.length, 1);
    assert.deepEqual(uris(seen), ['notify://counter']);

    // The stream's subscription survives the upstream server's restart.
    await restartUpstream(client);
    await client.callTool({ name: 'touch_counter', arguments: {} });
    await eventually(async () => (seen.get('notifications/resources/updated')?.length === 2 ? true : undefined), 5000);

    // The upstream subscription ends with the stream.
    await stream.close();
    await eventually(async () => ((await subscribed(client)) === '' ? true : undefined), 5000, 'the unsubscribe');
  });

  it('2025-era over stdio: a restarted upstream server is subscribed again and its updates arrive', async () => {
    const { client } = await connectStdio(args, { cwd: dir, name: 'legacy-stdio' });
    clients.push(client);
    const seen = watch(client);
    await client.subscribeResource({ uri: 'notify://counter' });
    assert.equal(await subscribed(client), 'notify://counter');
    await restartUpstream(client);
    await client.callTool({ name: 'touch_counter', arguments: {} });
    await eventually(async () => seen.get('notifications/resources/updated'), 5000, 'the update');
    assert.deepEqual(uris(seen), ['notify://counter']);
  });
});
