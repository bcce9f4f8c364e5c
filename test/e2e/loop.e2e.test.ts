// The loop end to end: the real OpenAI adapter against the mock model server,
// real MCP server processes (the power-exchange example and the official
// server-everything) over stdio and Streamable HTTP.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Toolgate } from '../../src/app/toolgate.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import type { ServerConfig, ToolgateConfig } from '../../src/config/config-schema.ts';
import type { RunEvent } from '../../src/core/index.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.ts';
import {
  EVERYTHING_SERVER,
  POWER_EXCHANGE_SERVER,
  startEverythingHttp,
  startProcess,
  type StartedProcess,
} from '../support/processes.ts';

const everythingStdio: ServerConfig = { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] };
const exchangeStdio = (...extra: string[]): ServerConfig => ({
  command: process.execPath,
  args: [POWER_EXCHANGE_SERVER, ...extra],
});

function toolgateFor(
  mock: MockOpenAI,
  servers: Record<string, ServerConfig>,
  options: { stream?: boolean; maxSteps?: number; tools?: ToolgateConfig['tools'] } = {},
): Toolgate {
  const settings = resolveSettings(
    {
      model: 'openai:mock-model',
      providers: { openai: { baseUrl: mock.url, apiKey: 'test-key', maxRetries: 0 } },
      servers,
      ...(options.tools === undefined ? {} : { tools: options.tools }),
    },
    {},
    {},
  );
  return new Toolgate({
    settings: {
      ...settings,
      stream: options.stream ?? true,
      ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    },
  });
}

async function runCollecting(toolgate: Toolgate, input: string) {
  const seen: RunEvent[] = [];
  const run = await toolgate.run({ input, onEvent: (e) => seen.push(e) });
  const stored = await toolgate.store.readEvents(run.id);
  assert.deepEqual(seen, stored, 'live events equal the stored log');
  return { run, events: stored };
}

function toolMessages(mock: MockOpenAI, requestIndex: number): { tool_call_id: string; content: string }[] {
  const body = mock.requests[requestIndex]?.body as
    { messages: { role: string; tool_call_id: string; content: string }[] } | undefined;
  return (body?.messages ?? []).filter((m) => m.role === 'tool');
}

function results(events: RunEvent[]) {
  return events.flatMap((e) => (e.type === 'tool_result' ? [e.data] : []));
}

describe('loop e2e: server-everything', () => {
  let mock: MockOpenAI;
  let http: StartedProcess & { url: string };
  before(async () => {
    mock = await startMockOpenAI();
    http = await startEverythingHttp();
  });
  after(async () => {
    await mock.close();
    await http.stop();
  });

  for (const transport of ['stdio', 'http'] as const) {
    for (const stream of [true, false]) {
      it(
        `parallel calls over ${transport}, ${stream ? 'streaming' : 'not streaming'}: ` +
          `results in order, back to the model`,
        async () => {
          const first = mock.requests.length;
          mock.enqueue(
            {
              text: 'Adding up.',
              toolCalls: [
                { id: 'c1', name: 'get-sum', arguments: '{"a": 2, "b": 3}' },
                { id: 'c2', name: 'echo', arguments: '{"message":"hi"}' },
              ],
            },
            { text: 'The sum is 5.' },
          );
          const toolgate = toolgateFor(
            mock,
            { everything: transport === 'stdio' ? everythingStdio : { url: http.url } },
            { stream },
          );
          try {
            const { run, events } = await runCollecting(toolgate, 'add 2 and 3');
            assert.equal(run.status, 'completed', JSON.stringify(run.error));
            assert.equal(run.output, 'The sum is 5.');
            assert.equal(run.steps, 2);
            assert.equal(mock.requests[first]?.body.stream === true, stream);
            const offered = (mock.requests[first]?.body.tools as { function: { name: string } }[]).map(
              (t) => t.function.name,
            );
            assert.ok(offered.includes('get-sum') && offered.includes('echo'));
            const sent = toolMessages(mock, first + 1);
            assert.deepEqual(
              sent.map((m) => m.tool_call_id),
              ['c1', 'c2'],
            );
            assert.equal(sent[0]?.content, 'The sum of 2 and 3 is 5.');
            assert.match(sent[1]?.content ?? '', /hi/);
            assert.equal(
              events.some((e) => e.type === 'assistant_delta'),
              stream,
            );
            assert.ok(run.usage.totalTokens > 0);
          } finally {
            await toolgate.close();
          }
        },
      );
    }
  }

  it('invalid arguments never reach the tool: the model gets what to fix and the run goes on', async () => {
    const first = mock.requests.length;
    mock.enqueue(
      { toolCalls: [{ id: 'bad', name: 'get-sum', arguments: '{"a": "two"}' }] },
      { text: 'I could not add those.' },
    );
    const toolgate = toolgateFor(mock, { everything: everythingStdio });
    try {
      const { run, events } = await runCollecting(toolgate, 'add two');
      assert.equal(run.status, 'completed');
      assert.equal(results(events)[0]?.ok, false);
      assert.equal(
        events.some((e) => e.type === 'tool_call'),
        false,
        'the tool was not called',
      );
      assert.match(
        toolMessages(mock, first + 1)[0]?.content ?? '',
        /^Error \(invalid_arguments\):.*b: missing, but required.*a: must be number, not string; you sent "two"/s,
      );
    } finally {
      await toolgate.close();
    }
  });

  it('maxSteps stops a model that never stops calling tools', async () => {
    const toolgate = toolgateFor(mock, { everything: everythingStdio }, { maxSteps: 3 });
    for (let i = 0; i < 3; i++)
      mock.enqueue({ toolCalls: [{ id: `loop${i}`, name: 'echo', arguments: '{"message":"again"}' }] });
    try {
      const { run, events } = await runCollecting(toolgate, 'loop forever');
      assert.equal(run.status, 'failed');
      assert.equal(run.error?.code, 'max_steps');
      assert.equal(results(events).length, 3);
      assert.equal(events.at(-1)?.type, 'run_failed');
    } finally {
      await toolgate.close();
    }
  });

  it('a model API error fails the run with a clear code', async () => {
    mock.enqueue({
      status: 401,
      body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
    });
    const toolgate = toolgateFor(mock, { everything: everythingStdio });
    try {
      const { run } = await runCollecting(toolgate, 'hello');
      assert.equal(run.status, 'failed');
      assert.equal(run.error?.code, 'model_auth');
      assert.match(run.error?.message ?? '', /Incorrect API key/);
    } finally {
      await toolgate.close();
    }
  });
});

describe('loop e2e: power-exchange example', () => {
  let mock: MockOpenAI;
  let dir: string;
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-e2e-'));
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a tool that reports an error leaves the run alive: the model sees it and answers', async () => {
    const first = mock.requests.length;
    mock.enqueue(
      { toolCalls: [{ id: 'nobody', name: 'getUserWallet', arguments: '{"userId":"nobody"}' }] },
      { text: 'No such user.' },
    );
    const toolgate = toolgateFor(mock, { 'power-exchange': exchangeStdio() });
    try {
      const { run, events } = await runCollecting(toolgate, 'wallet of nobody');
      assert.equal(run.status, 'completed');
      assert.equal(results(events)[0]?.error?.code, 'tool_error');
      assert.match(toolMessages(mock, first + 1)[0]?.content ?? '', /^Error \(tool_error\):.*nobody/s);
    } finally {
      await toolgate.close();
    }
  });

  it(
    'reads and writes over stdio: an order placed through ' + "the loop (after approval) moves the new user's wallet",
    async () => {
      const first = mock.requests.length;
      mock.enqueue(
        { toolCalls: [{ id: 'r1', name: 'registerUser', arguments: '{"userId":"carol"}' }] },
        { toolCalls: [{ id: 'w1', name: 'getUserWallet', arguments: '{"userId":"carol"}' }] },
        {
          toolCalls: [
            {
              id: 'o1',
              name: 'placeOrder',
              arguments: '{"userId":"carol","side":"BUY","price":500,"qty":1,"symbol":"DE-BASE-D+1"}',
            },
          ],
        },
        { toolCalls: [{ id: 'w2', name: 'getUserWallet', arguments: '{"userId":"carol"}' }] },
        { text: 'Order placed.' },
      );
      const toolgate = toolgateFor(
        mock,
        { 'power-exchange': exchangeStdio() },
        { tools: { 'power-exchange/registerUser': { approval: 'never' } } },
      );
      try {
        const waiting = await toolgate.run({ input: 'buy 1 MWh for carol' });
        assert.equal(waiting.status, 'waiting_approval');
        assert.equal(waiting.pendingApproval?.name, 'placeOrder');
        assert.deepEqual(waiting.pendingApproval?.arguments, {
          userId: 'carol',
          side: 'BUY',
          price: 500,
          qty: 1,
          symbol: 'DE-BASE-D+1',
        });
        const run = await toolgate.submitInput(waiting.id, {
          type: 'approval',
          toolCallId: waiting.pendingApproval?.toolCallId ?? '',
          decision: 'approve',
        });
        const events = await toolgate.store.readEvents(run.id);
        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        const [registered, before, order, afterOrder] = results(events);
        assert.equal(registered?.ok, true, JSON.stringify(registered));
        assert.equal(before?.ok, true);
        assert.equal(order?.ok, true, JSON.stringify(order));
        assert.notDeepEqual(
          afterOrder?.structuredContent,
          before?.structuredContent,
          'the wallet changed after the order',
        );
        assert.equal(toolMessages(mock, first + 4).length, 4);
      } finally {
        await toolgate.close();
      }
    },
  );

  it('over Streamable HTTP', async () => {
    const server = await startProcess({
      command: process.execPath,
      args: [POWER_EXCHANGE_SERVER, '--http', '0'],
      ready: /listening on (http:\/\/\S+)/,
    });
    const url = server.match[1] ?? '';
    mock.enqueue(
      {
        toolCalls: [
          { id: 'm1', name: 'getMarketMetrics', arguments: '{}' },
          { id: 'b1', name: 'getOrderBook', arguments: '{"depth":2}' },
        ],
      },
      { text: 'ok' },
    );
    const toolgate = toolgateFor(mock, { 'power-exchange': { url } });
    try {
      const { run, events } = await runCollecting(toolgate, 'market?');
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      assert.deepEqual(
        results(events).map((r) => [r.name, r.ok]),
        [
          ['getMarketMetrics', true],
          ['getOrderBook', true],
        ],
      );
    } finally {
      await toolgate.close();
      await server.stop();
    }
  });

  it('a crashed stdio server is a tool error, and is restarted on the next call', async () => {
    const first = mock.requests.length;
    mock.enqueue(
      { toolCalls: [{ id: 'k1', name: 'getMarketMetrics', arguments: '{}' }] },
      { toolCalls: [{ id: 'k2', name: 'getOrderBook', arguments: '{}' }] },
      { text: 'recovered' },
    );
    const toolgate = toolgateFor(mock, { 'power-exchange': exchangeStdio('--exit-on', 'getMarketMetrics') });
    try {
      const { run, events } = await runCollecting(toolgate, 'market?');
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const [crashed, restarted] = results(events);
      assert.equal(crashed?.ok, false);
      assert.equal(crashed?.error?.code, 'tool_unavailable');
      assert.match(crashed?.error?.message ?? '', /restarted on the next call/);
      assert.equal(restarted?.ok, true, JSON.stringify(restarted));
      assert.match(toolMessages(mock, first + 1)[0]?.content ?? '', /tool_unavailable/);
    } finally {
      await toolgate.close();
    }
  });
});
