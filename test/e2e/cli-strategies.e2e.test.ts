// The CLI with strategies, in real processes: `toolgate run --strategy plan`
// shows the plan and prints the answer; a reflect run that escalates exits 3
// and `toolgate runs message` carries it on; a return-direct tool's result is
// the answer on stdout. The mock model answers by what each request asks.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

const EXCHANGE = `${JSON.stringify(process.execPath)} ${JSON.stringify(POWER_EXCHANGE_SERVER)}`;

function model(request: RecordedRequest): MockResponse {
  const messages = request.body.messages as { role: string; content: string | null }[];
  const last = messages.at(-1)?.content ?? '';
  const first = messages.find((m) => m.role === 'user')?.content ?? '';
  if (/write a plan/.test(last))
    return {
      text: JSON.stringify({ steps: [{ tool: 'getMarketMetrics', arguments: {} }, { thought: 'then summarise' }] }),
    };
  if (/The plan has run/.test(last)) return { text: '{"final_answer": "The market is calm."}' };
  if (/Stop and reflect/.test(last)) return { text: '{"verdict": "escalate", "reason": "which trader is meant?"}' };
  if (last === 'use bob') return { text: 'bob has 10,000 EUR.' };
  if (first.startsWith('wallet'))
    return { toolCalls: [{ id: 'w', name: 'getUserWallet', arguments: '{"userId":"zed"}' }] };
  if (first.startsWith('metrics') && !messages.some((m) => m.role === 'tool'))
    return { toolCalls: [{ id: 'm', name: 'getMarketMetrics', arguments: '{}' }] };
  return { text: 'unexpected request' };
}

describe('CLI with strategies (real processes)', () => {
  let mock: MockOpenAI;
  let dir: string;
  const cli = (args: string[]) =>
    runCli(args, { env: { TOOLGATE_HOME: join(dir, 'home'), TOOLGATE_URL: '', TOOLGATE_API_KEY: '' }, cwd: dir });
  const run = (prompt: string, ...flags: string[]) =>
    cli(['run', prompt, '--model', 'openai:mock', '--base-url', mock.url, '--mcp', EXCHANGE, ...flags]);

  before(async () => {
    mock = await startMockOpenAI({ handler: model });
    dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-strategies-'));
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--strategy plan prints the plan on stderr and the final answer on stdout', async () => {
    const { code, stdout, stderr } = await run('how is the market?', '--strategy', 'plan');
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'The market is calm.\n', 'the answer, not the plan JSON');
    assert.match(
      stderr,
      /▸ plan: 2 steps, no writes\n {2}1\. getMarketMetrics\(\{\}\) read\n {2}2\. then summarise\n→ getMarketMetrics/,
    );
    const bad = await run('x', '--strategy', 'plan-and-solve');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--strategy must be one of react, plan, reflect, auto, got "plan-and-solve"/);
  });

  it(
    'a reflect run that escalates exits 3 with the ' + 'commands; `runs message` answers it and the run completes',
    async () => {
      const waiting = await run('wallet of the trader', '--strategy', 'reflect');
      assert.equal(waiting.code, 3, waiting.stderr);
      assert.match(waiting.stderr, /↺ reflection after tool failure: escalate — which trader is meant\?/);
      const id =
        /toolgate runs message (run_\w+) "<your answer>"/.exec(waiting.stderr)?.[1] ?? assert.fail(waiting.stderr);
      const shown = (await cli(['runs', 'show', id])).stdout;
      assert.match(shown, /status +escalated/);
      assert.match(shown, new RegExp(`^ {4}toolgate runs message ${id} "<your answer>"$`, 'm'));
      const answered = await cli(['runs', 'message', id, 'use', 'bob']);
      assert.equal(answered.code, 0, answered.stderr);
      assert.equal(answered.stdout, 'bob has 10,000 EUR.\n');
      assert.match((await cli(['runs', 'show', id])).stdout, /status +completed/);
      const again = await cli(['runs', 'message', id, 'hello']);
      assert.equal(again.code, 2);
      assert.match(again.stderr, /has ended \(completed\)/);
    },
  );

  it("a return-direct tool's result is printed as the answer", async () => {
    const config = join(dir, 'direct.yaml');
    writeFileSync(
      config,
      `model: openai:mock\nproviders:\n  openai:\n    baseUrl: ${mock.url}\n    apiKey: k\nservers:\n  ` +
        (`px:\n    command: ${JSON.stringify(process.execPath)}\n    args: ` +
          `[${JSON.stringify(POWER_EXCHANGE_SERVER)}]\ntools:\n  "px/getMarketMetrics":\n    returnDirect: true\n`),
    );
    const { code, stdout, stderr } = await cli(['run', 'metrics please', '--config', config]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^DE-BASE-D\+1 market metrics/);
    assert.match(stderr, /✓ completed · 1 step/);
  });
});
