// The debug console in a real browser (Debian's Chromium, driven by
// playwright-core) against a real `toolgate serve`: SQLite on disk, the
// power-exchange MCP server, the mock model. Every page goes through a TCP
// proxy, so a test can cut the SSE connection the way a network would.
// With UPDATE_SCREENSHOTS=1, screenshots of the main views are written to docs/screenshots/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Run, RunEvent } from '../../src/core/index.ts';
import {
  consolePages,
  docsScreenshot,
  findChromium,
  launchChromium,
  startTcpProxy,
  type TcpProxy,
} from '../support/browser.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, ROOT, startServe, type StartedProcess } from '../support/processes.ts';

const ACME = 'acme-console-key-0123456789';
const GLOBEX = 'globex-console-key-0123456789';
const STREAMED =
  'The day-ahead market is calm: base load trades near 92 EUR/MWh, ' +
  'peak a little higher, and the order book is deep on both sides.';
// Below alice's resting sell order (86.5), so the venue takes it without crossing her own book.
const ORDER = '{"side":"BUY","price":80,"qty":1,"symbol":"DE-BASE-D+1"}';

function modelFor(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string }[];
  const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const lastTool = [...messages].reverse().find((m) => m.role === 'tool')?.content ?? '';
  const last = messages.at(-1)?.content ?? '';
  // The plan strategy's side calls, told apart by what they ask.
  if (/write a plan/.test(last))
    return { text: JSON.stringify({ steps: [{ tool: 'getMarketMetrics', arguments: {} }] }) };
  if (/The plan has run/.test(last)) return { text: '{"final_answer": "planned and done"}' };
  if (prompt.startsWith('stream')) return { text: STREAMED, chunkDelayMs: 60 };
  if (/^(order|reject|edit)/.test(prompt)) {
    if (turn === 0)
      return { text: 'Placing the order.', toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: ORDER }] };
    return {
      text: /reject|denied|not approved/i.test(lastTool) ? 'Understood: no order was placed.' : 'Your order is placed.',
    };
  }
  if (prompt.startsWith('slow')) {
    return turn === 0
      ? { text: 'Reading the book.', toolCalls: [{ id: 's1', name: 'getOrderBook', arguments: '{}' }] }
      : { text: 'The book is read.', chunkDelayMs: 30 };
  }
  return { text: `Answer to: ${prompt}` };
}

const chromium = findChromium();

describe(
  'the debug console in a browser',
  {
    skip:
      chromium === undefined && process.env['CI'] === undefined
        ? 'no Chromium here (apt-get install -y chromium)'
        : false,
    timeout: 240_000,
  },
  () => {
    let mock: MockOpenAI;
    let dir: string;
    let server: StartedProcess & { url: string };
    let proxy: TcpProxy;
    let browser: Browser;
    const pages = consolePages({ browser: () => browser, url: () => proxy.url });
    const closeClean = pages.closeClean;

    const api = async <T>(path: string, key = ACME): Promise<T> => {
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
      return (await response.json()) as T;
    };
    const log = async (id: string): Promise<RunEvent[]> =>
      (await api<{ events: RunEvent[] }>(`/v1/runs/${id}/events?format=json`)).events;

    const openPage = pages.open;

    const startRun = async (page: Page, prompt: string): Promise<string> => {
      await page.goto(`${proxy.url}/#/new`);
      await page.getByLabel('Prompt').fill(prompt);
      await page.getByRole('button', { name: 'Start run' }).click();
      await page.getByTestId('run-id').waitFor();
      return (await page.getByTestId('run-id').textContent()) ?? '';
    };

    /** The ids the page's raw log shows, in order. */
    const shownIds = async (page: Page): Promise<number[]> =>
      page
        .locator('[data-testid="event-log"] [data-event-id]')
        .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-event-id'))));

    before(async () => {
      if (chromium === undefined)
        throw new Error(
          'CI needs Chromium for the console tests: scripts/ci-services.sh installs it (apt-get install -y chromium)',
        );
      mock = await startMockOpenAI({ handler: modelFor });
      dir = mkdtempSync(join(tmpdir(), 'toolgate-console-'));
      // The console this server serves: built here, so `npm pack` rebuilding dist/ meanwhile cannot pull it away.
      const built = spawnSync(
        process.execPath,
        [join(ROOT, 'scripts', 'build-console.ts'), '--out', join(dir, 'console')],
        { encoding: 'utf8' },
      );
      assert.equal(built.status, 0, built.stderr);
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        `model: openai:mock
providers:
  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}, "--delay", "getOrderBook=2500"]
tools:
  "power-exchange/placeOrder": { approval: required, inject: { userId: "{{user.id}}" } }
tenants:
  acme:
    apiKeys: [{ key: "${ACME}", userId: alice }]
  globex:
    apiKeys: ["${GLOBEX}"]
server:
  store: sqlite:./data/runs.db
`,
      );
      server = await startServe({ cwd: dir, env: { TOOLGATE_CONSOLE_DIR: join(dir, 'console') } });
      proxy = await startTcpProxy(server.url);
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await proxy?.close();
      await server?.stop();
      await mock?.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it(
      'signs in with a key (a wrong one is refused in words), by ' +
        'keyboard alone; the key never lands in a URL or in storage',
      async () => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        const urls: string[] = [];
        page.on('request', (request) => urls.push(request.url()));
        await page.goto(`${proxy.url}/`);
        const key = page.getByLabel('API key');
        await key.waitFor();
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'api-key', 'the key field has the focus');
        await page.keyboard.type('not-a-key');
        await page.keyboard.press('Enter');
        await page.getByTestId('sign-in-error').filter({ hasText: 'not valid' }).waitFor();
        await docsScreenshot(page, 'console-sign-in');
        await key.fill(ACME);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'Runs' }).waitFor();
        assert.match((await page.getByTestId('who').textContent()) ?? '', /tenant acme/);
        const cookies = await context.cookies();
        const session = cookies.find((c) => c.name === 'toolgate_session');
        assert.ok(session !== undefined, 'a session cookie was set');
        assert.equal(session.httpOnly, true);
        assert.equal(session.sameSite, 'Strict');
        assert.equal(await page.evaluate(() => document.cookie), '', 'the page cannot read the session');
        assert.ok(!urls.some((u) => u.includes(ACME)), 'the key is in no URL');
        const stored = await page.evaluate(
          () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
        );
        assert.ok(!stored.includes(ACME), 'the key is not stored');
        await context.close();
      },
    );

    it('starts a run from the form and shows the answer while it streams', async () => {
      const { context, page } = await openPage(ACME);
      await page.goto(`${proxy.url}/#/new`);
      await page.getByLabel('Prompt').fill('stream the market');
      assert.match(
        await page.getByLabel('Idempotency key').inputValue(),
        /^[0-9a-f-]{36}$/,
        'a generated idempotency key',
      );
      assert.equal(
        await page.getByLabel('Model', { exact: true }).inputValue(),
        'openai:mock',
        'the model this tenant may use',
      );
      await page.getByLabel('Strategy').selectOption('react');
      await page.getByRole('button', { name: 'Start run' }).click();
      await page.getByTestId('run-id').waitFor();
      // Seen part-way: some of the answer shown, not all of it yet.
      const text = page.getByTestId('answer-text');
      await page.waitForFunction(
        (full) => {
          const shown = document.querySelector('[data-testid="answer-text"]')?.textContent ?? '';
          return shown.length > 10 && shown.length < full.length && full.startsWith(shown);
        },
        STREAMED,
        { polling: 20, timeout: 20_000 },
      );
      await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor();
      assert.equal(await text.textContent(), STREAMED);
      const runId = (await page.getByTestId('run-id').textContent()) ?? '';
      const run = await api<Run>(`/v1/runs/${runId}`);
      assert.equal(run.settings?.strategy, 'react');
      assert.deepEqual(
        await shownIds(page),
        (await log(runId)).map((e) => e.id),
      );
      await closeClean(context, page);
    });

    it(
      'starts a dry run with context values and a thread; the same idempotency ' +
        'key opens the same run; bad context JSON is refused in the page',
      async () => {
        const { context, page } = await openPage(ACME);
        await page.goto(`${proxy.url}/#/new`);
        await page.getByLabel('Prompt').fill('order as a dry run');
        await page.getByLabel(/Dry run/).check();
        await page.getByLabel(/Context/).fill('{"desk": ');
        await page.getByLabel('Thread id (optional)').fill('thread-console-1');
        await page.getByLabel('Idempotency key').fill('console-key-1');
        await page.getByRole('button', { name: 'Start run' }).click();
        await page.getByTestId('new-run-error').filter({ hasText: 'Context is not a JSON object' }).waitFor();
        assert.equal(await page.getByTestId('run-id').count(), 0, 'nothing was started');
        await page.getByLabel(/Context/).fill('{"desk": "power"}');
        await page.getByRole('button', { name: 'Start run' }).click();
        await page.getByTestId('run-id').waitFor();
        const runId = (await page.getByTestId('run-id').textContent()) ?? '';
        await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 20_000 });
        const run = await api<Run>(`/v1/runs/${runId}`);
        assert.equal(run.dryRun, true);
        assert.equal(run.threadId, 'thread-console-1');
        assert.deepEqual(run.context, { desk: 'power' });
        const events = await log(runId);
        const result = events.find((e): e is RunEvent<'tool_result'> => e.type === 'tool_result');
        assert.equal(result?.data.dryRun, true, 'the write was previewed, not sent');
        assert.match(
          (await page.locator('[data-testid="call-card"][data-tool="placeOrder"]').textContent()) ?? '',
          /dry run/,
        );
        // The same request with the same key: the same run, not a second one.
        await page.goto(`${proxy.url}/#/new`);
        await page.getByLabel('Prompt').fill('order as a dry run');
        await page.getByLabel(/Dry run/).check();
        await page.getByLabel(/Context/).fill('{"desk": "power"}');
        await page.getByLabel('Thread id (optional)').fill('thread-console-1');
        await page.getByLabel('Idempotency key').fill('console-key-1');
        await page.getByRole('button', { name: 'Start run' }).click();
        await page.getByTestId('run-id').filter({ hasText: runId }).waitFor();
        await closeClean(context, page);
      },
    );

    it('shows a plan’s steps and their state as they run', async () => {
      const { context, page } = await openPage(ACME);
      await page.goto(`${proxy.url}/#/new`);
      await page.getByLabel('Prompt').fill('plan a look at the market');
      await page.getByLabel('Strategy').selectOption('plan');
      await page.getByRole('button', { name: 'Start run' }).click();
      await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 20_000 });
      const plan = page.getByTestId('plan');
      assert.match((await plan.textContent()) ?? '', /getMarketMetrics.*done/s);
      assert.equal(await page.getByTestId('answer-text').textContent(), 'planned and done');
      await closeClean(context, page);
    });

    it('approves a placeOrder from its card and shows the final answer; injected values are marked', async () => {
      const { context, page } = await openPage(ACME);
      const runId = await startRun(page, 'order one MWh');
      const approval = page.getByTestId('approval');
      await approval.waitFor({ timeout: 20_000 });
      assert.match((await approval.textContent()) ?? '', /Approval needed: placeOrder/);
      assert.match((await approval.textContent()) ?? '', /injected by the server/, 'userId is set by the server');
      assert.equal(await page.locator('#arg-qty').inputValue(), '1');
      await docsScreenshot(page, 'console-approval');
      await approval.getByRole('button', { name: 'Approve', exact: true }).click();
      await page.getByTestId('answer-text').filter({ hasText: 'Your order is placed.' }).waitFor({ timeout: 20_000 });
      await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor();
      const card = page.locator('[data-testid="call-card"][data-tool="placeOrder"]');
      assert.match((await card.textContent()) ?? '', /done/);
      assert.match((await card.locator('.arg.injected').textContent()) ?? '', /userId.*alice.*injected/s);
      await docsScreenshot(page, 'console-run');
      const events = await log(runId);
      const result = events.find((e): e is RunEvent<'tool_result'> => e.type === 'tool_result');
      assert.equal(result?.data.ok, true, 'the order ran');
      assert.ok(
        events.some(
          (e) =>
            e.type === 'input_received' &&
            e.data.input.type === 'approval' &&
            e.data.input.decision === 'approve' &&
            e.data.input.userId === 'alice',
        ),
      );
      await closeClean(context, page);
    });

    it('rejects with a reason: the tool never runs and the model is told', async () => {
      const { context, page } = await openPage(ACME);
      const runId = await startRun(page, 'reject this order');
      const approval = page.getByTestId('approval');
      await approval.waitFor({ timeout: 20_000 });
      await approval.getByLabel('Reason for rejecting').fill('too expensive today');
      await approval.getByRole('button', { name: 'Reject' }).click();
      await page.getByTestId('answer-text').filter({ hasText: 'no order was placed' }).waitFor({ timeout: 20_000 });
      const events = await log(runId);
      assert.ok(!events.some((e) => e.type === 'tool_call'), 'placeOrder never ran');
      const decision = events.find((e): e is RunEvent<'input_received'> => e.type === 'input_received');
      assert.equal(
        decision?.data.input.type === 'approval' ? decision.data.input.reason : undefined,
        'too expensive today',
      );
      assert.match(
        (await page.locator('[data-testid="call-card"][data-tool="placeOrder"]').textContent()) ?? '',
        /reject.*too expensive today/s,
      );
      await closeClean(context, page);
    });

    it(
      'edits the arguments: an invalid edit is refused in ' +
        'the page and nothing is sent; a valid one runs as edited',
      async () => {
        const { context, page } = await openPage(ACME);
        const runId = await startRun(page, 'edit the order');
        const approval = page.getByTestId('approval');
        await approval.waitFor({ timeout: 20_000 });
        const posts: string[] = [];
        page.on('request', (request) => {
          if (request.method() === 'POST') posts.push(request.url());
        });
        await page.locator('#arg-qty').fill('-5');
        await approval.getByRole('button', { name: 'Approve with edits' }).click();
        await page.getByTestId('approval-error').filter({ hasText: 'qty' }).waitFor();
        assert.match(
          (await page.getByTestId('approval-error').textContent()) ?? '',
          /Not sent.*qty must be more than 0/,
        );
        assert.deepEqual(posts, [], 'the invalid edit was not sent');
        assert.equal((await api<Run>(`/v1/runs/${runId}`)).status, 'waiting_approval');
        await page.locator('#arg-qty').fill('3');
        await approval.getByRole('button', { name: 'Approve with edits' }).click();
        await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 20_000 });
        const call = (await log(runId)).find((e): e is RunEvent<'tool_call'> => e.type === 'tool_call');
        assert.equal(call?.data.arguments['qty'], 3);
        assert.equal(call?.data.arguments['userId'], 'alice', 'the injected value is the server’s, not the page’s');
        await closeClean(context, page);
      },
    );

    it(
      'an edit only the server can refuse: the page shows the server’s ' +
        'reasons, nothing is recorded, and the call keeps waiting',
      async () => {
        const { context, page } = await openPage(ACME);
        // A page whose copy of the schema is looser than the tool's (say, fetched before the server changed): its own
        // checks pass.
        await context.route('**/v1/tools', async (route) => {
          const response = await route.fetch();
          const body = (await response.json()) as {
            tools: { name: string; inputSchema: { properties: Record<string, Record<string, unknown>> } }[];
          };
          for (const tool of body.tools)
            if (tool.name === 'placeOrder') delete tool.inputSchema.properties['side']?.['enum'];
          await route.fulfill({ response, json: body });
        });
        const runId = await startRun(page, 'edit badly');
        const approval = page.getByTestId('approval');
        await approval.getByLabel(/side/).waitFor({ timeout: 20_000 });
        const before = (await log(runId)).length;
        await approval.getByLabel(/side/).fill('HOLD');
        await approval.getByRole('button', { name: 'Approve with edits' }).click();
        const error = page.getByTestId('approval-error');
        await error.filter({ hasText: 'input schema' }).waitFor();
        assert.match(
          (await error.textContent()) ?? '',
          /usage: the edited arguments for placeOrder do not match its input schema — side: .*BUY.*still waits/,
        );
        assert.equal((await api<Run>(`/v1/runs/${runId}`)).status, 'waiting_approval');
        assert.equal((await log(runId)).length, before, 'nothing was recorded');
        await approval.getByLabel(/side/).fill('SELL');
        await approval.getByRole('button', { name: 'Approve with edits' }).click();
        await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 20_000 });
        const call = (await log(runId)).find((e): e is RunEvent<'tool_call'> => e.type === 'tool_call');
        assert.equal(call?.data.arguments['side'], 'SELL');
        await closeClean(context, page, /status of 400/);
      },
    );

    it('shows the approval form once the tool’s schema is in, so nothing a person types is rebuilt away', async () => {
      const { context, page } = await openPage(ACME);
      // The tools answer (the schema the form is built from) comes late: after the run waits for approval.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      await context.route('**/v1/tools', async (route) => {
        await held;
        await route.continue();
      });
      const runId = await startRun(page, 'edit the order');
      for (let i = 0; i < 200 && (await api<Run>(`/v1/runs/${runId}`)).status !== 'waiting_approval'; i += 1)
        await new Promise((r) => setTimeout(r, 50));
      assert.equal((await api<Run>(`/v1/runs/${runId}`)).status, 'waiting_approval');
      await page.getByText('loading its tool’s schema').waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('#arg-qty').count(), 0, 'no form before the schema');
      release();
      await page.locator('#arg-qty').waitFor({ timeout: 20_000 });
      await page.locator('#arg-qty').fill('4');
      await page.getByTestId('approval').getByRole('button', { name: 'Approve with edits' }).click();
      await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 20_000 });
      const call = (await log(runId)).find((e): e is RunEvent<'tool_call'> => e.type === 'tool_call');
      assert.equal(call?.data.arguments['qty'], 4);
      await closeClean(context, page);
    });

    it('resumes after the SSE connection is cut mid-run: visible, with no event lost or shown twice', async () => {
      const { context, page } = await openPage(ACME);
      const runId = await startRun(page, 'slow book please');
      const state = page.getByTestId('stream-state');
      // The tool takes 2.5 s: cut the stream while it runs.
      await page.locator('[data-testid="call-card"][data-tool="getOrderBook"]').waitFor({ timeout: 20_000 });
      await page.waitForFunction(
        () => document.querySelector('[data-testid="stream-state"]')?.getAttribute('data-state') === 'live',
      );
      const cut = proxy.cut(new RegExp(`GET /v1/runs/${runId}/events`));
      assert.ok(cut >= 1, 'an SSE connection was open');
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid="stream-state"]')?.getAttribute('data-reconnects') ?? 0) >= 1,
        undefined,
        { timeout: 10_000 },
      );
      await page.getByTestId('run-status').filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
      await page.waitForFunction(
        () => document.querySelector('[data-testid="stream-state"]')?.getAttribute('data-state') === 'ended',
      );
      assert.match((await state.textContent()) ?? '', /run ended/);
      const ids = await shownIds(page);
      assert.deepEqual(
        ids,
        (await log(runId)).map((e) => e.id),
        'the page shows exactly the log',
      );
      assert.equal(await page.getByTestId('event-log').getAttribute('data-duplicates'), null);
      assert.equal(await page.getByTestId('answer-text').textContent(), 'The book is read.');
      await closeClean(context, page, /ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE/);
    });

    it('lists runs with filters and search, shows the timeline, and downloads the events as JSONL', async () => {
      const { context, page } = await openPage(ACME);
      await page.getByTestId('run-row').first().waitFor();
      const all = await page.getByTestId('run-row').count();
      assert.ok(all >= 5, `the earlier runs are listed (${all})`);
      await page.getByLabel('Search').fill('slow book');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="run-row"]').length === 1);
      await page.getByLabel('Search').fill('');
      await page.getByLabel('Status').selectOption('completed');
      await page.waitForFunction(
        (n) =>
          document.querySelectorAll('[data-testid="run-row"]').length > 0 &&
          document.querySelectorAll('[data-testid="run-row"]').length <= n,
        all,
      );
      const statuses = await page.locator('[data-testid="run-row"] [data-testid="run-status"]').allTextContents();
      assert.ok(
        statuses.every((s) => s === 'completed'),
        statuses.join(','),
      );
      await page.getByLabel('Strategy').selectOption('plan');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="run-row"]').length === 1);
      assert.match((await page.getByTestId('run-row').textContent()) ?? '', /plan a look at the market/);
      await page.getByLabel('Strategy').selectOption('reflect');
      await page.getByText('No runs match.').waitFor();
      await page.getByLabel('Strategy').selectOption('');
      await docsScreenshot(page, 'console-runs');
      await page.locator('[data-testid="run-row"] a', { hasText: /^run_/ }).first().click();
      await page.getByTestId('timeline').waitFor();
      const runId = (await page.getByTestId('run-id').textContent()) ?? '';
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-jsonl').click()]);
      const path = await download.path();
      const { readFileSync } = await import('node:fs');
      const lines = readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as RunEvent);
      assert.deepEqual(lines, await log(runId));
      await closeClean(context, page);
    });

    it(
      'shows the tools this tenant may use, with effect, approval ' +
        'rule, injected keys and schema, and each server’s state',
      async () => {
        const { context, page } = await openPage(ACME);
        await page.getByRole('link', { name: 'Tools' }).click();
        const order = page.locator('[data-testid="tool"][data-tool="placeOrder"]');
        await order.waitFor();
        const text = (await order.textContent()) ?? '';
        assert.match(text, /write/);
        assert.match(text, /approval: required/);
        assert.match(text, /hidden from the model.*userId/s);
        assert.match(
          (await page.locator('[data-testid="tool"][data-tool="getOrderBook"]').textContent()) ?? '',
          /read/,
        );
        assert.match(
          (await page.locator('[data-testid="server"][data-server="power-exchange"]').textContent()) ?? '',
          /up/,
        );
        await order.getByText('Input schema').click();
        assert.match((await order.locator('pre').textContent()) ?? '', /"qty"/);
        await docsScreenshot(page, 'console-tools');
        await closeClean(context, page);
      },
    );

    it('a second tenant sees none of the first tenant’s runs, not even by id', async () => {
      const acmeRuns = (await api<{ runs: { id: string }[] }>('/v1/runs')).runs;
      assert.ok(acmeRuns.length > 0);
      const { context, page } = await openPage(GLOBEX);
      await page.getByText('No runs match.').waitFor();
      assert.equal(await page.getByTestId('run-row').count(), 0);
      await page.goto(`${proxy.url}/#/runs/${acmeRuns[0]?.id ?? ''}`);
      await page.getByRole('alert').filter({ hasText: 'not found' }).waitFor();
      const body = await page.evaluate(async () => (await fetch('/v1/runs')).text());
      for (const run of acmeRuns) assert.ok(!body.includes(run.id), `globex got ${run.id}`);
      await closeClean(context, page, /status of 404/);
    });

    it('reads at phone width and in the dark theme, with no console errors anywhere', async () => {
      const { context, page } = await openPage(ACME, { width: 390, height: 844 });
      await page.locator('[data-testid="run-row"] a').first().click();
      await page.getByTestId('event-log').waitFor();
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 1, `no sideways scrolling at phone width (${overflow}px)`);
      await docsScreenshot(page, 'console-phone');
      await page.getByRole('button', { name: /theme/ }).click();
      assert.equal(await page.evaluate(() => document.documentElement.dataset['theme']), 'dark');
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(background, 'rgb(21, 23, 28)');
      await page.setViewportSize({ width: 1280, height: 900 });
      await docsScreenshot(page, 'console-dark');
      await closeClean(context, page);
    });
  },
);
