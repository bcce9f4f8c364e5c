// The AI SDK's chat client in a real browser against a real `toolgate serve`: a page
// bundled here with esbuild from the `ai` package (AbstractChat with a small state that
// renders into the DOM, as @ai-sdk/react's Chat does into React), DefaultChatTransport
// pointed at /v1/ui/chat, and the SDK's own approval flow (addToolApprovalResponse with
// sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses) deciding a
// write toolgate holds. The page is served on the server's own origin by page.route().
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { findChromium, launchChromium } from '../support/browser.ts';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, ROOT, startServe, type StartedProcess } from '../support/processes.ts';

const KEY = 'acme-browser-chat-key-0123456789';
const ORDER = '{"userId":"bob","side":"BUY","price":80.25,"qty":1,"symbol":"DE-BASE-D+1"}';
const ANSWER = 'The day-ahead market is calm, with base load near 86 EUR/MWh.';

/** The page: a chat of the AI SDK, rendered into the DOM on every change of its state. */
const PAGE_ENTRY = `
import { AbstractChat, DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';

window.shownTexts = new Set();
const root = document.getElementById('messages');
const statusLine = document.getElementById('status');
let chat;

function render() {
  if (chat === undefined) return;
  statusLine.dataset.status = chat.status;
  statusLine.textContent = chat.status + (chat.error ? ': ' + chat.error.message : '');
  root.replaceChildren(...chat.messages.map((message) => {
    const box = document.createElement('article');
    box.dataset.role = message.role;
    for (const part of message.parts) {
      if (part.type === 'text') {
        const p = document.createElement('p');
        p.textContent = part.text;
        // Every text the page showed, to tell a streamed answer from one that arrived whole.
        window.shownTexts.add(part.text);
        box.append(p);
      } else if (part.type === 'dynamic-tool') {
        const tool = document.createElement('div');
        tool.className = 'tool';
        tool.dataset.tool = part.toolName;
        tool.dataset.state = part.state;
        tool.textContent = part.toolName + ' ' + JSON.stringify(part.toolMetadata?.normalisedInput ?? part.input);
        if (part.state === 'approval-requested') {
          for (const [label, approved] of [['Approve', true], ['Deny', false]]) {
            const button = document.createElement('button');
            button.textContent = label;
            button.onclick = () => chat.addToolApprovalResponse({ id: part.approval.id, approved });
            tool.append(button);
          }
        }
        box.append(tool);
      }
    }
    return box;
  }));
}

class DomChatState {
  #status = 'ready';
  #error = undefined;
  messages = [];
  get status() { return this.#status; }
  set status(value) { this.#status = value; render(); }
  get error() { return this.#error; }
  set error(value) { this.#error = value; render(); }
  pushMessage(message) { this.messages = [...this.messages, message]; render(); }
  popMessage() { this.messages = this.messages.slice(0, -1); render(); }
  replaceMessage(index, message) { this.messages = this.messages.map((m, i) => (i === index ? message : m)); render(); }
  snapshot(value) { return structuredClone(value); }
}

class DomChat extends AbstractChat {
  constructor(options) { super({ ...options, state: new DomChatState() }); }
}

chat = new DomChat({
  id: 'browser-chat',
  transport: new DefaultChatTransport({
    api: '/v1/ui/chat',
    headers: { authorization: 'Bearer ' + window.TOOLGATE_KEY },
  }),
  sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
});
render();

document.getElementById('ask').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = document.getElementById('question');
  void chat.sendMessage({ text: input.value });
  input.value = '';
});
`;

const PAGE_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>chat</title></head>
<body>
<form id="ask"><label>Question <input id="question"></label><button>Send</button></form>
<div id="status"></div><main id="messages"></main>
<script type="module" src="chat.js"></script>
</body></html>`;

function modelFor(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string | null }[];
  const question = messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  if (question.startsWith('Bid')) {
    // The page sends its whole conversation: the turn of this question had no result yet when it asked.
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const answered = messages.slice(lastUser).some((m) => m.role === 'tool');
    if (!answered) return { text: 'Placing the bid.', toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: ORDER }] };
    return { text: 'Your bid is in the book.' };
  }
  return { text: ANSWER, chunkDelayMs: 15 };
}

const chromium = findChromium();

describe(
  'the AI SDK chat client in a browser',
  {
    skip: chromium === undefined ? 'no Chromium here (apt-get install -y chromium, or set CHROMIUM_PATH)' : false,
    timeout: 60_000,
  },
  () => {
    let mock: MockOpenAI;
    let dir: string;
    let server: StartedProcess & { url: string };
    let browser: Browser;
    let bundle: string;
    const venueFile = (): string => join(dir, 'venue.json');
    /** Orders at the venue at this test's price (the power-exchange server writes its state file after each write). */
    const ordersPlaced = (): number => {
      if (!existsSync(venueFile())) return 0;
      const venue = JSON.parse(readFileSync(venueFile(), 'utf8')) as { exchange: { orders: { priceCents: number }[] } };
      return venue.exchange.orders.filter((order) => order.priceCents === 8025).length;
    };

    before(async () => {
      mock = await startMockOpenAI({ handler: modelFor });
      dir = mkdtempSync(join(tmpdir(), 'toolgate-ai-sdk-browser-'));
      writeFileSync(join(dir, 'chat-page.js'), PAGE_ENTRY);
      const built = await build({
        entryPoints: [join(dir, 'chat-page.js')],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'browser',
        // The entry sits in a temporary folder: `ai` resolves from this checkout.
        nodePaths: [join(ROOT, 'node_modules')],
        logLevel: 'silent',
      });
      bundle = built.outputFiles[0]?.text ?? '';
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        `model: openai:m
providers:
  openai: { baseUrl: "${mock.url}", apiKey: k, maxRetries: 0 }
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}, "--state", ${JSON.stringify(venueFile())}]
tools:
  "power-exchange/placeOrder": { approval: required }
tenants:
  acme:
    apiKeys: ["${KEY}"]
server: { store: "sqlite:./runs.db" }
`,
      );
      [server, browser] = await Promise.all([startServe({ cwd: dir }), launchChromium()]);
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await mock?.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it('renders a streamed answer, then approves a held write with addToolApprovalResponse: one order', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      // Served on the server's origin: the page calls /v1/ui/chat same-origin, with its key in a header.
      await page.route(`${server.url}/chat-page/**`, (route) => {
        const js = route.request().url().endsWith('.js');
        return route.fulfill({ contentType: js ? 'text/javascript' : 'text/html', body: js ? bundle : PAGE_HTML });
      });
      await page.addInitScript(`window.TOOLGATE_KEY = ${JSON.stringify(KEY)};`);
      await page.goto(`${server.url}/chat-page/index.html`);
      await page.locator('#status[data-status="ready"]').waitFor();

      await page.getByLabel('Question').fill('How is the market?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText(ANSWER).waitFor();
      const shown = await page.evaluate('[...window.shownTexts]');
      assert.ok(
        Array.isArray(shown) &&
          shown.some((t) => typeof t === 'string' && t !== '' && t !== ANSWER && ANSWER.startsWith(t)),
        'the answer was shown as it streamed, before it was whole',
      );
      await page.locator('#status[data-status="ready"]').waitFor();

      await page.getByLabel('Question').fill('Bid for bob: 1 MWh of DE-BASE-D+1 at 80.25');
      await page.getByRole('button', { name: 'Send' }).click();
      const held = page.locator('.tool[data-tool="placeOrder"][data-state="approval-requested"]');
      await held.waitFor();
      assert.match((await held.textContent()) ?? '', /"price":80\.25/, 'the arguments the call would run with');
      assert.equal(ordersPlaced(), 0, 'nothing was placed before the decision');

      await held.getByRole('button', { name: 'Approve' }).click();
      await page.getByText('Your bid is in the book.').waitFor();
      await page.locator('#status[data-status="ready"]').waitFor();
      assert.deepEqual(
        await page
          .locator('.tool[data-tool="placeOrder"]')
          .evaluateAll((tools) => tools.map((t) => t.getAttribute('data-state'))),
        ['output-available'],
        'one part for the call, with its output',
      );
      assert.equal(ordersPlaced(), 1, 'exactly one order at the venue');
      assert.deepEqual(
        await page.locator('article[data-role]').evaluateAll((boxes) => boxes.map((b) => b.getAttribute('data-role'))),
        ['user', 'assistant', 'user', 'assistant'],
      );
      await context.close();
      assert.deepEqual(errors, [], 'no errors in the browser console');
    });
  },
);
