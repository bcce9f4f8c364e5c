// Browser tests drive Debian's Chromium with playwright-core (no browser download).
// A TCP proxy between the page and the server lets a test cut live connections
// (an SSE stream mid-run) the way a network would.
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './processes.ts';

/** The docs' screenshots, written by the console's browser tests when asked. */
export const SCREENSHOTS_DIR = join(ROOT, 'docs', 'screenshots');

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Chromium's path: CHROMIUM_PATH, else the usual Debian places; undefined when there is none. */
export function findChromium(): string | undefined {
  const configured = process.env['CHROMIUM_PATH'];
  if (configured !== undefined && configured !== '') return configured;
  return CANDIDATES.find((path) => existsSync(path));
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === undefined)
    throw new Error('no Chromium found: install it (apt-get install -y chromium) or set CHROMIUM_PATH');
  return chromium.launch({
    executablePath,
    // This machine's network is closed: without these, Chromium's own background connections fail noisily.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/**
 * Writes docs/screenshots/<name>.png of the page, only when UPDATE_SCREENSHOTS=1:
 * the screenshots are tracked files, and a test run leaves the checkout as it found it.
 */
export async function docsScreenshot(page: Page, name: string): Promise<void> {
  if (process.env['UPDATE_SCREENSHOTS'] !== '1') return;
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}.png`), fullPage: false });
}

export interface TcpProxy {
  url: string;
  /** Destroys both sides of every open connection whose first request line matches. */
  cut(requestLine: RegExp): number;
  close(): Promise<void>;
}

/** Forwards every connection to `target` (http://host:port), remembering each one's first request line. */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const open = new Map<Socket, { upstream: Socket; firstLine: string }>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    const entry = { upstream, firstLine: '' };
    open.set(client, entry);
    client.on('data', (chunk: Buffer) => {
      // Keep-alive: a connection's latest request line is what it is busy with.
      const text = chunk.toString('latin1');
      const line = /^(GET|POST|PUT|DELETE|HEAD|OPTIONS|PATCH) [^\r\n]*/.exec(text);
      if (line !== null) entry.firstLine = line[0];
    });
    client.pipe(upstream).pipe(client);
    const drop = (): void => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut(requestLine) {
      let count = 0;
      for (const [client, { upstream, firstLine }] of open) {
        if (!requestLine.test(firstLine)) continue;
        client.destroy();
        upstream.destroy();
        open.delete(client);
        count++;
      }
      return count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, { upstream }] of open) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

/**
 * Pages of the console signed in with an API key, each collecting the errors
 * the browser logs; `closeClean` closes a page's context and asserts that it
 * logged none (but the ones `expected` matches).
 */
export function consolePages(options: { browser: () => Browser; url: () => string }): {
  open: (key: string, viewport?: { width: number; height: number }) => Promise<{ context: BrowserContext; page: Page }>;
  closeClean: (context: BrowserContext, page: Page, expected?: RegExp) => Promise<void>;
} {
  const errorsOf = new WeakMap<Page, string[]>();
  return {
    open: async (key, viewport = { width: 1280, height: 900 }) => {
      const context = await options.browser().newContext({ viewport });
      const page = await context.newPage();
      const errors: string[] = [];
      errorsOf.set(page, errors);
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${options.url()}/`);
      await page.getByLabel('API key').fill(key);
      await page.getByLabel('API key').press('Enter');
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      return { context, page };
    },
    closeClean: async (context, page, expected) => {
      const errors = (errorsOf.get(page) ?? []).filter((e) => expected === undefined || !expected.test(e));
      await context.close();
      assert.deepEqual(errors, [], 'no errors in the browser console');
    },
  };
}
