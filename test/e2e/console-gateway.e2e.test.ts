// The debug console in a real browser (Debian's Chromium, driven by
// playwright-core) against a real `toolgate gateway`: an MCP client session on
// the official SDK, with no elicitation support, shows up as a run; a person
// approves its held write in the console, and the client's waiting tools/call
// returns the result. Every page goes through a TCP proxy, as in the console's
// own browser test. With UPDATE_SCREENSHOTS=1, a screenshot of the session's
// run view is written to docs/screenshots/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import type { Run, RunEvent } from '../../src/core/index.ts';
import {
  consolePages,
  docsScreenshot,
  findChromium,
  launchChromium,
  startTcpProxy,
  type TcpProxy,
} from '../support/browser.ts';
import { ofType } from '../support/events.ts';
import {
  api,
  connectHttp,
  eventually,
  runEvents,
  runIdOf,
  startGateway,
  textOf,
  type RunningGateway,
} from '../support/gateway.ts';
import { POWER_EXCHANGE_SERVER, ROOT } from '../support/processes.ts';

const ACME = 'acme-console-gateway-key-0123456789';
const CLIENT = 'console-gateway-client';
// Below alice's resting sell order (86.5), so the venue takes it without crossing her own book.
const ORDER = { side: 'BUY', price: 80, qty: 1, symbol: 'DE-BASE-D+1' };

const chromium = findChromium();

describe(
  'the debug console and a gateway session, in a browser',
  {
    skip:
      chromium === undefined && process.env['CI'] === undefined
        ? 'no Chromium here (apt-get install -y chromium)'
        : false,
    timeout: 180_000,
  },
  () => {
    let dir: string;
    let gateway: RunningGateway;
    let proxy: TcpProxy;
    let browser: Browser;
    const clients: Client[] = [];
    const pages = consolePages({ browser: () => browser, url: () => proxy.url });
    const openPage = pages.open;
    const closeClean = pages.closeClean;

    before(async () => {
      if (chromium === undefined)
        throw new Error(
          'CI needs Chromium for the console tests: scripts/ci-services.sh installs it (apt-get install -y chromium)',
        );
      dir = mkdtempSync(join(tmpdir(), 'toolgate-console-gateway-'));
      // The console this gateway serves: built here, so `npm pack` rebuilding dist/ meanwhile cannot pull it away.
      const built = spawnSync(
        process.execPath,
        [join(ROOT, 'scripts', 'build-console.ts'), '--out', join(dir, 'console')],
        { encoding: 'utf8' },
      );
      assert.equal(built.status, 0, built.stderr);
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        `servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
tools:
  "power-exchange/placeOrder": { approval: required, inject: { userId: "{{user.id}}" } }
tenants:
  acme:
    apiKeys: [{ key: "${ACME}", userId: alice }]
gateway:
  approvalTimeoutMs: 120000
`,
      );
      // startGateway passes this process's environment on: the gateway serves the console built above.
      process.env['TOOLGATE_CONSOLE_DIR'] = join(dir, 'console');
      gateway = await startGateway({
        config: join(dir, 'toolgate.yaml'),
        store: `sqlite:${join(dir, 'toolgate.db')}`,
        cwd: dir,
      });
      proxy = await startTcpProxy(gateway.url);
      browser = await launchChromium();
    });

    after(async () => {
      await Promise.allSettled(clients.map((c) => c.close()));
      await browser?.close();
      await proxy?.close();
      await gateway?.stop();
      delete process.env['TOOLGATE_CONSOLE_DIR'];
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it(
      'shows an MCP client’s session as a gateway run, and a person ' +
        'approves its held write there: the client’s call returns',
      async () => {
        // The MCP client: a read, then a write held for approval; it declares no elicitation support, so its tools/call
        // waits for a person.
        const { client } = await connectHttp(gateway, { key: ACME, name: CLIENT });
        clients.push(client);
        const book = await client.callTool({ name: 'getOrderBook', arguments: { symbol: 'DE-BASE-D+1' } });
        assert.notEqual(book.isError, true, textOf(book));
        const runId = runIdOf(book);
        let settled = false;
        const pending = client
          .callTool({ name: 'placeOrder', arguments: ORDER }, { timeout: 60_000 })
          .finally(() => (settled = true));
        // Caught here and asserted below: a rejection before then must not go unhandled.
        pending.catch(() => undefined);
        const held = await eventually(
          async () => {
            const { body } = await api<Run>(gateway, `/v1/runs/${runId}`, { key: ACME });
            return body.status === 'waiting_approval' ? body : undefined;
          },
          20_000,
          'the placeOrder call to be held',
        );
        assert.equal(held.pendingApproval?.name, 'placeOrder');

        const { context, page } = await openPage(ACME);
        // The runs list: the session, as a gateway run waiting on its write.
        const row = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
        await row.waitFor({ timeout: 20_000 });
        const cells = await row.locator('td').allTextContents();
        assert.equal(cells[0], runId);
        assert.match(cells[1] ?? '', /waiting approval/);
        assert.match(cells[1] ?? '', /waits: placeOrder/);
        assert.equal(cells[2], 'gateway', 'the strategy column reads gateway');
        assert.equal(cells[3], 'acme');
        assert.equal(cells[4], `MCP gateway session: ${CLIENT} 1.0.0 over http`);
        await page.getByLabel('Strategy').selectOption('gateway');
        await page.waitForFunction(
          (id) =>
            [...document.querySelectorAll('[data-testid="run-row"]')]
              .map((r) => r.getAttribute('data-run-id'))
              .join() === id,
          runId,
        );

        // The run view: what the session is (no model, no strategy of its own), its two calls, the held write.
        await row.getByRole('link', { name: runId }).click();
        await page.getByTestId('run-id').filter({ hasText: runId }).waitFor();
        const meta = (await page.getByTestId('run-meta').textContent()) ?? '';
        assert.match(meta, new RegExp(`MCP gateway session · client ${CLIENT} 1\\.0\\.0 over http`));
        assert.match(meta, /tenant acme/);
        assert.doesNotMatch(meta, /model|strategy/, 'a gateway session has no model and no strategy to show');
        assert.equal(
          await page.getByRole('textbox', { name: 'Message to the run' }).count(),
          0,
          'no message box: nothing in a gateway session reads a message',
        );
        await page
          .locator('[data-testid="run-status"]', { hasText: 'waiting approval' })
          .first()
          .waitFor({ timeout: 20_000 });
        const read = page.locator('[data-testid="call-card"][data-tool="getOrderBook"]');
        const write = page.locator('[data-testid="call-card"][data-tool="placeOrder"]');
        await read.getByTestId('call-state').filter({ hasText: 'done' }).waitFor();
        assert.match((await read.getByTestId('call-decision').textContent()) ?? '', /allowed/);
        assert.match((await read.getByTestId('call-result').textContent()) ?? '', /order book/i);
        await write.getByTestId('call-state').filter({ hasText: 'waiting' }).waitFor();
        assert.match((await write.getByTestId('call-decision').textContent()) ?? '', /needs approval/);
        assert.match((await write.locator('.arg.injected').textContent()) ?? '', /userId.*alice.*injected/s);
        assert.doesNotMatch((await page.getByTestId('answer').textContent()) ?? '', /model/i, 'no model is waited for');

        // The approval panel: a person approves by clicking.
        const approval = page.getByTestId('approval');
        await approval.waitFor();
        assert.match((await approval.textContent()) ?? '', /Approval needed: placeOrder/);
        assert.match((await approval.textContent()) ?? '', /injected by the server/, 'userId is set by the gateway');
        assert.equal(await page.locator('#arg-qty').inputValue(), '1');
        assert.equal(settled, false, 'the client still waits');
        await approval.getByRole('button', { name: 'Approve', exact: true }).click();

        // The client's tools/call returns with the order placed for the key's user.
        const result = await pending;
        assert.notEqual(result.isError, true, textOf(result));
        assert.match(textOf(result), /Order ord-\d+ accepted/);
        assert.match(textOf(result), /Wallet of alice/);
        assert.equal(runIdOf(result), runId);

        // The run view follows: the write done, approved by alice; the session runs on.
        await write.getByTestId('call-state').filter({ hasText: 'done' }).waitFor({ timeout: 20_000 });
        assert.match((await write.textContent()) ?? '', /Decision: approve by alice/);
        assert.match((await write.getByTestId('call-result').textContent()) ?? '', /Order ord-\d+ accepted/);
        await page.getByTestId('approval').waitFor({ state: 'detached' });
        await page.locator('[data-testid="run-status"]', { hasText: 'running' }).first().waitFor();
        await page.getByTestId('timeline').waitFor();
        await docsScreenshot(page, 'console-gateway-session');

        const log: RunEvent[] = await runEvents(gateway, runId, ACME);
        const decision = ofType(log, 'input_received').at(-1)?.data.input;
        assert.equal(
          decision?.type === 'approval' ? `${decision.decision} by ${decision.userId ?? '?'}` : undefined,
          'approve by alice',
        );
        assert.deepEqual(ofType(log, 'tool_call').at(-1)?.data.arguments, { ...ORDER, userId: 'alice' });
        assert.deepEqual(
          await page
            .locator('[data-testid="event-log"] [data-event-id]')
            .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-event-id')))),
          log.map((e) => e.id),
          'the page shows exactly the log',
        );
        await closeClean(context, page);
      },
    );
  },
);
