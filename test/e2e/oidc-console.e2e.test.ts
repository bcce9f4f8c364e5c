// The console signs in through a real OpenID provider (oidc-provider in its own process) with the authorization code
// flow and PKCE, in a real browser (Debian's Chromium via playwright-core), against a real `toolgate serve` with an
// SQLite file. The console is reached as http://localhost:<port> and the provider as http://127.0.0.1:<port>: two
// sites, so the sign-in cookie must really ride the provider's redirect back (SameSite=Lax).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { findChromium, launchChromium } from '../support/browser.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { startOidcProvider, type RunningOidcProvider } from '../support/oidc-provider.ts';
import { freePort, ROOT, startServe, type StartedProcess } from '../support/processes.ts';

const ACME = 'acme-oidc-console-key-0123456789';
const GLOBEX = 'globex-oidc-console-key-0123456789';
const chromium = findChromium();

describe(
  'console sign-in with an OpenID provider, in a browser',
  {
    skip:
      chromium === undefined && process.env['CI'] === undefined
        ? 'no Chromium here (apt-get install -y chromium)'
        : false,
    timeout: 120_000,
  },
  () => {
    let dir: string;
    let mock: MockOpenAI;
    let provider: RunningOidcProvider;
    let server: StartedProcess & { url: string };
    let browser: Browser;
    let consoleUrl: string;
    const runs: Record<'acme' | 'globex', string> = { acme: '', globex: '' };

    const startRun = async (key: string, input: string): Promise<string> => {
      const response = await fetch(`${server.url}/v1/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input }),
      });
      assert.equal(response.status, 201, await response.clone().text());
      const { id }: { id: string } = await response.json();
      return id;
    };

    /** Goes to the provider from the console's button and stops at its login form; the authorization request. */
    const toProviderLogin = async (page: Page): Promise<URL> => {
      await page.goto(`${consoleUrl}/#/runs`);
      const authorization = page.waitForRequest((request) => request.url().startsWith(`${provider.issuer}/auth?`));
      await page.getByRole('link', { name: `Sign in with 127.0.0.1:${provider.port}` }).click();
      await page.locator('input[name="login"]').waitFor();
      assert.ok(page.url().startsWith(provider.issuer), `at the provider: ${page.url()}`);
      return new URL((await authorization).url());
    };

    before(async () => {
      if (chromium === undefined)
        throw new Error('CI needs Chromium for the console tests: scripts/ci-services.sh installs it');
      dir = mkdtempSync(join(tmpdir(), 'toolgate-oidc-console-'));
      const built = spawnSync(
        process.execPath,
        [join(ROOT, 'scripts', 'build-console.ts'), '--out', join(dir, 'console')],
        { encoding: 'utf8' },
      );
      assert.equal(built.status, 0, built.stderr);
      const port = await freePort();
      consoleUrl = `http://localhost:${port}`;
      [mock, provider] = await Promise.all([
        startMockOpenAI({ handler: () => ({ text: 'done' }) }),
        startOidcProvider({
          dir,
          consoleRedirectUris: [`${consoleUrl}/v1/auth/callback`],
          roles: { alice: ['trader', 'approver'] },
        }),
      ]);
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        `model: openai:mock
providers:
  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }
tenants:
  acme:
    apiKeys: ["${ACME}"]
  globex:
    apiKeys: ["${GLOBEX}"]
auth:
  resource: ${consoleUrl}
  oidc:
    - issuer: ${provider.issuer}
      console: { clientId: toolgate-console }
server:
  store: sqlite:./data/runs.db
  sessionSecret: a-session-secret-of-at-least-32-characters
`,
      );
      server = await startServe({
        cwd: dir,
        args: ['--port', String(port)],
        env: { TOOLGATE_CONSOLE_DIR: join(dir, 'console') },
      });
      runs.acme = await startRun(ACME, 'acme asks');
      runs.globex = await startRun(GLOBEX, 'globex asks');
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await provider?.stop();
      await mock?.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it("signs in at the provider and lands in the console as the token's tenant, user and roles", async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const authorize = await toProviderLogin(page);
      assert.equal(authorize.searchParams.get('redirect_uri'), `${consoleUrl}/v1/auth/callback`);
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(authorize.searchParams.get('resource'), consoleUrl);
      const login = (await context.cookies(`${consoleUrl}/v1/auth/callback`)).find((c) => c.name === 'toolgate_login');
      assert.ok(login !== undefined, 'the sign-in state cookie was set');
      assert.equal(login.httpOnly, true);
      assert.equal(login.sameSite, 'Lax');
      await page.locator('input[name="login"]').fill('alice@acme');
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      assert.ok(page.url().startsWith(`${consoleUrl}/#/runs`), page.url());
      const who = (await page.getByTestId('who').textContent()) ?? '';
      assert.match(who, /tenant acme/);
      assert.match(who, /user alice/);
      assert.match(who, /roles trader, approver/);
      await page.locator(`[data-run-id="${runs.acme}"]`).waitFor();
      assert.equal(await page.locator(`[data-run-id="${runs.globex}"]`).count(), 0, "another tenant's run is hidden");
      const cookies = await context.cookies(`${consoleUrl}/v1/auth/callback`);
      const session = cookies.find((c) => c.name === 'toolgate_session');
      assert.ok(session !== undefined, 'a console session cookie');
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, 'Strict');
      assert.equal(
        cookies.find((c) => c.name === 'toolgate_login'),
        undefined,
        'the state cookie is spent',
      );
      const info = await page.evaluate(async () => (await fetch('/v1/session')).json());
      assert.equal(info.tenantId, 'acme');
      assert.equal(info.issuer, provider.issuer);
      assert.equal(await page.evaluate(() => document.cookie), '', 'no token or cookie the page can read');
      const stored = await page.evaluate(
        () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
      );
      assert.doesNotMatch(stored, /eyJ/, 'no JWT in storage');
      // The session acts as alice for writes too: with the CSRF token, as a key session does.
      const cancel = await page.evaluate(
        async ({ id, csrf }) =>
          (await fetch(`/v1/runs/${id}/cancel`, { method: 'POST', headers: { 'X-CSRF-Token': csrf } })).status,
        { id: runs.globex, csrf: String(info.csrfToken) },
      );
      assert.equal(cancel, 404, "globex's run does not exist for acme");
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('link', { name: `Sign in with 127.0.0.1:${provider.port}` }).waitFor();
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('says clearly when the state was tampered with, or when the provider refused', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const state = (await toProviderLogin(page)).searchParams.get('state');
      const forged = `${consoleUrl}/v1/auth/callback?code=stolen-code&state=${state ?? ''}forged`;
      const tampered = await page.goto(forged);
      assert.equal(tampered?.status(), 401);
      await page.getByText(/state mismatch/).waitFor();
      await page.getByRole('link', { name: /sign in again/ }).waitFor();
      assert.doesNotMatch((await page.content()) ?? '', /at .*\.ts:\d+/, 'no stack trace');
      await toProviderLogin(page);
      await page.getByRole('link', { name: '[ Cancel ]' }).click();
      await page.getByText(/access_denied/).waitFor();
      await page.getByText(/sign in again and allow access/).waitFor();
      assert.equal(
        (await context.cookies(consoleUrl)).find((c) => c.name === 'toolgate_session'),
        undefined,
        'not signed in',
      );
      await page.getByRole('link', { name: /sign in again/ }).click();
      await page.getByRole('link', { name: `Sign in with 127.0.0.1:${provider.port}` }).waitFor();
      await context.close();
    });
  },
);
