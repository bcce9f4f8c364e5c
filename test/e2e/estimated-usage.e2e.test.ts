// Token counts when a model API does not report usage: a real `toolgate run`
// and a real `toolgate serve` against the mock OpenAI, Ollama and Anthropic
// servers answering without usage. toolgate counts the tokens itself, marks
// them `estimated: true` in events, the run and /metrics, and the guard's
// token and cost budgets hold on them; usage a provider reports is kept exactly.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Run, RunEvent, Usage } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic-server.ts';
import { startMockOllama, type MockOllama } from '../support/mock-ollama-server.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER, runCli, startServe, type StartedProcess } from '../support/processes.ts';

const EXCHANGE = `node ${JSON.stringify(POWER_EXCHANGE_SERVER)}`;

function jsonEvents(stdout: string): RunEvent[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RunEvent);
}

function assertEstimated(usage: Usage | undefined, what: string): asserts usage is Usage {
  assert.ok(usage !== undefined, `${what}: no usage recorded`);
  assert.equal(usage.estimated, true, `${what}: ${JSON.stringify(usage)}`);
  assert.ok(usage.promptTokens > 0 && usage.completionTokens > 0, `${what}: ${JSON.stringify(usage)}`);
  assert.equal(usage.totalTokens, usage.promptTokens + usage.completionTokens);
}

describe('estimated usage: toolgate run', () => {
  let mock: MockOpenAI;
  let dir: string;
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-estimate-run-'));
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (args: string[]) =>
    runCli(['run', ...args, '--model', 'openai:local', '--base-url', mock.url, '--api-key', 'k']);

  it(
    'a stream without its usage chunk: non-zero tokens ' + 'marked estimated in every event that carries usage',
    async () => {
      mock.enqueue(
        { toolCalls: [{ id: 'c1', name: 'getMarketMetrics', arguments: '{}' }], omitUsage: true },
        { text: 'The market is calm today.', omitUsage: true },
      );
      const { code, stdout, stderr } = await run(['How is the market?', '--mcp', EXCHANGE, '--json']);
      assert.equal(code, 0, stderr);
      assert.equal(
        mock.requests.at(-1)?.body.stream_options?.include_usage,
        true,
        'usage was asked for, and the server did not send it',
      );
      const events = jsonEvents(stdout);
      const turns = ofType(events, 'assistant_message');
      assert.equal(turns.length, 2);
      for (const turn of turns) assertEstimated(turn.data.usage, `step ${turn.data.step}`);
      // The second request carries the tool definitions, the first turn and the tool's result: it counts more.
      assert.ok((turns[1]?.data.usage?.promptTokens ?? 0) > (turns[0]?.data.usage?.promptTokens ?? 0));
      const done = events.at(-1);
      assert.equal(done?.type, 'run_completed');
      const total = done?.type === 'run_completed' ? done.data.usage : undefined;
      assertEstimated(total, 'the run');
      assert.equal(
        total.totalTokens,
        (turns[0]?.data.usage?.totalTokens ?? 0) + (turns[1]?.data.usage?.totalTokens ?? 0),
      );
    },
  );

  it('usage the provider reports is recorded exactly as reported, not estimated', async () => {
    mock.enqueue({ text: 'Calm.', usage: { promptTokens: 40, completionTokens: 2 } });
    const { code, stdout, stderr } = await run(['How is the market?', '--json']);
    assert.equal(code, 0, stderr);
    const events = jsonEvents(stdout);
    assert.deepEqual(ofType(events, 'assistant_message')[0]?.data.usage, {
      promptTokens: 40,
      completionTokens: 2,
      totalTokens: 42,
    });
    const done = events.at(-1);
    assert.deepEqual(done?.type === 'run_completed' ? done.data.usage : undefined, {
      promptTokens: 40,
      completionTokens: 2,
      totalTokens: 42,
    });
  });

  it(
    'guard.maxTokens trips on estimated tokens before the ' + 'next model call; the summary shows them as estimated',
    async () => {
      const config = join(dir, 'budget.yaml');
      writeFileSync(config, `guard: { maxTokens: 60 }\ntools: { "power-exchange/*": { approval: never } }\n`);
      const before = mock.requests.length;
      mock.enqueue({ toolCalls: [{ id: 'c1', name: 'getMarketMetrics', arguments: '{}' }], omitUsage: true });
      const { code, stderr } = await run(['How is the market?', '--mcp', EXCHANGE, '--config', config]);
      assert.equal(code, 1, stderr);
      assert.match(
        stderr,
        new RegExp(
          String.raw`run failed \(budget_tokens\): the run used \d+ tokens \(estima` +
            String.raw`ted: the model API did not report them all\), its budget is 60`,
        ),
      );
      // The summary says the count is an estimate.
      assert.match(stderr, /✗ failed · 1 step · ~[\d,]+ tokens \(estimated: [1-9]\d* in, [1-9]\d* out\)/);
      assert.equal(mock.requests.length - before, 1, 'the model was not asked again');
    },
  );
});

describe('estimated usage: toolgate serve, each model API', () => {
  const KEY = 'estimate-key-0123456789';
  const FRUGAL_KEY = 'frugal-key-0123456789';
  let openai: MockOpenAI;
  let ollama: MockOllama;
  let anthropic: MockAnthropic;
  let dir: string;
  let server: StartedProcess & { url: string };
  const call = (path: string, init: RequestInit & { key?: string } = {}): Promise<Response> =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${init.key ?? KEY}` },
    });
  const finished = async (id: string, key = KEY): Promise<Run> => {
    // The run's event stream ends after its last event.
    await (await call(`/v1/runs/${id}/events`, { key })).text();
    return (await (await call(`/v1/runs/${id}`, { key })).json()) as Run;
  };
  const start = async (body: Record<string, unknown>, key = KEY): Promise<{ run: Run; events: RunEvent[] }> => {
    const created = await call('/v1/runs', { method: 'POST', body: JSON.stringify(body), key });
    assert.equal(created.status, 201, await created.clone().text());
    const run = await finished(((await created.json()) as Run).id, key);
    const events = (
      (await (await call(`/v1/runs/${run.id}/events?format=json`, { key })).json()) as { events: RunEvent[] }
    ).events;
    return { run, events };
  };

  before(async () => {
    [openai, ollama, anthropic] = await Promise.all([
      startMockOpenAI(),
      startMockOllama({ models: ['qwen2.5:7b'] }),
      startMockAnthropic({ apiKey: 'sk-ant-test' }),
    ]);
    dir = mkdtempSync(join(tmpdir(), 'toolgate-estimate-serve-'));
    writeFileSync(
      join(dir, 'toolgate.yaml'),
      `model: openai:local
models: ["openai:*", "ollama:*", "anthropic:*"]
providers:
  openai: { baseUrl: "${openai.url}", apiKey: k, maxRetries: 0 }
  ollama: { host: "${ollama.url}", maxRetries: 0 }
  anthropic: { baseUrl: "${anthropic.url}", apiKey: sk-ant-test, maxRetries: 0 }
prices:
  "openai:*": { inputPerMTok: 10, outputPerMTok: 30 }
stream: false
tenants:
  acme:
    apiKeys: ["${KEY}"]
  frugal:
    apiKeys: ["${FRUGAL_KEY}"]
    guard: { maxCostUsd: 0.0001 }
servers:
  power-exchange:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}]
tools:
  "power-exchange/*": { approval: never }
server: { store: "sqlite:./runs.db" }
`,
    );
    server = await startServe({ cwd: dir });
  });
  after(async () => {
    await server.stop();
    await Promise.all([openai.close(), ollama.close(), anthropic.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'OpenAI-compatible, Ollama and Anthropic answers without ' +
      'usage: runs record estimated tokens, /metrics counts them apart',
    async () => {
      openai.enqueue({ text: 'Calm.', omitUsage: true });
      ollama.enqueue({ text: 'Calm.', omitUsage: true });
      anthropic.enqueue({ text: 'Calm.', omitUsage: true });
      for (const model of ['openai:local', 'ollama:qwen2.5:7b', 'anthropic:claude-sonnet-4-5']) {
        const { run, events } = await start({ input: 'How is the market?', model });
        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        assertEstimated(ofType(events, 'assistant_message')[0]?.data.usage, model);
        assertEstimated(run.usage, `${model}: the stored run`);
      }
      const metrics = await (await call('/metrics')).text();
      for (const model of ['openai:local', 'ollama:qwen2.5:7b', 'anthropic:claude-sonnet-4-5']) {
        for (const direction of ['input', 'output']) {
          const line = new RegExp(
            `^toolgate_tokens_estimated_total\\{model="${model}",direction="${direction}"\\} ([1-9]\\d*)$`,
            'm',
          ).exec(metrics);
          assert.ok(
            line !== null,
            `${model} ${direction} in:\n${metrics
              .split('\n')
              .filter((l) => l.startsWith('toolgate_tokens'))
              .join('\n')}`,
          );
          const total = new RegExp(
            `^toolgate_tokens_total\\{model="${model}",direction="${direction}"\\} (\\d+)$`,
            'm',
          ).exec(metrics);
          assert.equal(total?.[1], line[1], "all of this model's tokens were estimated");
        }
      }
    },
  );

  it(
    'Ollama leaving prompt_eval_count out (a cached prompt): ' +
      'the prompt is estimated, the reported answer count kept',
    async () => {
      ollama.enqueue({ text: 'Calm.', usage: { promptTokens: 999, completionTokens: 7 }, omitUsage: 'prompt' });
      const { run, events } = await start({ input: 'How is the market?', model: 'ollama:qwen2.5:7b' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const usage = ofType(events, 'assistant_message')[0]?.data.usage;
      assert.equal(usage?.completionTokens, 7);
      assert.equal(usage?.estimatedOnly, 'promptTokens');
      assertEstimated(usage, 'partial');
    },
  );

  it('guard.maxCostUsd trips on the cost of estimated tokens', async () => {
    openai.enqueue({ toolCalls: [{ id: 'c1', name: 'getMarketMetrics', arguments: '{}' }], omitUsage: true });
    const before = openai.requests.length;
    const { run } = await start({ input: 'How is the market?' }, FRUGAL_KEY);
    assert.equal(run.status, 'failed');
    assert.equal(run.error?.code, 'budget_cost', JSON.stringify(run.error));
    assert.match(
      run.error?.message ?? '',
      /\(from estimated tokens: the model API did not report them all\), its budget is \$0\.0001/,
    );
    assertEstimated(run.usage, 'the stopped run');
    assert.equal(openai.requests.length - before, 1, 'the model was not asked again');
  });
});
