// Tools defined in code, through createToolgate and the whole gate: the real
// run loop, a real SQLite file, the mock OpenAI-compatible model over HTTP.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { createToolgate, defineTool, type ToolExecutionContext } from '../../src/index.ts';
import type { RunEvent, ToolResult, ToolSource, ToolSpec } from '../../src/core/index.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { POWER_EXCHANGE_SERVER } from '../support/processes.ts';

interface Call {
  args: unknown;
  ctx: Omit<ToolExecutionContext, 'signal'>;
}

function tools() {
  const calls = { quote: [] as Call[], order: [] as Call[] };
  const record = (list: Call[], args: unknown, ctx: ToolExecutionContext): void => {
    const { signal: _signal, ...rest } = ctx;
    list.push({ args, ctx: rest });
  };
  // zod: the model sees the JSON Schema; execute gets zod's output.
  const quote = defineTool({
    name: 'quote',
    description: 'Prices a quantity of a product.',
    inputSchema: z.object({ sku: z.string().min(2), qty: z.number().int().min(1) }),
    effect: 'read',
    execute: (args, ctx) => {
      record(calls.quote, args, ctx);
      return { sku: args.sku, qty: args.qty, total: args.qty * 7 };
    },
  });
  // JSON Schema, with a property the policy injects (the model never sees it).
  const order = defineTool({
    name: 'placeOrder',
    description: 'Orders a quantity of a product for the user.',
    inputSchema: {
      type: 'object',
      properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 }, customerId: { type: 'string' } },
      required: ['sku', 'qty', 'customerId'],
      additionalProperties: false,
    },
    effect: 'write',
    execute: (args, ctx) => {
      record(calls.order, args, ctx);
      return `ordered ${String(args['qty'])} × ${String(args['sku'])} for ${String(args['customerId'])}`;
    },
  });
  return { quote, order, calls };
}

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
const toolMessages = (request: RecordedRequest | undefined): string[] =>
  ((request?.body.messages ?? []) as { role: string; content: string }[])
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);

describe('tools defined in code, through createToolgate and the whole gate', () => {
  let mock: MockOpenAI;
  let dir: string;
  before(async () => {
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-local-tools-'));
  });
  after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = async (t: ReturnType<typeof tools>, extra: Parameters<typeof createToolgate>[0] = {}) =>
    createToolgate({
      model: 'openai:mock',
      providers: { openai: { baseUrl: mock.url, apiKey: 'test', maxRetries: 0 } },
      tools: [t.quote, t.order],
      store: `sqlite:${join(dir, 'runs.db')}`,
      policy: { tools: { 'local/placeOrder': { inject: { customerId: '{{user.id}}' } } } },
      stream: false,
      ...extra,
    });

  it(
    'normalises, refuses invalid calls unexecuted, waits for ' +
      'approval on a write, injects, records with origin local',
    async () => {
      const t = tools();
      const toolgate = await open(t);
      try {
        mock.enqueue(
          // "5" for an integer: normalised to 5; the second call is invalid (sku too short) and never runs.
          {
            toolCalls: [
              { id: 'q1', name: 'quote', arguments: '{"sku":"AB-1","qty":"5"}' },
              { id: 'q2', name: 'quote', arguments: '{"sku":"A","qty":1}' },
            ],
          },
          { toolCalls: [{ id: 'o1', name: 'placeOrder', arguments: '{"sku":"AB-1","qty":5}' }] },
          { text: 'Ordered 5 of AB-1 for 35.' },
        );
        const waiting = await toolgate.run({
          input: 'Order 5 AB-1',
          userId: 'u-7',
          tenantId: 'acme',
          context: { channel: 'web' },
        });
        assert.equal(waiting.status, 'waiting_approval', JSON.stringify(waiting.error));
        assert.equal(waiting.pendingApproval?.name, 'placeOrder');
        assert.deepEqual(
          waiting.pendingApproval?.arguments,
          { sku: 'AB-1', qty: 5, customerId: 'u-7' },
          'the approver sees the injected value',
        );
        assert.deepEqual(
          t.calls.quote.map((c) => c.args),
          [{ sku: 'AB-1', qty: 5 }],
          'normalised; the invalid call was not executed',
        );
        assert.deepEqual(t.calls.quote[0]?.ctx, {
          runId: waiting.id,
          toolCallId: t.calls.quote[0]?.ctx.toolCallId,
          tenantId: 'acme',
          userId: 'u-7',
          context: { channel: 'web' },
        });
        assert.match(t.calls.quote[0]?.ctx.toolCallId ?? '', /\S/);
        assert.equal(t.calls.order.length, 0, 'a write waits for a person');

        // What the model saw: the injected property is not in placeOrder's schema; the invalid call's error is precise.
        const offered = (mock.requests[0]?.body.tools ?? []) as {
          function: { name: string; parameters: { properties: Record<string, unknown> } };
        }[];
        assert.deepEqual(
          Object.keys(
            offered.find((d) => d.function.name === 'placeOrder')?.function.parameters.properties ?? {},
          ).sort(),
          ['qty', 'sku'],
        );
        assert.match(toolMessages(mock.requests[1]).join('\n'), /sku/);
        assert.match(toolMessages(mock.requests[1]).join('\n'), /Error \(invalid_arguments\)/);

        const done = await toolgate.submitInput(waiting.id, {
          type: 'approval',
          toolCallId: waiting.pendingApproval?.toolCallId ?? '',
          decision: 'approve',
        });
        assert.equal(done.status, 'completed', JSON.stringify(done.error));
        assert.equal(done.output, 'Ordered 5 of AB-1 for 35.');
        assert.deepEqual(
          t.calls.order.map((c) => c.args),
          [{ sku: 'AB-1', qty: 5, customerId: 'u-7' }],
          'executed once, after approval, with the injected argument',
        );

        const events = await toolgate.store.readEvents(waiting.id);
        const called = ofType(events, 'tool_call');
        assert.deepEqual(
          called.map((e) => [e.data.name, e.data.origin?.kind, e.data.origin?.server]),
          [
            ['quote', 'local', 'local'],
            ['placeOrder', 'local', 'local'],
          ],
        );
        const decisions = ofType(events, 'gate_decision').map((e) => [e.data.name, e.data.decision]);
        assert.ok(
          decisions.some(([name, d]) => name === 'placeOrder' && d === 'approval_required'),
          JSON.stringify(decisions),
        );
        assert.ok(
          decisions.some(([name, d]) => name === 'quote' && d === 'invalid'),
          JSON.stringify(decisions),
        );
        const results = ofType(events, 'tool_result');
        assert.deepEqual(results.find((e) => e.data.name === 'quote' && e.data.ok)?.data.structuredContent, {
          sku: 'AB-1',
          qty: 5,
          total: 35,
        });
        assert.equal(mock.remaining(), 0);
      } finally {
        await toolgate.close();
      }
    },
  );

  it('a dry run validates and previews the write without executing it; reads still run', async () => {
    const t = tools();
    const toolgate = await open(t);
    try {
      mock.enqueue(
        {
          toolCalls: [
            { id: 'q1', name: 'quote', arguments: '{"sku":"AB-1","qty":2}' },
            { id: 'o1', name: 'placeOrder', arguments: '{"sku":"AB-1","qty":2}' },
          ],
        },
        { text: 'Would order 2.' },
      );
      const run = await toolgate.run({ input: 'Order 2 AB-1', userId: 'u-8', dryRun: true });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      assert.equal(t.calls.quote.length, 1);
      assert.equal(t.calls.order.length, 0, 'nothing written');
      const preview = ofType(await toolgate.store.readEvents(run.id), 'tool_result').find(
        (e) => e.data.name === 'placeOrder',
      );
      assert.match(JSON.stringify(preview?.data.content), /DRY RUN: placeOrder was validated and would have run/);
      assert.match(JSON.stringify(preview?.data.content), /u-8/, 'with the injected value');
    } finally {
      await toolgate.close();
    }
  });

  it('takes any ToolSource and MCP servers beside tools defined in code', async () => {
    const spec: ToolSpec = {
      name: 'weather',
      description: 'Weather now.',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      origin: { kind: 'builtin', server: 'sky', tool: 'weather' },
    };
    const sky: ToolSource & { calls: number } = {
      name: 'sky',
      calls: 0,
      listTools: async () => [spec],
      callTool: async (): Promise<ToolResult> => {
        sky.calls++;
        return { ok: true, content: [{ type: 'text', text: 'sunny' }] };
      },
      close: async () => undefined,
    };
    const t = tools();
    const toolgate = await open(t, {
      tools: [t.quote, sky, { name: 'exchange', command: process.execPath, args: [POWER_EXCHANGE_SERVER] }],
      store: 'memory:',
    });
    try {
      const names = (await toolgate.listTools()).map((x) => `${x.origin.server}/${x.name}`);
      assert.ok(
        names.includes('local/quote') && names.includes('sky/weather') && names.includes('exchange/getOrderBook'),
        names.join(', '),
      );
      mock.enqueue({ toolCalls: [{ id: 'w1', name: 'weather', arguments: '{}' }] }, { text: 'Sunny.' });
      const run = await toolgate.run({ input: 'Weather?' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      assert.equal(sky.calls, 1);
      assert.deepEqual(
        toolgate.toolHealth().map((h) => [h.name, h.state]),
        [
          ['exchange', 'up'],
          ['local', 'up'],
          ['sky', 'up'],
        ],
      );
    } finally {
      await toolgate.close();
    }
  });

  it("a tool's own timeout and an MCP server's timeoutMs apply in runs when no policy rule sets one", async () => {
    const stuck = defineTool({
      name: 'stuck',
      description: 'never answers',
      inputSchema: { type: 'object' },
      effect: 'read',
      timeoutMs: 50,
      execute: () => new Promise(() => undefined),
    });
    const toolgate = await createToolgate({
      model: 'openai:mock',
      providers: { openai: { baseUrl: mock.url, apiKey: 'test', maxRetries: 0 } },
      tools: [
        stuck,
        {
          name: 'exchange',
          command: process.execPath,
          args: [POWER_EXCHANGE_SERVER, '--delay', 'getOrderBook=5000'],
          timeoutMs: 300,
        },
      ],
      stream: false,
    });
    try {
      mock.enqueue(
        {
          toolCalls: [
            { id: 's1', name: 'stuck', arguments: '{}' },
            { id: 'b1', name: 'getOrderBook', arguments: '{}' },
          ],
        },
        { text: 'Both timed out.' },
      );
      const run = await toolgate.run({ input: 'Try both' });
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const results = ofType(await toolgate.store.readEvents(run.id), 'tool_result');
      assert.deepEqual(
        results.map((e) => [e.data.name, e.data.error?.code]),
        [
          ['stuck', 'tool_timeout'],
          ['getOrderBook', 'tool_timeout'],
        ],
      );
      assert.match(results[0]?.data.error?.message ?? '', /50 ms/);
      assert.match(results[1]?.data.error?.message ?? '', /300 ms/);
    } finally {
      await toolgate.close();
    }
  });

  it('refuses bad options before anything starts, naming each by its option path', async () => {
    const t = tools();
    await assert.rejects(
      createToolgate({
        model: 'gpt-4o',
        tools: [t.quote, { name: 'crm', command: 'node', args: 'crm.js' as unknown as string[] }],
        policy: { tools: { 'local/quote': { approval: 'sometimes' as 'never' } } },
        maxStep: 3,
      } as Parameters<typeof createToolgate>[0]),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, 'config_invalid');
        assert.match(error.message, /^createToolgate: invalid options:/);
        assert.match(error.message, /maxStep: unknown key — did you mean "maxSteps"\?/);
        assert.match(error.message, /^ {2}- model: model must be "provider:model"/m);
        assert.match(error.message, /^ {2}- tools\[1\]\.args: must be a list of strings/m);
        assert.match(error.message, /^ {2}- policy\.tools\.local\/quote\.approval: /m);
        return true;
      },
    );
    await assert.rejects(
      createToolgate({ tools: [t.quote, 42 as unknown as ToolSource] }),
      /tools\[1\]: expected an MCP server .* got number/,
    );
    await assert.rejects(
      createToolgate({
        tools: [
          { name: 'a', url: 'http://127.0.0.1:1/mcp' },
          { name: 'a', command: 'node' },
        ],
      }),
      /tools\[1\]: the name "a" is already used by tools\[0\]/,
    );
  });
});
