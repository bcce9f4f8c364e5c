// Server capabilities forwarded through the gateway (docs/gateway.md, "Every MCP method"): list changes, resource
// subscriptions, completions, logging, progress and cancellation, with a real upstream server (notifying-server.ts)
// and real gateway processes, the official MCP SDK client over Streamable HTTP (both eras) and stdio.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { openStore } from '../../src/app/open-store.ts';
import { ofType } from '../support/events.ts';
import {
  connectHttp,
  connectStdio,
  eventually,
  runIdOf,
  startGateway,
  textOf,
  type RunningGateway,
} from '../support/gateway.ts';
import { ACME, GLOBEX, LIST_NOTIFICATIONS, notifyingConfig, watchNotifications } from '../support/notifying-config.ts';

const config = notifyingConfig;

/** Counts the notifications of each method a client receives, log messages too. */
const watch = (client: Client): Map<string, unknown[]> =>
  watchNotifications(client, [...LIST_NOTIFICATIONS, 'notifications/message']);

describe('gateway: server capabilities forwarded', () => {
  let dir: string;
  let gateway: RunningGateway;
  const clients: Client[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-gateway-notify-'));
    const file = join(dir, 'toolgate.yaml');
    writeFileSync(file, config('  approvalTimeoutMs: 60000'));
    gateway = await startGateway({ config: file, store: `sqlite:${join(dir, 'http.db')}`, cwd: dir });
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('2025-era HTTP: list changes and resource updates reach only the tenant that may use the server', async () => {
    const acme = (await connectHttp(gateway, { key: ACME, name: 'acme-app' })).client;
    const globex = (await connectHttp(gateway, { key: GLOBEX, name: 'globex-app' })).client;
    clients.push(acme, globex);
    const caps = acme.getServerCapabilities();
    assert.equal(caps?.tools?.listChanged, true);
    assert.deepEqual(caps?.resources, { listChanged: true, subscribe: true });
    assert.ok(caps?.completions !== undefined && caps.logging !== undefined);
    const seenAcme = watch(acme);
    const seenGlobex = watch(globex);
    for (const client of [acme, globex]) {
      await client.listTools();
      await client.listPrompts();
      await client.listResources();
    }
    // A URI nobody listed goes to the one server open to the tenant that offers subscriptions: it decides.
    await acme.subscribeResource({ uri: 'notify://nowhere' });
    assert.equal(textOf(await acme.callTool({ name: 'subscriptions', arguments: {} })), 'notify://nowhere');
    await acme.unsubscribeResource({ uri: 'notify://nowhere' });
    await assert.rejects(globex.subscribeResource({ uri: 'notify://counter' }), /not available to you/);
    await acme.subscribeResource({ uri: 'notify://counter' });

    await acme.callTool({ name: 'add_item', arguments: { name: 'kiwi' } });
    await eventually(async () => seenAcme.get('notifications/tools/list_changed'), 5000, 'tools list_changed');
    await eventually(async () => seenAcme.get('notifications/prompts/list_changed'), 5000, 'prompts list_changed');
    await eventually(async () => seenAcme.get('notifications/resources/list_changed'), 5000, 'resources changed');
    assert.ok((await acme.listTools()).tools.some((t) => t.name === 'item_kiwi'));

    await acme.callTool({ name: 'touch_counter', arguments: {} });
    const updated = await eventually(async () => seenAcme.get('notifications/resources/updated'), 5000, 'updated');
    assert.deepEqual(updated, [{ uri: 'notify://counter' }]);
    // Globex may not use the server: it was told nothing, although it listed everything too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual([...seenGlobex.keys()], []);

    // The upstream subscription ends with its last session.
    await acme.unsubscribeResource({ uri: 'notify://counter' });
    assert.equal(textOf(await acme.callTool({ name: 'subscriptions', arguments: {} })), '');
  });

  it('2025-era HTTP: completions, log levels, progress and cancellation', async () => {
    const { client } = await connectHttp(gateway, { key: ACME, name: 'acme-progress' });
    const globex = (await connectHttp(gateway, { key: GLOBEX, name: 'globex-complete' })).client;
    clients.push(client, globex);
    const language = {
      ref: { type: 'ref/prompt' as const, name: 'greet' },
      argument: { name: 'language', value: 'fr' },
    };
    assert.deepEqual((await client.complete(language)).completion.values, ['french']);
    const template = { type: 'ref/resource' as const, uri: 'notify://items/{name}' };
    const items = await client.complete({ ref: template, argument: { name: 'name', value: 'ap' } });
    assert.deepEqual(items.completion.values, ['apple', 'apricot']);
    // A tenant that may not use the server gets the spec's empty completion, not the server's values.
    assert.deepEqual((await globex.complete(language)).completion.values, []);

    await assert.rejects(client.setLoggingLevel('loud' as 'info'), /log level|Invalid/i);
    await client.setLoggingLevel('warning');

    const progress: unknown[] = [];
    const done = await client.callTool(
      { name: 'slow_count', arguments: { steps: 3 } },
      { onprogress: (p) => void progress.push(p) },
    );
    assert.equal(textOf(done), 'counted to 3');
    assert.equal(progress.length, 3);
    assert.deepEqual(progress[2], { progress: 3, total: 3, message: 'step 3' });

    const before = Number(textOf(await client.callTool({ name: 'cancellations', arguments: {} })));
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    await assert.rejects(client.callTool({ name: 'slow_count', arguments: { steps: 20 } }, { signal: stop.signal }));
    // The upstream server saw notifications/cancelled for its own request.
    await eventually(
      async () => {
        const now = Number(textOf(await client.callTool({ name: 'cancellations', arguments: {} })));
        return now === before + 1 ? now : undefined;
      },
      5000,
      'the upstream call cancelled',
    );
  });

  it('2026-07-28: progress and completion on per-request exchanges', async () => {
    const { client } = await connectHttp(gateway, { key: ACME, era: 'auto', name: 'modern-app' });
    clients.push(client);
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const progress: unknown[] = [];
    const done = await client.callTool(
      { name: 'slow_count', arguments: { steps: 2 } },
      { onprogress: (p) => void progress.push(p) },
    );
    assert.equal(textOf(done), 'counted to 2');
    assert.equal(progress.length, 2);
    const language = {
      ref: { type: 'ref/prompt' as const, name: 'greet' },
      argument: { name: 'language', value: 'g' },
    };
    assert.deepEqual((await client.complete(language)).completion.values, ['german']);
  });

  it('stdio with gateway.forwardLogs: log messages at the set level reach the client and the run', async () => {
    const file = join(dir, 'stdio.yaml');
    writeFileSync(file, config('  forwardLogs: true'));
    const store = `sqlite:${join(dir, 'stdio.db')}`;
    const { client } = await connectStdio(['--config', file, '--store', store], {
      cwd: dir,
    });
    clients.push(client);
    const seen = watch(client);
    await client.listTools();
    await client.setLoggingLevel('info');
    const result = await client.callTool({ name: 'slow_count', arguments: { steps: 2 } });
    const logs = await eventually(
      async () =>
        (seen.get('notifications/message')?.length ?? 0) >= 2 ? seen.get('notifications/message') : undefined,
      5000,
      'log messages',
    );
    assert.deepEqual(logs[0], { level: 'info', logger: 'notifying/counter', data: 'step 1 of 2' });
    const opened = await openStore(store, { cwd: dir });
    try {
      const recorded = await eventually(
        async () => {
          const events = ofType(await opened.readEvents(runIdOf(result)), 'upstream_log');
          return events.length >= 2 ? events : undefined;
        },
        5000,
        'upstream_log events',
      );
      assert.deepEqual(recorded[0]?.data, {
        server: 'notifying',
        level: 'info',
        logger: 'counter',
        data: 'step 1 of 2',
      });
    } finally {
      await opened.close();
    }
    // Above the level set, nothing is forwarded.
    await client.setLoggingLevel('error');
    const count = seen.get('notifications/message')?.length ?? 0;
    await client.callTool({ name: 'slow_count', arguments: { steps: 1 } });
    assert.equal(seen.get('notifications/message')?.length ?? 0, count);

    await client.callTool({ name: 'add_item', arguments: { name: 'fig' } });
    await eventually(async () => seen.get('notifications/tools/list_changed'), 5000, 'tools list_changed');
  });
});
