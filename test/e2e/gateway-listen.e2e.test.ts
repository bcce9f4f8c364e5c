// subscriptions/listen through the gateway (docs/gateway.md, "Every MCP method"): 2026-07-28 clients (official SDK,
// negotiated over Streamable HTTP) of two tenants, a real gateway process and a real upstream server
// (notifying-server.ts). Each stream is told only what its caller may see.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connectHttp, eventually, startGateway, textOf, type RunningGateway } from '../support/gateway.ts';
import { ACME, GLOBEX, LIST_NOTIFICATIONS, notifyingConfig, watchNotifications } from '../support/notifying-config.ts';

/** gateway.sessionIdleMs: a listen stream is ended gracefully after this long. */
const IDLE_MS = 10_000;

const CONFIG = notifyingConfig(`  sessionIdleMs: ${IDLE_MS}`);

const METHODS = LIST_NOTIFICATIONS;
const watch = (client: Client): Map<string, unknown[]> => watchNotifications(client);

const ALL_LISTS = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };

describe('gateway: subscriptions/listen for 2026-07-28 clients', () => {
  let dir: string;
  let gateway: RunningGateway;
  const clients: Client[] = [];
  const modern = async (key: string, name: string): Promise<Client> => {
    const { client } = await connectHttp(gateway, { key, era: 'auto', name });
    clients.push(client);
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    return client;
  };
  const subscribed = async (client: Client): Promise<string> =>
    textOf(await client.callTool({ name: 'subscriptions', arguments: {} }));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-gateway-listen-'));
    const file = join(dir, 'toolgate.yaml');
    writeFileSync(file, CONFIG);
    gateway = await startGateway({ config: file, store: `sqlite:${join(dir, 'listen.db')}`, cwd: dir });
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('list changes and resource updates reach only the tenant that may use the server', async () => {
    const acme = await modern(ACME, 'acme-listen');
    const globex = await modern(GLOBEX, 'globex-listen');
    const seenAcme = watch(acme);
    const seenGlobex = watch(globex);

    // A tenant cannot watch a resource it may not read: the stream is refused before it opens.
    await assert.rejects(
      globex.listen({ resourceSubscriptions: ['notify://counter'] }),
      /resource notify:\/\/counter is not available to you/,
    );
    assert.equal(await subscribed(acme), '');
    const acmeStream = await acme.listen({ ...ALL_LISTS, resourceSubscriptions: ['notify://counter'] });
    assert.deepEqual(acmeStream.honoredFilter, { ...ALL_LISTS, resourceSubscriptions: ['notify://counter'] });
    const globexStream = await globex.listen(ALL_LISTS);
    // The stream's subscription is the upstream server's: one per URI, as for a session's.
    assert.equal(await subscribed(acme), 'notify://counter');

    await acme.callTool({ name: 'add_item', arguments: { name: 'plum' } });
    for (const method of METHODS.slice(0, 3)) await eventually(async () => seenAcme.get(method), 5000, method);
    await acme.callTool({ name: 'touch_counter', arguments: {} });
    const updated = await eventually(async () => seenAcme.get('notifications/resources/updated'), 5000, 'updated');
    assert.equal(updated.length, 1);
    assert.deepEqual({ uri: (updated[0] as { uri?: unknown }).uri }, { uri: 'notify://counter' });
    // Globex's view did not change (it may not use the server): its stream, open all along, was told nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual([...seenGlobex.keys()], []);

    // The upstream subscription ends with the stream that held it.
    await acmeStream.close();
    assert.equal(await acmeStream.closed, 'local');
    await eventually(async () => ((await subscribed(acme)) === '' ? true : undefined), 5000, 'the unsubscribe');
    await globexStream.close();
  });

  it('streams are bounded: a share per caller, ended gracefully after gateway.sessionIdleMs', async () => {
    const acme = await modern(ACME, 'acme-bounded');
    const started = Date.now();
    const streams = await Promise.all(Array.from({ length: 10 }, () => acme.listen({ toolsListChanged: true })));
    await assert.rejects(acme.listen({ toolsListChanged: true }), /10 subscriptions\/listen streams open/);
    await streams[9]?.close();
    // A place given back is free again.
    const again = await acme.listen({ toolsListChanged: true });
    const ended = await Promise.all([again, ...streams.slice(0, 9)].map((s) => s.closed));
    assert.deepEqual(new Set(ended), new Set(['graceful']));
    assert.ok(Date.now() - started >= IDLE_MS - 500, `ended after ${Date.now() - started} ms`);
  });
});
