// The reflect and auto strategies and the runtime guard end to end: the real
// OpenAI adapter against the mock model server, the power-exchange MCP server
// over stdio, in-process tools for the cases a venue cannot stage (an empty
// answer, a slow tool), and SQLite files for budgets across processes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/app/open-store.ts';
import { Toolgate } from '../../src/app/toolgate.ts';
import type { ServerConfig, ToolgateConfig } from '../../src/config/config-schema.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import type { RunEvent, RunStore } from '../../src/core/index.ts';
import { defineTool } from '../../src/tools/local/define-tool.ts';
import { LocalToolSource } from '../../src/tools/local/local-tool-source.ts';
import { ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER } from '../support/processes.ts';

const exchange: ServerConfig = { command: process.execPath, args: [POWER_EXCHANGE_SERVER] };
const json = (value: unknown) => ({ text: JSON.stringify(value) });
const call = (name: string, args: unknown = {}, id = name) => ({ id, name, arguments: JSON.stringify(args) });

function messagesOf(request: RecordedRequest | undefined): { role: string; content: string }[] {
  return (request?.body as { messages: { role: string; content: string }[] } | undefined)?.messages ?? [];
}

const local = new LocalToolSource({
  tools: [
    defineTool({
      name: 'findNothing',
      description: 'Searches and finds nothing.',
      inputSchema: { type: 'object' },
      effect: 'read',
      execute: () => '',
    }),
    defineTool({
      name: 'slowLookup',
      description: 'Looks something up, slowly.',
      inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
      effect: 'read',
      execute: async (args) => {
        await sleep(typeof args['ms'] === 'number' ? args['ms'] : 200);
        return 'found it';
      },
    }),
  ],
});

describe('strategies e2e: reflect, auto and the guard', () => {
  let mock: MockOpenAI;
  let dir: string;
  const open: Toolgate[] = [];
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-guard-'));
  });
  after(async () => {
    await Promise.all(open.map((t) => t.close()));
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function toolgate(config: Partial<ToolgateConfig> = {}, store?: RunStore): Toolgate {
    const settings = resolveSettings(
      {
        model: 'openai:m',
        providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
        servers: { px: exchange },
        tools: { 'px/*': { approval: 'never' } },
        ...config,
      },
      {},
      {},
    );
    const t = new Toolgate({
      settings: { ...settings, stream: false },
      tools: [local],
      ...(store === undefined ? {} : { store }),
    });
    open.push(t);
    return t;
  }

  async function log(t: Toolgate, runId: string): Promise<RunEvent[]> {
    return t.store.readEvents(runId);
  }

  describe('reflect', () => {
    it('continue: the critique joins the conversation and the loop goes on', async () => {
      const t = toolgate({ strategy: 'reflect' });
      const first = mock.requests.length;
      mock.enqueue(
        { toolCalls: [call('getUserWallet', { userId: 'zed' })] },
        json({ verdict: 'continue', reason: 'zed must be registered first' }),
        { toolCalls: [call('registerUser', { userId: 'zed' })] },
        { text: 'zed is registered.' },
      );
      const run = await t.run({ input: 'Set up zed and show the wallet' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const events = await log(t, run.id);
      const reflection = ofType(events, 'reflection');
      assert.equal(reflection.length, 1, 'a reflection after the failure only');
      assert.equal(reflection[0]?.data.trigger, 'tool_failure');
      assert.equal(reflection[0]?.data.verdict, 'continue');
      assert.equal(reflection[0]?.data.reason, 'zed must be registered first');
      assert.match(messagesOf(mock.requests[first + 1]).at(-1)?.content ?? '', /Stop and reflect[\s\S]*Set up zed/);
      assert.deepEqual(mock.requests[first + 1]?.body.tools, undefined, 'the critique is asked without tools');
      assert.match(
        messagesOf(mock.requests[first + 2]).at(-1)?.content ?? '',
        /Reflection on what happened so far \(continue\): zed must be registered first/,
      );
      assert.deepEqual(
        ofType(events, 'run_status').map((e) => e.data.to),
        ['running', 'reflecting', 'running', 'completed'],
      );
    });

    it('replan: a plan from the evidence, checked as a whole, runs before the loop goes on', async () => {
      const t = toolgate({ strategy: 'reflect' });
      mock.enqueue(
        { toolCalls: [call('getUserWallet', { userId: 'ann' })] },
        json({ verdict: 'replan', reason: 'ann does not exist yet' }),
        json({
          steps: [
            { tool: 'registerUser', arguments: { userId: 'ann' } },
            { tool: 'getUserWallet', arguments: { userId: 'ann' } },
          ],
        }),
        { text: 'ann has 10,000 EUR.' },
      );
      const run = await t.run({ input: "ann's wallet" });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      assert.equal(run.output, 'ann has 10,000 EUR.');
      const events = await log(t, run.id);
      assert.equal(ofType(events, 'reflection')[0]?.data.verdict, 'replan');
      assert.deepEqual(
        ofType(events, 'plan_created')[0]?.data.steps.map((s) => s.name),
        ['registerUser', 'getUserWallet'],
      );
      assert.deepEqual(
        ofType(events, 'tool_result').map((e) => [e.data.name, e.data.ok]),
        [
          ['getUserWallet', false],
          ['registerUser', true],
          ['getUserWallet', true],
        ],
      );
    });

    it('give_up ends the run failed with the reason, after a tool error or an empty result', async () => {
      const t = toolgate({ strategy: 'reflect' });
      mock.enqueue(
        { toolCalls: [call('getUserWallet', { userId: 'ghost' })] },
        json({ verdict: 'give_up', reason: 'ghost is not a trader here' }),
      );
      const failed = await t.run({ input: "ghost's wallet" });
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error?.code, 'gave_up');
      assert.match(failed.error?.message ?? '', /ghost is not a trader here/);
      assert.equal(ofType(await log(t, failed.id), 'reflection')[0]?.data.trigger, 'tool_failure');

      mock.enqueue(
        { toolCalls: [call('findNothing')] },
        {
          text:
            'Reflection: there is no data to find. {"verdict": ' +
            '"give_up", "reason": "the search has no data for this"}',
        },
      );
      const empty = await t.run({ input: 'find the unicorn' });
      assert.equal(empty.error?.code, 'gave_up');
      assert.match(empty.error?.message ?? '', /the search has no data for this/);
      assert.equal(ofType(await log(t, empty.id), 'reflection')[0]?.data.trigger, 'empty_result');
    });

    it('escalate waits for a person; a message resumes the run, a cancel ends it', async () => {
      const t = toolgate({ strategy: 'reflect' });
      const first = mock.requests.length;
      mock.enqueue(
        { toolCalls: [call('getUserWallet', { userId: 'zed' })] },
        json({ verdict: 'escalate', reason: 'which user is meant?' }),
        { text: 'bob has 10,000 EUR.' },
      );
      const waiting = await t.run({ input: "the trader's wallet" });
      assert.equal(waiting.status, 'escalated');
      const stored = await t.store.getRun(waiting.id);
      assert.equal(stored?.status, 'escalated', 'GET /v1/runs/{id} shows it');
      const resumed = await t.submitInput(waiting.id, { type: 'message', text: 'I meant bob' });
      assert.equal(resumed.status, 'completed', JSON.stringify(resumed.error));
      assert.equal(messagesOf(mock.requests[first + 2]).at(-1)?.content, 'I meant bob');
      const statuses = ofType(await log(t, waiting.id), 'run_status').map((e) => e.data.to);
      assert.deepEqual(statuses, ['running', 'reflecting', 'escalated', 'running', 'completed']);

      mock.enqueue(
        { toolCalls: [call('getUserWallet', { userId: 'zed' })] },
        json({ verdict: 'escalate', reason: 'unclear' }),
      );
      const second = await t.run({ input: 'again' });
      assert.equal(second.status, 'escalated');
      const cancelled = await t.cancel(second.id, 'not needed');
      assert.equal(cancelled.status, 'cancelled');
    });

    it(
      'a slow tool (guard.maxToolLatencyMs) is marked and ' + 'triggers a reflection; an unreadable verdict goes on',
      async () => {
        const t = toolgate({ strategy: 'reflect', guard: { maxToolLatencyMs: 50 } });
        mock.enqueue(
          { toolCalls: [call('slowLookup', { ms: 150 })] },
          { text: 'hmm, not sure' },
          { text: 'found it.' },
        );
        const run = await t.run({ input: 'look it up' });
        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        const events = await log(t, run.id);
        assert.equal(ofType(events, 'tool_result')[0]?.data.slow, true);
        const reflection = ofType(events, 'reflection')[0]?.data;
        assert.equal(reflection?.trigger, 'guard');
        assert.equal(reflection?.verdict, 'continue');
        assert.equal(reflection?.unreadable, true);
      },
    );
  });

  describe('auto', () => {
    it('routes small talk to a plain answer with no tools offered', async () => {
      const t = toolgate({ strategy: 'auto' });
      const first = mock.requests.length;
      mock.enqueue({ text: 'Hello! How can I help?' });
      const run = await t.run({ input: 'hello there' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const routed = ofType(await log(t, run.id), 'intent_routed')[0]?.data;
      assert.equal(routed?.route, 'answer');
      assert.equal(routed?.by, 'signals');
      assert.equal(routed?.reason, 'answered without tools: small talk: no tool is needed');
      assert.equal(mock.requests.length - first, 1, 'no router call');
      assert.equal(mock.requests[first]?.body.tools, undefined);
    });

    it('routes a lookup that names a tool to react', async () => {
      const t = toolgate({ strategy: 'auto' });
      mock.enqueue({ toolCalls: [call('getOrderBook')] }, { text: 'The book is deep.' });
      const run = await t.run({ input: 'Show me the order book' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const routed = ofType(await log(t, run.id), 'intent_routed')[0]?.data;
      assert.equal(routed?.route, 'react');
      assert.deepEqual(routed?.signals.toolsMentioned, ['getOrderBook']);
      assert.equal(routed?.reason, 'ReAct: a lookup with getOrderBook');
    });

    it('routes a request to change state to a plan', async () => {
      const t = toolgate({ strategy: 'auto' });
      mock.enqueue(
        json({ steps: [{ tool: 'getUserWallet', arguments: { userId: 'bob' } }] }),
        json({ final_answer: 'bob can buy.' }),
      );
      const run = await t.run({ input: 'Buy 2 MWh for bob, then tell me what is left' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const events = await log(t, run.id);
      const routed = ofType(events, 'intent_routed')[0]?.data;
      assert.equal(routed?.route, 'plan');
      assert.deepEqual(routed?.signals.changeVerbs, ['buy']);
      assert.equal(routed?.reason, 'planned first: asks for a change (buy) and tools that change state are available');
      assert.equal(ofType(events, 'plan_created').length, 1);
    });

    it(
      'asks the model when the signals do not settle it, ' + 'and falls back to react when the reply is unreadable',
      async () => {
        const t = toolgate({ strategy: 'auto' });
        const first = mock.requests.length;
        mock.enqueue(
          json({ route: 'react', reason: 'a market lookup' }),
          { toolCalls: [call('getMarketMetrics')] },
          { text: 'Quiet market.' },
        );
        const run = await t.run({ input: 'How is the market doing today?' });
        assert.equal(run.status, 'completed', JSON.stringify(run.error));
        const routed = ofType(await log(t, run.id), 'intent_routed')[0]?.data;
        assert.deepEqual(
          [routed?.route, routed?.by, routed?.reason],
          ['react', 'model', 'ReAct: the model chose it (a market lookup)'],
        );
        assert.match(messagesOf(mock.requests[first])[0]?.content ?? '', /You route requests/);

        mock.enqueue({ text: 'I think... maybe?' }, { text: 'Fine.' });
        const unsure = await t.run({ input: 'What do you think about it?' });
        assert.equal(unsure.status, 'completed', JSON.stringify(unsure.error));
        const fallback = ofType(await log(t, unsure.id), 'intent_routed')[0]?.data;
        assert.equal(fallback?.route, 'react');
        assert.equal(fallback?.reason, 'ReAct: the default, as the router\u2019s reply could not be read');
      },
    );
  });

  describe('guard', () => {
    it('budget_tool_calls: the call past maxToolCalls never runs; the run fails with the code', async () => {
      const t = toolgate({ guard: { maxToolCalls: 2 } });
      mock.enqueue(
        { toolCalls: [call('getOrderBook'), call('getMarketMetrics')] },
        { toolCalls: [call('getServerStats')] },
      );
      const run = await t.run({ input: 'look around' });
      assert.equal(run.status, 'failed');
      assert.equal(run.error?.code, 'budget_tool_calls');
      const events = await log(t, run.id);
      assert.equal(ofType(events, 'tool_call').length, 2);
      assert.deepEqual(
        ofType(events, 'guard_tripped').map((e) => [e.data.code, e.data.action, e.data.limit, e.data.value]),
        [['budget_tool_calls', 'fail', 2, 3]],
      );
    });

    it('budget_tokens and budget_cost are checked before the next model call', async () => {
      const tokens = toolgate({ guard: { maxTokens: 100 } });
      mock.enqueue({ toolCalls: [call('getOrderBook')], usage: { promptTokens: 90, completionTokens: 20 } });
      const a = await tokens.run({ input: 'book' });
      assert.equal(a.error?.code, 'budget_tokens');
      assert.match(a.error?.message ?? '', /110 tokens, its budget is 100/);

      const cost = toolgate({
        guard: { maxCostUsd: 0.02 },
        prices: { 'openai:*': { inputPerMTok: 10, outputPerMTok: 30 } },
      });
      mock.enqueue(
        { toolCalls: [call('getOrderBook')], usage: { promptTokens: 1000, completionTokens: 100 } },
        { text: 'cheap enough', usage: { promptTokens: 10, completionTokens: 10 } },
      );
      const cheap = await cost.run({ input: 'book' });
      assert.equal(
        cheap.status,
        'completed',
        'a run under its budget ($0.013 after the first call, $0.02 allowed) completes',
      );
      mock.enqueue({ toolCalls: [call('getOrderBook')], usage: { promptTokens: 1000, completionTokens: 400 } });
      const dear = await cost.run({ input: 'book' });
      assert.equal(dear.error?.code, 'budget_cost');
      assert.match(dear.error?.message ?? '', /cost \$0\.022, its budget is \$0\.02/);
    });

    it('budget_time counts working time and ends the run between steps', async () => {
      const t = toolgate({ guard: { maxWallMs: 100 } });
      mock.enqueue({ toolCalls: [call('slowLookup', { ms: 250 })] });
      const run = await t.run({ input: 'slow' });
      assert.equal(run.error?.code, 'budget_time');
    });

    it('max_steps is a guard trip too', async () => {
      const t = toolgate({ maxSteps: 1 });
      mock.enqueue({ toolCalls: [call('getOrderBook')] });
      const run = await t.run({ input: 'book' });
      assert.equal(run.error?.code, 'max_steps');
      assert.equal(ofType(await log(t, run.id), 'guard_tripped')[0]?.data.code, 'max_steps');
    });

    it('tool_failures: the first breach asks for a reflection, the next one stops the run', async () => {
      const t = toolgate({ guard: { maxConsecutiveFailures: 2 } });
      mock.enqueue(
        { toolCalls: [call('getUserWallet', { userId: 'x1' }), call('getUserWallet', { userId: 'x2' }, 'w2')] },
        json({ verdict: 'continue', reason: 'try other users' }),
        { toolCalls: [call('getUserWallet', { userId: 'x3' }), call('getUserWallet', { userId: 'x4' }, 'w4')] },
      );
      const run = await t.run({ input: 'wallets' });
      assert.equal(run.error?.code, 'tool_failures');
      const events = await log(t, run.id);
      assert.deepEqual(
        ofType(events, 'guard_tripped').map((e) => [e.data.code, e.data.action]),
        [
          ['tool_failures', 'reflect'],
          ['tool_failures', 'fail'],
        ],
      );
      assert.equal(ofType(events, 'reflection')[0]?.data.trigger, 'guard');
    });

    it('loop_detected: the model is told once, then the run stops', async () => {
      const t = toolgate({ guard: { maxRepeats: 2 } });
      const first = mock.requests.length;
      mock.enqueue(
        { toolCalls: [call('getOrderBook', { depth: 3 })] },
        { toolCalls: [call('getOrderBook', { depth: 3 })] },
        { toolCalls: [call('getOrderBook', { depth: 3 })] },
      );
      const run = await t.run({ input: 'book' });
      assert.equal(run.error?.code, 'loop_detected');
      const trips = ofType(await log(t, run.id), 'guard_tripped').map((e) => [e.data.action, e.data.tool]);
      assert.deepEqual(trips, [
        ['warn', 'getOrderBook'],
        ['fail', 'getOrderBook'],
      ]);
      assert.match(
        messagesOf(mock.requests[first + 2]).at(-1)?.content ?? '',
        /You have called getOrderBook with the same arguments 2 times/,
      );
      assert.equal(mock.requests.length - first, 3);
    });

    it('onBreach: degrade answers from what is known, with no more tools', async () => {
      const t = toolgate({ guard: { maxToolCalls: 1, onBreach: 'degrade' } });
      const first = mock.requests.length;
      mock.enqueue(
        { toolCalls: [call('getOrderBook')] },
        { toolCalls: [call('getMarketMetrics')] },
        { text: 'From the book alone: bids at 80.' },
      );
      const run = await t.run({ input: 'book and metrics' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      assert.equal(run.output, 'From the book alone: bids at 80.');
      const events = await log(t, run.id);
      assert.deepEqual(
        ofType(events, 'guard_tripped').map((e) => e.data.action),
        ['degrade'],
      );
      assert.deepEqual(
        ofType(events, 'tool_result').map((e) => [e.data.name, e.data.error?.code ?? 'ok']),
        [
          ['getOrderBook', 'ok'],
          ['getMarketMetrics', 'skipped'],
        ],
      );
      assert.equal(mock.requests[first + 2]?.body.tools, undefined, 'the degraded answer is asked without tools');
      assert.match(messagesOf(mock.requests[first + 2]).at(-1)?.content ?? '', /No more tools can be used/);
    });

    it(
      'budgets hold across an approval and a restart: ' + 'counts come from the log, limits from the stored run',
      async () => {
        const file = join(dir, 'runs.db');
        const config: Partial<ToolgateConfig> = {
          guard: { maxToolCalls: 2, maxWallMs: 5000 },
          tools: { 'px/placeOrder': { approval: 'required' }, 'px/*': { approval: 'never' } },
        };
        const a = toolgate(config, await openStore(`sqlite:${file}`));
        mock.enqueue(
          { toolCalls: [call('getOrderBook')] },
          { toolCalls: [call('placeOrder', { userId: 'bob', side: 'BUY', price: 90, qty: 1, symbol: 'DE-BASE-D+1' })] },
        );
        const waiting = await a.run({ input: 'buy' });
        assert.equal(waiting.status, 'waiting_approval', JSON.stringify(waiting.error));
        await a.close();
        open.splice(open.indexOf(a), 1);
        // Another process, configured with no limits at all: the stored run keeps its own.
        const b = toolgate({ tools: config.tools }, await openStore(`sqlite:${file}`));
        await sleep(50);
        mock.enqueue({ toolCalls: [call('getMarketMetrics')] });
        const ended = await b.submitInput(waiting.id, {
          type: 'approval',
          toolCallId: waiting.pendingApproval?.toolCallId ?? '',
          decision: 'approve',
        });
        assert.equal(ended.status, 'failed');
        assert.equal(ended.error?.code, 'budget_tool_calls');
        const events = await log(b, waiting.id);
        assert.deepEqual(
          ofType(events, 'tool_call').map((e) => e.data.name),
          ['getOrderBook', 'placeOrder'],
        );
      },
    );

    it(
      'a plan stopped between its steps is carried on ' + 'from the log by another process: each step runs once',
      async () => {
        const file = join(dir, 'plan-restart.db');
        const a = toolgate({ strategy: 'plan' }, await openStore(`sqlite:${file}`));
        mock.enqueue(
          json({
            steps: [
              { tool: 'slowLookup', arguments: { ms: 300 } },
              { tool: 'registerUser', arguments: { userId: 'carl' } },
            ],
          }),
        );
        const stop = new AbortController();
        const { run } = await a.start(await a.newRun({ input: 'look, then register carl' }));
        const paused = await a.drive(run.id, {
          stopSignal: stop.signal,
          onEvent: (e) => e.type === 'tool_call' && stop.abort(),
        });
        assert.equal(paused.status, 'executing', 'stopped at the safe point between the steps, not ended');
        await a.close();
        open.splice(open.indexOf(a), 1);
        const b = toolgate({ strategy: 'plan' }, await openStore(`sqlite:${file}`));
        mock.enqueue(json({ final_answer: 'carl is registered.' }));
        const done = await b.drive(run.id);
        assert.equal(done.status, 'completed', JSON.stringify(done.error));
        assert.equal(done.output, 'carl is registered.');
        const events = await log(b, run.id);
        assert.deepEqual(
          ofType(events, 'tool_call').map((e) => e.data.name),
          ['slowLookup', 'registerUser'],
        );
        assert.equal(ofType(events, 'plan_created').length, 1, 'the plan was not made again');
      },
    );

    it('time waiting for a person does not count against maxWallMs', async () => {
      const t = toolgate({
        guard: { maxWallMs: 400 },
        tools: { 'px/placeOrder': { approval: 'required' }, 'px/*': { approval: 'never' } },
      });
      mock.enqueue({
        toolCalls: [call('placeOrder', { userId: 'bob', side: 'BUY', price: 90, qty: 1, symbol: 'DE-BASE-D+1' })],
      });
      const waiting = await t.run({ input: 'buy' });
      await sleep(600);
      mock.enqueue({ text: 'bought' });
      const done = await t.submitInput(waiting.id, {
        type: 'approval',
        toolCallId: waiting.pendingApproval?.toolCallId ?? '',
        decision: 'approve',
      });
      assert.equal(done.status, 'completed', JSON.stringify(done.error));
    });
  });
});
