// Forks and replays in the debug console, in a real browser (Debian's Chromium,
// driven by playwright-core) against a real `toolgate serve`: SQLite on disk, the
// power-exchange MCP server, the mock model. "Fork here" on a row of a completed
// run's event log forks it after that event with the settings chosen in the row's
// form, and opens the fork, which runs to its end and says where it comes from. A
// stored replay (written straight into the server's SQLite file, as `toolgate
// replay --save` writes one) shows its decision diff side by side with the run it
// replays. With UPDATE_SCREENSHOTS=1, screenshots of both are written to docs/screenshots/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ToolgateClient } from '../../src/client/index.ts';
import { draft, type ReplayDiff, type Run, type RunStatus } from '../../src/core/index.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import {
  consolePages,
  docsScreenshot,
  findChromium,
  launchChromium,
  startTcpProxy,
  type TcpProxy,
} from '../support/browser.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { ROOT, startServe, type StartedProcess } from '../support/processes.ts';
import { mockTradingYaml } from '../support/trading-config.ts';

const ACME = 'acme-console-fork-key-0123456789';
const USAGE = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

function modelFor(request: RecordedRequest): {
  text: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
} {
  const messages = request.body.messages as { role: string; content: string }[];
  const turn = messages.filter((m) => m.role === 'assistant').length;
  if (turn === 0)
    return { text: 'Reading the book.', toolCalls: [{ id: 'b1', name: 'getOrderBook', arguments: '{}' }] };
  return { text: `The book is read (answer ${turn}).` };
}

const chromium = findChromium();

describe(
  'forks and replays in the debug console, in a browser',
  {
    skip:
      chromium === undefined && process.env['CI'] === undefined
        ? 'no Chromium here (apt-get install -y chromium)'
        : false,
    timeout: 180_000,
  },
  () => {
    let mock: MockOpenAI;
    let dir: string;
    let server: StartedProcess & { url: string };
    let proxy: TcpProxy;
    let browser: Browser;
    let client: ToolgateClient;
    let original: Run;
    const pages = consolePages({ browser: () => browser, url: () => proxy.url });

    async function settle(runId: string, statuses: readonly RunStatus[]): Promise<Run> {
      for (let i = 0; ; i++) {
        const run = await client.getRun(runId);
        if (statuses.includes(run.status)) return run;
        if (i > 800) assert.fail(`run ${runId} is ${run.status}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }

    before(async () => {
      if (chromium === undefined)
        throw new Error(
          'CI needs Chromium for the console tests: scripts/ci-services.sh installs it (apt-get install -y chromium)',
        );
      mock = await startMockOpenAI({ handler: modelFor });
      dir = mkdtempSync(join(tmpdir(), 'toolgate-console-fork-'));
      const built = spawnSync(
        process.execPath,
        [join(ROOT, 'scripts', 'build-console.ts'), '--out', join(dir, 'console')],
        { encoding: 'utf8' },
      );
      assert.equal(built.status, 0, built.stderr);
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        `${mockTradingYaml({ modelUrl: mock.url })}tenants:
  acme:
    apiKeys: [{ key: "${ACME}", userId: alice }]
server:
  store: sqlite:./data/runs.db
`,
      );
      server = await startServe({ cwd: dir, env: { TOOLGATE_CONSOLE_DIR: join(dir, 'console') } });
      proxy = await startTcpProxy(server.url);
      browser = await launchChromium();
      client = new ToolgateClient({ url: server.url, apiKey: ACME });
      original = await settle((await client.createRun({ input: 'how deep is the book?' })).id, ['completed', 'failed']);
      assert.equal(original.status, 'completed', JSON.stringify(original.error));
    });

    after(async () => {
      await browser?.close();
      await proxy?.close();
      await server?.stop();
      await mock?.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it(
      "fork here on a completed run's event log: the row's form forks with the settings chosen, the fork " +
        'opens, runs to its end and links back to the original',
      async () => {
        const events = await client.readEvents(original.id);
        const firstUser = events.find((e) => e.type === 'user_message')?.id ?? 0;
        const result = events.find((e) => e.type === 'tool_result');
        assert.ok(result !== undefined);
        const { context, page } = await pages.open(ACME);
        await page.goto(`${proxy.url}/#/runs/${original.id}`);
        await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor();
        await page.locator(`[data-event-id="${original.lastEventId}"]`).waitFor();
        const forkable = await page
          .locator('[data-testid="event-log"] [data-event-id]')
          .evaluateAll((rows) =>
            rows
              .filter((row) => row.querySelector('[data-testid="fork-here"]') !== null)
              .map((row) => Number(row.getAttribute('data-event-id'))),
          );
        assert.deepEqual(
          forkable,
          events.filter((e) => e.id >= firstUser && e.id < original.lastEventId).map((e) => e.id),
          'from the first user message to the event before the end',
        );
        const row = page.locator(`[data-event-id="${result.id}"]`);
        await row.getByTestId('fork-here').click();
        const form = row.getByTestId('fork-form');
        await form.getByLabel('Fork strategy').selectOption('reflect');
        await form.getByLabel('Fork max steps').fill('0');
        await form.getByRole('button', { name: 'Fork run' }).click();
        await form.getByTestId('fork-error').filter({ hasText: 'whole number from 1 to 1000' }).waitFor();
        await form.getByLabel('Fork max steps').fill('5');
        await form.getByRole('button', { name: 'Fork run' }).click();
        await page.waitForFunction((id) => {
          const shown = document.querySelector('[data-testid="run-id"]')?.textContent ?? id;
          return shown !== id;
        }, original.id);
        const forkId = (await page.getByTestId('run-id').textContent()) ?? '';
        await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 20_000 });
        assert.equal(await page.getByTestId('answer-text').textContent(), 'The book is read (answer 1).');
        const banner = page.getByTestId('forked-from');
        assert.match(
          (await banner.textContent()) ?? '',
          new RegExp(`Forked from ${original.id} after event ${result.id} · changed: strategy "reflect", maxSteps 5`),
        );
        const fork = await client.getRun(forkId);
        assert.deepEqual(fork.metadata?.['forkOf'], { runId: original.id, afterEventId: result.id });
        assert.equal(fork.settings?.strategy, 'reflect');
        assert.equal(fork.settings?.maxSteps, 5);
        await docsScreenshot(page, 'console-fork');
        await banner.getByTestId('forked-from-link').click();
        await page.getByTestId('run-id').filter({ hasText: original.id }).waitFor();
        await pages.closeClean(context, page);
      },
    );

    it('a stored replay shows its diff beside the original: calls before and after, changes, answers', async () => {
      const diff: ReplayDiff = {
        of: original.id,
        calls: [
          {
            kind: 'changed',
            before: {
              toolCallId: 'call_1',
              name: 'placeOrder',
              step: 1,
              decision: 'allowed',
              arguments: { side: 'BUY', price: 80, qty: 7000 },
              outcome: 'executed',
            },
            after: {
              toolCallId: 'call_1',
              name: 'placeOrder',
              step: 1,
              decision: 'approval_required',
              arguments: { side: 'BUY', price: 80, qty: 7000 },
              policyRule: 'placeOrder',
              condition: 'qty * price > 10000',
              outcome: 'not_run',
            },
            changes: ['decision: allowed → approval_required'],
          },
          {
            kind: 'added',
            after: { toolCallId: 'call_2', name: 'cancelOrder', step: 2, decision: 'allowed', outcome: 'would_run' },
            changes: ['a call the original did not make'],
          },
        ],
        answer: { before: 'Your order is placed.', after: 'The order waits for approval.', changed: true },
        status: { before: 'completed', after: 'waiting_approval' },
        changed: true,
        model: 'recorded',
      };
      const store = await openSqliteRunStore({ path: join(dir, 'data', 'runs.db') });
      let replayId: string;
      try {
        const replay = await store.createRun({
          input: original.input,
          model: original.model,
          tenantId: 'acme',
          userId: 'alice',
          metadata: { replayOf: original.id },
        });
        replayId = replay.id;
        await store.append(
          replay.id,
          [
            draft('run_status', { from: 'queued', to: 'running' }),
            draft('run_started', { input: original.input, model: original.model, tools: [], maxSteps: 8 }),
            draft('user_message', { text: original.input }),
            draft('replay_compared', { of: original.id, diff }),
            draft('run_status', { from: 'running', to: 'completed' }),
            draft('run_completed', { output: 'The order waits for approval.', usage: USAGE, steps: 1 }),
          ],
          { status: 'completed', output: 'The order waits for approval.' },
        );
      } finally {
        await store.close();
      }
      const { context, page } = await pages.open(ACME);
      await page.goto(`${proxy.url}/#/runs/${replayId}`);
      const panel = page.getByTestId('replay');
      await panel.waitFor({ timeout: 20_000 });
      assert.match(
        (await panel.getByRole('heading').first().textContent()) ?? '',
        new RegExp(`Replay of ${original.id}`),
      );
      assert.match((await panel.textContent()) ?? '', /status completed → waiting_approval/);
      const rows = panel.getByTestId('replay-row');
      assert.equal(await rows.count(), 2);
      const changed = rows.nth(0);
      assert.equal(await changed.getAttribute('data-kind'), 'changed');
      const before = (await changed.locator('[data-side="before"]').textContent()) ?? '';
      const after = (await changed.locator('[data-side="after"]').textContent()) ?? '';
      assert.match(before, /placeOrder.*allowed.*executed.*"qty":7000/s);
      assert.match(after, /placeOrder.*needs approval.*not run.*rule placeOrder when qty \* price > 10000/s);
      assert.match((await changed.textContent()) ?? '', /decision: allowed → approval_required/);
      assert.match((await rows.nth(1).textContent()) ?? '', /only in the replay.*cancelOrder.*would run/s);
      assert.equal(
        await panel.getByTestId('replay-answer-before').locator('.answer-text').textContent(),
        'Your order is placed.',
      );
      assert.equal(
        await panel.getByTestId('replay-answer-after').locator('.answer-text').textContent(),
        'The order waits for approval.',
      );
      await docsScreenshot(page, 'console-replay');
      await panel.getByTestId('replay-of-link').click();
      await page.getByTestId('run-id').filter({ hasText: original.id }).waitFor();
      await pages.closeClean(context, page);
    });
  },
);
