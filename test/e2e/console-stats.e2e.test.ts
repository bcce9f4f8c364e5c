// The console's Stats view in a real browser (Debian's Chromium, playwright-core) against a real `toolgate serve`:
// SQLite on disk, the power-exchange MCP server, scripted models (one that calls a tool and answers, one that fails).
// The charts must be drawn (uPlot canvases with pixels on them), the figures must be GET /v1/stats's, the filters
// must narrow them, and the view refreshes while shown and stops when left.
// With UPDATE_SCREENSHOTS=1, docs/screenshots/console-stats.png is written.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Run } from '../../src/core/index.ts';
import type { StatsSnapshot } from '../../src/core/stats.ts';
import { rowLines, totalsLines } from '../../web/src/stats-model.ts';
import { consolePages, docsScreenshot, findChromium, launchChromium } from '../support/browser.ts';
import { POWER_EXCHANGE_SERVER, ROOT, startServe, type StartedProcess } from '../support/processes.ts';

const ACME = 'acme-stats-key-0123456789';
const GLOBEX = 'globex-stats-key-0123456789';
const OK = 'scripted:./ok.json';
const FAILS = 'scripted:./fails.json';
const USAGE = { promptTokens: 120, completionTokens: 30 };
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

const chromium = findChromium();

/** The server's configuration; without keys, every caller sees every tenant's runs. */
function config(options: { keys: boolean }): string {
  const tenants = options.keys
    ? `tenants:\n  acme:\n    apiKeys: ["${ACME}"]\n  globex:\n    apiKeys: ["${GLOBEX}"]\n`
    : '';
  return `model: ${OK}
models: ["${OK}", "${FAILS}"]
prices:
  "${OK}": { inputPerMTok: 1000, outputPerMTok: 2000 }
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
${tenants}server:
  store: sqlite:./data/runs.db
`;
}

describe(
  'the console shows live statistics as charts',
  {
    skip:
      chromium === undefined && process.env['CI'] === undefined
        ? 'no Chromium here (apt-get install -y chromium)'
        : false,
    timeout: 120_000,
  },
  () => {
    let dir: string;
    let server: StartedProcess & { url: string };
    let browser: Browser;
    const pages = consolePages({ browser: () => browser, url: () => server.url });

    const call = async (path: string, key: string, body?: unknown): Promise<Response> =>
      fetch(`${server.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { ...(key === '' ? {} : { authorization: `Bearer ${key}` }), 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const stats = async (key: string, query = ''): Promise<StatsSnapshot> => {
      const response = await call(`/v1/stats${query}`, key);
      assert.equal(response.status, 200, await response.clone().text());
      return (await response.json()) as StatsSnapshot;
    };
    /** Starts runs and waits until each has ended. */
    const runs = async (key: string, models: string[]): Promise<void> => {
      const ids: string[] = [];
      for (const [i, model] of models.entries()) {
        const response = await call('/v1/runs', key, { input: `market ${i}`, model, strategy: 'react' });
        assert.equal(response.status, 201, await response.clone().text());
        ids.push(((await response.json()) as Run).id);
      }
      for (const id of ids) {
        const deadline = Date.now() + 20_000;
        for (;;) {
          const run = (await (await call(`/v1/runs/${id}`, key)).json()) as Run;
          if (TERMINAL.has(run.status)) break;
          assert.ok(Date.now() < deadline, `run ${id} did not end`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const openStats = async (key: string, hash = '#/stats'): Promise<Awaited<ReturnType<typeof pages.open>>> => {
      const opened = await pages.open(key);
      await opened.page.goto(`${server.url}/${hash}`);
      await opened.page.getByRole('heading', { name: 'Stats' }).waitFor();
      return opened;
    };
    /** What the page shows: each totals line's text, and each row's key and cells. */
    const shown = async (page: Page): Promise<{ totals: Record<string, string>; rows: string[][] }> =>
      page.evaluate(() => ({
        totals: Object.fromEntries(
          [...document.querySelectorAll('[data-testid^="stat-"]')].map((el) => [
            (el.getAttribute('data-testid') ?? '').slice('stat-'.length),
            el.textContent ?? '',
          ]),
        ),
        rows: [...document.querySelectorAll('[data-testid="stats-row"]')].map((row) => [
          row.getAttribute('data-key') ?? '',
          ...[...row.querySelectorAll('[data-cell]')].map((cell) => cell.textContent ?? ''),
        ]),
      }));
    /** What the page should show for an answer of GET /v1/stats. */
    const expected = (snapshot: StatsSnapshot): { totals: Record<string, string>; rows: string[][] } => ({
      totals: Object.fromEntries(totalsLines(snapshot.totals).map((line) => [line.name, line.text])),
      rows: rowLines(snapshot).map((line) => [
        line.key,
        String(line.cells.ended),
        line.cells.completionRate,
        String(line.cells.failed),
        line.cells.toolP95,
        line.cells.costUsd,
      ]),
    });
    /** Every chart's canvas: its size, and how many of its pixels were drawn on. */
    const canvases = async (page: Page): Promise<{ width: number; height: number; drawn: number }[]> =>
      page.locator('.uplot canvas').evaluateAll((elements) =>
        elements.map((element) => {
          const canvas = element as HTMLCanvasElement;
          const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
          let drawn = 0;
          for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) drawn++;
          return { width: canvas.width, height: canvas.height, drawn };
        }),
      );

    before(async () => {
      if (chromium === undefined)
        throw new Error(
          'CI needs Chromium for the console tests: scripts/ci-services.sh installs it (apt-get install -y chromium)',
        );
      dir = mkdtempSync(join(tmpdir(), 'toolgate-console-stats-'));
      const built = spawnSync(
        process.execPath,
        [join(ROOT, 'scripts', 'build-console.ts'), '--out', join(dir, 'console')],
        { encoding: 'utf8' },
      );
      assert.equal(built.status, 0, built.stderr);
      writeFileSync(
        join(dir, 'ok.json'),
        JSON.stringify({
          turns: [
            { toolCalls: [{ id: 'm', name: 'getMarketMetrics', arguments: '{}' }], usage: USAGE },
            { text: 'The market is calm.', usage: USAGE },
          ],
        }),
      );
      writeFileSync(
        join(dir, 'fails.json'),
        JSON.stringify({ turns: [{ error: { code: 'model_bad_request', message: 'the model refused' } }] }),
      );
      writeFileSync(join(dir, 'toolgate.yaml'), config({ keys: true }));
      server = await startServe({ cwd: dir, env: { TOOLGATE_CONSOLE_DIR: join(dir, 'console') } });
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('an empty window says so in words and draws no chart', async () => {
      const { context, page } = await openStats(ACME);
      await page.getByTestId('stats-empty').filter({ hasText: 'No runs in the last 60 minutes.' }).waitFor();
      assert.equal(await page.locator('.uplot').count(), 0, 'no chart without data');
      await pages.closeClean(context, page);
    });

    it('draws sparklines and bars, shows the figures of GET /v1/stats, and the filters narrow them', async () => {
      await runs(ACME, [OK, OK, OK, FAILS, FAILS]);
      await runs(GLOBEX, [OK, OK]);
      const acme = await stats(ACME);
      assert.equal(acme.totals.runs.completed, 3, 'the API counted acme runs only');
      assert.equal(acme.totals.runs.failed, 2);
      const { context, page } = await openStats(ACME);
      await page
        .getByTestId('stats-row')
        .nth(acme.rows.length - 1)
        .waitFor();
      assert.deepEqual(await shown(page), expected(acme));
      assert.equal(await page.getByTestId('stats-row').count(), acme.rows.length);
      assert.ok(!(await page.getByTestId('stats-row').allTextContents()).join().includes('globex'), 'own tenant only');
      assert.equal(await page.getByLabel('Tenant').count(), 0, 'a key bound to a tenant has no tenant to choose');

      // Two bar charts and two sparklines per row, each a canvas of some size with pixels drawn on it.
      await page.waitForFunction(
        (n) => document.querySelectorAll('.uplot canvas').length === n,
        2 + 2 * acme.rows.length,
      );
      for (const canvas of await canvases(page)) {
        assert.ok(canvas.width > 0 && canvas.height > 0, `a canvas of ${canvas.width}×${canvas.height}`);
        assert.ok(canvas.drawn > 0, 'something was drawn on every chart');
      }
      await docsScreenshot(page, 'console-stats');

      // The model filter: only the failing model's row, and the totals the API gives for it.
      await page.getByLabel('Model').selectOption(FAILS);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="stats-row"]').length === 1);
      const failing = await stats(ACME, `?model=${encodeURIComponent(FAILS)}`);
      assert.equal(failing.totals.runs.failed, 2);
      await page
        .getByTestId('stat-runs')
        .filter({ hasText: expected(failing).totals['runs'] ?? '' })
        .waitFor();
      assert.deepEqual(await shown(page), expected(failing));
      assert.match(page.url(), /#\/stats\?model=scripted%3A/, 'the filter is in the URL');
      assert.deepEqual(
        await page.getByLabel('Model').locator('option').allTextContents(),
        ['any model', FAILS, OK],
        'the other model is still offered',
      );
      await pages.closeClean(context, page);
    });

    it('refreshes every 5 s while shown, shows a failing refresh as an error, and stops asking when left', async () => {
      const { context, page } = await pages.open(ACME);
      // The page's clock runs, and jumps ahead where the test says: no real 5 s waits.
      await page.clock.install();
      await page.goto(`${server.url}/#/stats`);
      await page.getByRole('heading', { name: 'Stats' }).waitFor();
      const before = Number(await page.getByTestId('stat-runs').getAttribute('data-value'));
      let asked = 0;
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/v1/stats') asked++;
      });
      // The page's clock also runs while the run is made (real time, longer on a loaded machine): the jump takes the
      // page to 4 s after the view was shown, whatever that took.
      const shownAt = await page.evaluate(() => Date.now());
      await runs(ACME, [OK]);
      const elapsed = (await page.evaluate(() => Date.now())) - shownAt;
      assert.ok(elapsed < 3_700, `making the run took ${elapsed} ms of the page's 5 s`);
      await page.clock.fastForward(3_700 - elapsed);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(asked, 0, 'not asked again before 5 s');
      await page.clock.fastForward(1_300);
      await page.waitForFunction(
        (n) => Number(document.querySelector('[data-testid="stat-runs"]')?.getAttribute('data-value')) === n,
        before + 1,
      );
      assert.equal(asked, 1);
      await page.route('**/v1/stats*', (route) =>
        route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code: 'store_unavailable', message: 'the store does not answer' } }),
        }),
      );
      await page.clock.fastForward(5_000);
      await page.getByTestId('stats-error').filter({ hasText: 'the store does not answer' }).waitFor();
      assert.equal(await page.getByTestId('stat-runs').getAttribute('data-value'), String(before + 1), 'kept');
      await page.unroute('**/v1/stats*');
      await page.clock.fastForward(5_000);
      await page.waitForFunction(() => document.querySelector('[data-testid="stats-error"]')?.textContent === '');
      await page.getByRole('link', { name: 'Runs', exact: true }).click();
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      const atLeave = asked;
      await page.clock.fastForward(30_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(asked, atLeave, 'no request for /v1/stats once the view is left');
      await pages.closeClean(context, page, /503/);
    });

    it('a server without keys shows every tenant, and the tenant filter narrows the figures', async () => {
      // The same store, served again without keys: the statistics are read back from the store.
      await server.stop();
      writeFileSync(join(dir, 'open.yaml'), config({ keys: false }));
      server = await startServe({
        cwd: dir,
        args: ['--config', 'open.yaml'],
        env: { TOOLGATE_CONSOLE_DIR: join(dir, 'console') },
      });
      const all = await stats('');
      assert.deepEqual([...new Set(all.rows.map((r) => r.tenant))].sort(), ['acme', 'globex']);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.goto(`${server.url}/#/stats`);
      await page.getByRole('heading', { name: 'Stats' }).waitFor();
      assert.deepEqual(await shown(page), expected(all));
      assert.deepEqual(await page.getByLabel('Tenant').locator('option').allTextContents(), [
        'any tenant',
        'acme',
        'globex',
      ]);
      await page.getByLabel('Tenant').selectOption('globex');
      await page.waitForFunction(() =>
        [...document.querySelectorAll('[data-testid="stats-row"]')].every((row) =>
          row.getAttribute('data-key')?.startsWith('globex '),
        ),
      );
      const globex = await stats('', '?tenant=globex');
      assert.equal(globex.totals.runs.completed, 2);
      await page
        .getByTestId('stat-runs')
        .filter({ hasText: expected(globex).totals['runs'] ?? '' })
        .waitFor();
      assert.deepEqual(await shown(page), expected(globex));
      await context.close();
      assert.deepEqual(errors, []);
    });
  },
);
