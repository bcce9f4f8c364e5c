// The plan and reflect strategies end to end: the real OpenAI adapter against
// the mock model server, the power-exchange MCP server over stdio, every tool
// call through the gate.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Toolgate } from '../../src/app/toolgate.ts';
import type { ServerConfig, ToolgateConfig } from '../../src/config/config-schema.ts';
import { resolveSettings } from '../../src/config/resolve-settings.ts';
import type { RunEvent } from '../../src/core/index.ts';
import { ofType } from '../support/events.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER } from '../support/processes.ts';

const exchange: ServerConfig = { command: process.execPath, args: [POWER_EXCHANGE_SERVER] };
const json = (value: unknown) => ({ text: JSON.stringify(value) });

function statuses(events: readonly RunEvent[]): string[] {
  return ofType(events, 'run_status').map((e) => e.data.to);
}

function lastUserText(request: RecordedRequest | undefined): string {
  const messages = (request?.body as { messages: { role: string; content: string }[] }).messages;
  return messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
}

describe('strategies e2e: plan', () => {
  let mock: MockOpenAI;
  const open: Toolgate[] = [];
  before(async () => {
    mock = await startMockOpenAI();
  });
  after(async () => {
    await Promise.all(open.map((t) => t.close()));
    await mock.close();
  });

  function toolgate(config: Partial<ToolgateConfig> = {}): Toolgate {
    const settings = resolveSettings(
      {
        model: 'openai:m',
        providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxRetries: 0 } },
        servers: { px: exchange },
        ...config,
      },
      {},
      {},
    );
    const t = new Toolgate({ settings: { ...settings, stream: false } });
    open.push(t);
    return t;
  }

  const buyPlan = {
    steps: [
      { tool: 'getUserWallet', arguments: { userId: 'bob' } },
      { tool: 'getOrderBook', arguments: { symbol: 'DE-BASE-D+1' } },
      { thought: 'bob has the cash; buy at the best ask' },
      { tool: 'placeOrder', arguments: { userId: 'bob', side: 'buy', price: '95', qty: 1, symbol: 'DE-BASE-D+1' } },
    ],
  };

  it('checks the whole plan first, asks once for its write, then runs the steps in order and answers', async () => {
    const t = toolgate({ strategy: 'plan' });
    const first = mock.requests.length;
    mock.enqueue(json(buyPlan), json({ final_answer: 'Bought 1 MWh for bob.' }));
    const waiting = await t.run({ input: 'Buy 1 MWh of DE base for bob' });
    assert.equal(waiting.status, 'waiting_approval', JSON.stringify(waiting.error));
    assert.equal(waiting.pendingApproval?.kind, 'plan');
    let log = await t.store.readEvents(waiting.id);
    const created = ofType(log, 'plan_created')[0]?.data;
    assert.ok(created !== undefined, 'plan_created');
    assert.equal(waiting.pendingApproval?.toolCallId, created.planId);
    assert.deepEqual(
      created.steps.map((s) => [s.kind, s.name ?? '', s.effect ?? '', s.decision ?? '']),
      [
        ['tool', 'getUserWallet', 'read', 'allowed'],
        ['tool', 'getOrderBook', 'read', 'allowed'],
        ['reasoning', '', '', ''],
        ['tool', 'placeOrder', 'write', 'approval_required'],
      ],
    );
    assert.deepEqual(created.writes, [3]);
    assert.equal(created.approval, 'plan');
    // Normalised before anything ran: "buy" → BUY, "95" → 95.
    assert.deepEqual(created.steps[3]?.arguments, {
      userId: 'bob',
      side: 'BUY',
      price: 95,
      qty: 1,
      symbol: 'DE-BASE-D+1',
    });
    assert.equal(ofType(log, 'tool_call').length, 0, 'nothing ran before the approval');
    // The plan request offered the tools natively and asked for the plan format.
    assert.match(lastUserText(mock.requests[first]), /Before doing anything, write a plan/);

    const done = await t.submitInput(waiting.id, {
      type: 'approval',
      toolCallId: created.planId,
      decision: 'approve',
      userId: 'carol',
    });
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.equal(done.output, 'Bought 1 MWh for bob.');
    log = await t.store.readEvents(waiting.id);
    assert.equal(ofType(log, 'approval_required').length, 1, 'one approval for the whole plan');
    const calls = ofType(log, 'tool_call').map((e) => e.data.name);
    assert.equal(calls.length, 3);
    assert.deepEqual(calls.slice(2), ['placeOrder'], 'the write runs after both reads');
    assert.deepEqual(calls.slice(0, 2).sort(), ['getOrderBook', 'getUserWallet']);
    // The two reads ran together: both were sent before either answered.
    const readIds = new Set(
      ofType(log, 'tool_call')
        .filter((e) => e.data.name !== 'placeOrder')
        .map((e) => e.data.toolCallId),
    );
    const lastSent = Math.max(
      ...log.filter((e) => e.type === 'tool_call' && readIds.has(e.data.toolCallId)).map((e) => e.id),
    );
    const firstAnswered = Math.min(
      ...log.filter((e) => e.type === 'tool_result' && readIds.has(e.data.toolCallId)).map((e) => e.id),
    );
    assert.ok(lastSent < firstAnswered, 'reads next to each other run at the same time');
    assert.ok(ofType(log, 'tool_result').every((e) => e.data.ok));
    assert.deepEqual(statuses(log), [
      'planning',
      'waiting_approval',
      'running',
      'executing',
      'monitoring',
      'completed',
    ]);
    assert.equal(mock.requests.length - first, 2, 'one plan call and one answer call');
    // The answer request carries every result.
    const answerMessages = (mock.requests[first + 1]?.body as { messages: { role: string }[] }).messages;
    assert.equal(answerMessages.filter((m) => m.role === 'tool').length, 3);
  });

  it('injected arguments reach the tool and never the model; the plan shows them to people', async () => {
    const t = toolgate({ strategy: 'plan', tools: { 'px/getUserWallet': { inject: { userId: '{{user.id}}' } } } });
    const first = mock.requests.length;
    mock.enqueue(
      json({ steps: [{ tool: 'getUserWallet', arguments: {} }] }),
      json({ final_answer: 'You have 10,000 EUR.' }),
    );
    const run = await t.run({ input: 'my wallet', userId: 'bob' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const log = await t.store.readEvents(run.id);
    assert.deepEqual(ofType(log, 'plan_created')[0]?.data.steps[0]?.arguments, { userId: 'bob' });
    assert.deepEqual(ofType(log, 'tool_call')[0]?.data.arguments, { userId: 'bob' });
    assert.ok(ofType(log, 'tool_result')[0]?.data.ok, 'the wallet of the injected user was read');
    const messages = mock.requests[first + 1]?.body.messages as {
      role: string;
      tool_calls?: { function: { arguments: string } }[];
    }[];
    assert.equal(
      messages.find((m) => m.role === 'assistant')?.tool_calls?.[0]?.function.arguments,
      '{}',
      'the model sees its own arguments, never the injected one',
    );
    const offered = (
      mock.requests[first]?.body.tools as { function: { name: string; parameters: { properties: object } } }[]
    ).find((d) => d.function.name === 'getUserWallet');
    assert.deepEqual(offered?.function.parameters.properties, {}, 'nor the injected property in the schema');
  });

  it('a dry run shows the plan and its write, and executes no write', async () => {
    const t = toolgate({ strategy: 'plan' });
    mock.enqueue(json(buyPlan), json({ final_answer: 'Would buy 1 MWh.' }));
    const run = await t.run({ input: 'Buy 1 MWh for bob', dryRun: true });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const log = await t.store.readEvents(run.id);
    const created = ofType(log, 'plan_created')[0]?.data;
    assert.equal(created?.steps[3]?.decision, 'dry_run');
    assert.equal(created?.approval, 'none');
    assert.equal(ofType(log, 'approval_required').length, 0);
    const write = ofType(log, 'tool_result').find((e) => e.data.name === 'placeOrder');
    assert.equal(write?.data.dryRun, true);
    assert.equal(
      ofType(log, 'tool_call').filter((e) => e.data.name === 'placeOrder').length,
      0,
      'the write never reached the server',
    );
  });

  it('a failed step skips the rest and the model plans again from the evidence (plan_revised)', async () => {
    const t = toolgate({ strategy: 'plan', tools: { 'px/*': { approval: 'never' } } });
    const first = mock.requests.length;
    mock.enqueue(
      json({
        steps: [
          { tool: 'getUserWallet', arguments: { userId: 'zed' } },
          { tool: 'placeOrder', arguments: { userId: 'zed', side: 'BUY', price: 90, qty: 1, symbol: 'DE-BASE-D+1' } },
        ],
      }),
      json({
        steps: [
          { tool: 'registerUser', arguments: { userId: 'zed' } },
          { tool: 'getUserWallet', arguments: { userId: 'zed' } },
        ],
      }),
      json({ final_answer: 'zed is registered with 10,000 EUR.' }),
    );
    const run = await t.run({ input: "What is zed's wallet?" });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    assert.equal(run.output, 'zed is registered with 10,000 EUR.');
    const log = await t.store.readEvents(run.id);
    const results = ofType(log, 'tool_result').map((e) => [e.data.name, e.data.ok, e.data.error?.code ?? '']);
    assert.deepEqual(results.slice(0, 2), [
      ['getUserWallet', false, 'tool_error'],
      ['placeOrder', false, 'skipped'],
    ]);
    const revised = ofType(log, 'plan_revised')[0]?.data;
    assert.ok(revised !== undefined, 'plan_revised');
    assert.equal(revised.revision, 1);
    assert.match(revised.reason, /zed/);
    assert.match(lastUserText(mock.requests[first + 1]), /The last plan did not work: getUserWallet: .*zed/);
    assert.deepEqual(
      results.slice(2).map((r) => r[1]),
      [true, true],
    );
  });

  it('stops re-planning at plan.maxReplans and asks for an answer from what is known, with no tools', async () => {
    const t = toolgate({ strategy: 'plan', plan: { maxReplans: 1 }, tools: { 'px/*': { approval: 'never' } } });
    const first = mock.requests.length;
    const failing = json({ steps: [{ tool: 'getUserWallet', arguments: { userId: 'nobody' } }] });
    mock.enqueue(failing, failing, json({ final_answer: 'nobody does not exist.' }));
    const run = await t.run({ input: 'wallet of nobody' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    assert.equal(run.output, 'nobody does not exist.');
    assert.equal(ofType(await t.store.readEvents(run.id), 'plan_revised').length, 1);
    const last = mock.requests[first + 2];
    assert.deepEqual(last?.body.tools ?? [], [], 'no tools offered once re-planning is over');
    assert.match(lastUserText(last), /cannot be re-planned any more/);
  });

  for (const mode of ['native', 'prompted'] as const) {
    it(`a plan that is only a final_answer ends the run with that text, not the JSON (${mode})`, async () => {
      const t = toolgate({ strategy: 'plan', toolMode: mode });
      mock.enqueue({ text: 'Sure:\n```json\n{"final_answer": "Paris is the capital of France."}\n```' });
      const run = await t.run({ input: 'Capital of France?' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      assert.equal(run.output, 'Paris is the capital of France.');
    });
  }

  it('prompted mode: the plan comes as text, its steps and results go back to the model as text', async () => {
    const t = toolgate({ strategy: 'plan', toolMode: 'prompted' });
    const first = mock.requests.length;
    mock.enqueue(
      {
        text:
          'Plan:\n{"actions": [{"action": "getMarketMetrics", "arguments": ' +
          '{}}, {"action": "getOrderBook", "arguments": {"depth": 1}}]}',
      },
      { text: '{"final_answer": "Metrics and book read."}' },
    );
    const run = await t.run({ input: 'metrics and book' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    assert.equal(run.output, 'Metrics and book read.');
    assert.equal(mock.requests[first]?.body.tools, undefined, 'prompted: no native tools');
    const answer = mock.requests[first + 1]?.body as { messages: { role: string; content: string }[] };
    assert.equal(answer.messages.filter((m) => m.role === 'tool').length, 0);
    const steps = answer.messages.find((m) => m.role === 'assistant')?.content ?? '';
    assert.match(steps, /<tool_call>\{"name": "getMarketMetrics", "arguments": \{\}\}<\/tool_call>/);
    assert.match(
      answer.messages.find((m) => m.role === 'user' && m.content.startsWith('Tool results:'))?.content ?? '',
      /<tool_response name="getOrderBook"/,
    );
  });

  it(
    "reads seed 000's shape {actions: [{action, arguments}], " + 'final_answer} and a plan of native tool calls',
    async () => {
      const t = toolgate({ strategy: 'plan' });
      mock.enqueue(
        json({
          actions: [{ action: 'getMarketMetrics', arguments: { symbol: 'DE-BASE-D+1' } }],
          final_answer: 'ignored until the steps ran',
        }),
        json({ final_answer: 'metrics read' }),
      );
      const a = await t.run({ input: 'metrics?' });
      assert.equal(a.status, 'completed', JSON.stringify(a.error));
      assert.equal(a.output, 'metrics read');
      const logA = await t.store.readEvents(a.id);
      assert.deepEqual(
        ofType(logA, 'tool_call').map((e) => e.data.name),
        ['getMarketMetrics'],
      );

      mock.enqueue(
        {
          toolCalls: [
            { id: 'n1', name: 'getOrderBook', arguments: '{"depth": 2}' },
            { id: 'n2', name: 'getMarketMetrics', arguments: '{}' },
          ],
        },
        { text: 'The book is thin.' },
      );
      const b = await t.run({ input: 'book and metrics?' });
      assert.equal(b.status, 'completed', JSON.stringify(b.error));
      assert.equal(b.output, 'The book is thin.', 'a plain-text reply after the steps is the answer');
      const logB = await t.store.readEvents(b.id);
      assert.deepEqual(
        ofType(logB, 'plan_created')[0]?.data.steps.map((s) => s.name),
        ['getOrderBook', 'getMarketMetrics'],
      );
    },
  );

  it(
    'a plan with a step the gate refuses goes back to the ' + 'model with the reason; nothing runs until a plan passes',
    async () => {
      const t = toolgate({ strategy: 'plan' });
      const first = mock.requests.length;
      mock.enqueue(
        json({
          steps: [
            { tool: 'getOrderBok', arguments: {} },
            { tool: 'getUserWallet', arguments: {} },
          ],
        }),
        json({ steps: [{ tool: 'getOrderBook', arguments: {} }] }),
        json({ final_answer: 'book read' }),
      );
      const run = await t.run({ input: 'book?' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const log = await t.store.readEvents(run.id);
      const retry = ofType(log, 'parse_retry')[0]?.data;
      assert.match(retry?.feedback ?? '', /step 1 \(getOrderBok\).*getOrderBook/);
      assert.match(retry?.feedback ?? '', /step 2 \(getUserWallet\)[\s\S]*userId: missing/);
      assert.match(lastUserText(mock.requests[first + 1]), /The plan cannot be used/);
      assert.deepEqual(
        ofType(log, 'tool_call').map((e) => e.data.name),
        ['getOrderBook'],
      );
    },
  );

  it('a plan written in prose is sent back for JSON; a plain answer that names no tool is the answer', async () => {
    const t = toolgate({ strategy: 'plan' });
    const first = mock.requests.length;
    mock.enqueue(
      { text: 'Plan:\n1. Call getMarketMetrics for DE-BASE-D+1.\n2. Summarise the result.' },
      { text: '[{"tool": "getMarketMetrics", "arguments": {}}]' },
      json({ final_answer: 'calm' }),
    );
    const run = await t.run({ input: 'market?' });
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    assert.equal(run.output, 'calm');
    assert.match(lastUserText(mock.requests[first + 1]), /the plan is written in prose; it must be one JSON object/);
    assert.deepEqual(
      ofType(await t.store.readEvents(run.id), 'tool_call').map((e) => e.data.name),
      ['getMarketMetrics'],
    );
  });

  it('plan.approval: step asks for each write as it comes', async () => {
    const t = toolgate({ strategy: 'plan', plan: { approval: 'step' } });
    mock.enqueue(json(buyPlan), json({ final_answer: 'done' }));
    const waiting = await t.run({ input: 'buy for bob' });
    assert.equal(waiting.status, 'waiting_approval');
    assert.equal(waiting.pendingApproval?.name, 'placeOrder');
    assert.equal(waiting.pendingApproval?.kind, undefined);
    const log = await t.store.readEvents(waiting.id);
    assert.equal(ofType(log, 'plan_created')[0]?.data.approval, 'step');
    assert.equal(ofType(log, 'tool_call').length, 2, 'the reads ran before the write waited');
    const done = await t.submitInput(waiting.id, {
      type: 'approval',
      toolCallId: waiting.pendingApproval?.toolCallId ?? '',
      decision: 'approve',
    });
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
  });

  it('a rejected plan is planned again with the reason; a plan cannot be edited', async () => {
    const t = toolgate({ strategy: 'plan' });
    const first = mock.requests.length;
    mock.enqueue(json(buyPlan), json({ final_answer: 'Not buying: rejected.' }));
    const waiting = await t.run({ input: 'buy for bob' });
    const planId = waiting.pendingApproval?.toolCallId ?? '';
    await assert.rejects(
      t.submitInput(waiting.id, { type: 'approval', toolCallId: planId, decision: 'edit', arguments: {} }),
      /whole plan: approve or reject it/,
    );
    const done = await t.submitInput(waiting.id, {
      type: 'approval',
      toolCallId: planId,
      decision: 'reject',
      reason: 'not today',
    });
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    const log = await t.store.readEvents(waiting.id);
    assert.equal(ofType(log, 'tool_call').length, 0, 'nothing of a rejected plan runs');
    assert.ok(ofType(log, 'tool_result').every((e) => e.data.error?.code === 'rejected'));
    assert.match(lastUserText(mock.requests[first + 1]), /rejected: not today/);
  });
});
