// What `toolgate` says when it stops or decides, in real processes: the hint of a run
// that waits (exit 3) suggests only what would help; the overview names every provider;
// the auto router says what it did; a price set for a scripted model applies however
// the model's file is named.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  startMockOpenAI,
  type MockOpenAI,
  type MockResponse,
  type RecordedRequest,
} from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli } from '../support/processes.ts';

const NODE = JSON.stringify(process.execPath);
const ORDER = { userId: 'bob', side: 'BUY', price: 41, qty: 1, symbol: 'DE-BASE-D+1' };

/**
 * "plan …": a plan with one order; "news …" and "slow …": read the book (untrusted here) then order, or order; "Show me
 * …": read the book, then answer.
 */
function model(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string | null }[];
  const last = messages.at(-1)?.content ?? '';
  const first = messages.find((m) => m.role === 'user')?.content ?? '';
  if (/write a plan/.test(last)) return { text: JSON.stringify({ steps: [{ tool: 'placeOrder', arguments: ORDER }] }) };
  if (first.startsWith('news') && !messages.some((m) => m.role === 'tool'))
    return { toolCalls: [{ id: 'b', name: 'getOrderBook', arguments: '{}' }] };
  if (first.startsWith('news'))
    return { toolCalls: [{ id: 'o', name: 'placeOrder', arguments: JSON.stringify(ORDER) }] };
  if (first.startsWith('slow') && !messages.some((m) => m.role === 'tool'))
    return { toolCalls: [{ id: 'o', name: 'placeOrder', arguments: JSON.stringify(ORDER) }] };
  if (first.startsWith('Show me') && !messages.some((m) => m.role === 'tool'))
    return { toolCalls: [{ id: 'b', name: 'getOrderBook', arguments: '{}' }] };
  if (first.startsWith('Show me')) return { text: 'The book is deep.' };
  return { text: 'unexpected request' };
}

describe('what the CLI says (real processes)', () => {
  let mock: MockOpenAI;
  let dir: string;
  const cli = (args: string[], cwd = dir) =>
    runCli(args, { env: { TOOLGATE_HOME: join(dir, 'home'), TOOLGATE_URL: '', TOOLGATE_API_KEY: '' }, cwd });

  before(async () => {
    mock = await startMockOpenAI({ handler: model });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-hints-'));
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a plan that waits: exit 3, and the hint does not offer approval: never for a tool called "plan"', async () => {
    const { code, stderr } = await cli([
      'run',
      'plan an order',
      '--strategy',
      'plan',
      '--model',
      'openai:mock',
      '--base-url',
      mock.url,
      '--mcp',
      `${NODE} ${JSON.stringify(POWER_EXCHANGE_SERVER)}`,
    ]);
    assert.equal(code, 3, stderr);
    assert.match(
      stderr,
      /toolgate: the plan needs approval \(one decision for all its steps\) and there is no terminal to ask on/,
    );
    assert.match(stderr, /toolgate runs approve run_\w+/);
    assert.match(
      stderr,
      /Or next time: approve the plan with --yes, run in a terminal to decide it, or preview it with --dry-run\./,
    );
    assert.doesNotMatch(stderr, /approval: never|\/plan"/);
  });

  it(
    'a write held because of untrusted output: the hint names the ' +
      'source, and not approval: never (which the write already has)',
    async () => {
      const config = join(dir, 'untrusted.yaml');
      writeFileSync(
        config,
        `model: openai:mock\nproviders:\n  openai:\n    baseUrl: ${mock.url}\n    apiKey: k\nservers:\n  ` +
          (`px:\n    command: ${NODE}\n    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]\ntools:\n ` +
            ` "px/getOrderBook":\n    untrusted: true\n  "px/placeOrder":\n    approval: never\n`),
      );
      const { code, stderr } = await cli(['run', 'news, then order', '--config', config]);
      assert.equal(code, 3, stderr);
      assert.match(
        stderr,
        new RegExp(
          String.raw`toolgate: placeOrder \(write\) needs approval: it follows untru` +
            String.raw`sted output \(getOrderBook\) and there is no terminal to ask on`,
        ),
      );
      assert.match(
        stderr,
        new RegExp(
          String.raw`or, if getOrderBook returns only content you trust, ` +
            String.raw`mark it trusted in toolgate\.yaml\n {2}\(tools:` +
            String.raw` \{"<server>\/getOrderBook": \{untrusted: false\}\}\)\. ` +
            String.raw`approval: never does not lift this approval\.`,
        ),
      );
      assert.doesNotMatch(stderr, /set approval: never/);
    },
  );

  it('the auto router says what it did, then why', async () => {
    const { code, stderr } = await cli([
      'run',
      'Show me the order book',
      '--strategy',
      'auto',
      '--model',
      'openai:mock',
      '--base-url',
      mock.url,
      '--mcp',
      `${NODE} ${JSON.stringify(POWER_EXCHANGE_SERVER)}`,
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^↳ ReAct: a lookup with getOrderBook$/m);
  });

  it('a price for a scripted model applies when the config is read from another folder', async () => {
    // 1,000 tokens in and out at 1,000 USD per million each: $2 after the first turn, over the $0.50 budget.
    const project = join(dir, 'project');
    mkdirSync(project, { recursive: true });
    const usage = { promptTokens: 1000, completionTokens: 1000 };
    writeFileSync(
      join(project, 'model.json'),
      JSON.stringify({
        turns: [
          { toolCalls: [{ id: 'm', name: 'getMarketMetrics', arguments: '{}' }], usage },
          { text: 'Calm.', usage },
        ],
      }),
    );
    writeFileSync(
      join(project, 'toolgate.yaml'),
      `model: scripted:./model.json
servers:
  px:
    command: ${NODE}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
guard:
  maxCostUsd: 0.5
prices:
  "scripted:./model.json": { inputPerMTok: 1000, outputPerMTok: 1000 }
`,
    );
    const { code, stderr } = await cli(['run', 'How is the market?', '--config', join('project', 'toolgate.yaml')]);
    assert.equal(code, 1, stderr);
    assert.match(stderr, /guard budget_cost \(2 \/ 0\.5\)/);
  });

  it(
    '--yes says what it did before the summary, also when ' + 'it leaves a call whose outcome is unknown to a person',
    async () => {
      // The venue takes 1.5 s per order; toolgate gives up after 300 ms, so the order's outcome is unknown.
      const config = join(dir, 'slow.yaml');
      writeFileSync(
        config,
        `model: openai:mock\nproviders:\n  openai:\n    baseUrl: ${mock.url}\n    apiKey: k\nservers:\n  ` +
          (`px:\n    command: ${NODE}\n    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}, ` +
            `--delay, placeOrder=1500]\ntools:\n  "px/placeOrder":\n    timeoutMs: 300\n`),
      );
      const { code, stderr } = await cli(['run', 'slow order', '--config', config, '--yes']);
      assert.equal(code, 3, stderr);
      const lines = stderr.split('\n');
      const at = (re: RegExp): number => lines.findIndex((l) => re.test(l));
      const approved = at(/^✓ approved placeOrder \(--yes\)$/);
      const notApproved = at(/^⏸ not approved by --yes: placeOrder was sent and may already have happened$/);
      const summary = at(/^✗ waiting_approval · /);
      assert.ok(approved >= 0 && approved < notApproved && notApproved < summary, stderr);
      assert.ok(
        summary < at(/its outcome is unknown .*it may have happened/),
        'the commands that decide it follow the summary',
      );
    },
  );
});
