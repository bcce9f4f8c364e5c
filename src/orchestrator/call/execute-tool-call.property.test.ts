// Properties of the one path to a tool, over random model output:
// every executed call passed validation; no write executes in a dry run;
// an injected key is never the model's value; every call ends in one result.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  checkJsonShape,
  isTerminalEvent,
  type CallToolRequest,
  type EventDraft,
  type JsonObject,
  type JsonValue,
  type ModelAdapter,
  type RawToolCall,
  type ToolSource,
  type ToolSpec,
} from '../../core/index.ts';
import { createRedactor, type Policy } from '../../gate/index.ts';
import { parseToolCall } from '../../parsing/index.ts';
import { createValidator } from '../../validation/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { executeToolCall, type ToolCallContext } from './execute-tool-call.ts';
import { runAgent } from '../run-agent.ts';
import { buildToolCatalog } from './tool-catalog.ts';

const ORDER_SCHEMA = {
  type: 'object',
  properties: {
    userId: { type: 'string', minLength: 1 },
    side: { type: 'string', enum: ['BUY', 'SELL'] },
    price: { type: 'number', exclusiveMinimum: 0 },
    qty: { type: 'number', exclusiveMinimum: 0 },
    note: { type: 'string' },
  },
  required: ['userId', 'side', 'price', 'qty'],
  additionalProperties: false,
};

const TOOLS: ToolSpec[] = [
  {
    name: 'placeOrder',
    description: '',
    inputSchema: ORDER_SCHEMA,
    annotations: { readOnlyHint: false },
    origin: { kind: 'mcp', server: 'pe', tool: 'placeOrder' },
  },
  {
    name: 'quote',
    description: '',
    inputSchema: ORDER_SCHEMA,
    annotations: { readOnlyHint: true },
    origin: { kind: 'mcp', server: 'pe', tool: 'quote' },
  },
];

function recordingTools(): ToolSource & { calls: CallToolRequest[] } {
  const calls: CallToolRequest[] = [];
  return {
    name: 'recording',
    calls,
    listTools: async () => TOOLS,
    callTool: async (req) => {
      calls.push(req);
      return { ok: true, content: [{ type: 'text', text: 'ok' }] };
    },
    close: async () => undefined,
  };
}

/**
 * One validator for every generated case, as a toolgate has one: compiling the
 * schemas again for each of the hundreds of cases was most of this file's time.
 */
const VALIDATOR = createValidator();

function context(
  tools: ToolSource,
  policy: Policy,
  options: { dryRun: boolean; userId?: string },
): { ctx: ToolCallContext; drafts: EventDraft[] } {
  const drafts: EventDraft[] = [];
  const ctx: ToolCallContext = {
    runId: 'run_prop',
    step: 1,
    append: async (d) => void drafts.push(...d),
    tools,
    catalog: buildToolCatalog(TOOLS, { policy }),
    policy,
    validator: VALIDATOR,
    redact: createRedactor(),
    dryRun: options.dryRun,
    ...(options.userId === undefined ? {} : { userId: options.userId }),
  };
  return { ctx, drafts };
}

/** Model output: sometimes right, often wrong in the ways models are wrong. */
const messyValue: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.string(),
  fc.constantFrom('BUY', 'buy', 'Sell', 'hold', '7,000', '1 000.5', '-3', '0', 'true', ''),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
);
const messyArgs = fc.dictionary(
  fc.constantFrom('userId', 'side', 'price', 'qty', 'note', 'extra'),
  messyValue,
) as fc.Arbitrary<JsonObject>;
const positive = fc.oneof(
  fc.double({ min: 0.01, max: 1e6, noNaN: true }),
  fc.constantFrom('7,000', '1 000.5', '12', '0', '-1', 'ten'),
);
const nearlyValid = fc.record({
  userId: fc.oneof(fc.string({ minLength: 1 }), fc.integer()),
  side: fc.constantFrom('BUY', 'buy', ' Sell ', 'SELL', 'hold'),
  price: positive,
  qty: positive,
}) as fc.Arbitrary<JsonObject>;
const rawArgs = fc.oneof(
  nearlyValid.map((a) => JSON.stringify(a)),
  messyArgs.map((a) => JSON.stringify(a)),
  messyArgs.map((a) => JSON.stringify(a).replace(/"/g, "'")),
  messyArgs.map((a) => `${JSON.stringify(a).slice(0, -1)},}`),
  fc.string(),
);

describe('executeToolCall properties', () => {
  it(
    'every call that reaches a tool passed validation against ' +
      'the full schema; every call ends in exactly one result',
    async () => {
      const validator = createValidator();
      let executed = 0;
      await fc.assert(
        fc.asyncProperty(rawArgs, fc.constantFrom('placeOrder', 'quote'), async (raw, name) => {
          const tools = recordingTools();
          const { ctx, drafts } = context(
            tools,
            { tools: { '*': { approval: 'never' } }, tenants: {} },
            { dryRun: false },
          );
          await executeToolCall(ctx, parseToolCall({ id: 'c1', name, arguments: raw }));
          for (const call of tools.calls)
            assert.equal(validator.validate(ORDER_SCHEMA, call.arguments).ok, true, JSON.stringify(call.arguments));
          executed += tools.calls.length;
          assert.equal(drafts.filter((d) => d.type === 'tool_result').length, 1);
          assert.equal(drafts.filter((d) => d.type === 'gate_decision').length, 1);
        }),
        { numRuns: 300 },
      );
      // Not vacuous: normalisation turns some messy calls into valid ones that do run.
      const valid = await executeToolCall(
        context(recordingTools(), { tools: { '*': { approval: 'never' } }, tenants: {} }, { dryRun: false }).ctx,
        parseToolCall({
          id: 'c2',
          name: 'quote',
          arguments: "{'userId': 'u', 'side': 'buy', 'price': '7,000', 'qty': 1,}",
        }),
      );
      assert.equal(valid.kind === 'done' && valid.result.ok, true);
      assert.ok(executed > 0, 'some random calls were valid and ran');
    },
  );

  it('in a dry run no write ever reaches a tool, whatever the arguments', async () => {
    await fc.assert(
      fc.asyncProperty(rawArgs, async (raw) => {
        const tools = recordingTools();
        const { ctx } = context(tools, { tools: { '*': { approval: 'never' } }, tenants: {} }, { dryRun: true });
        await executeToolCall(ctx, parseToolCall({ id: 'c1', name: 'placeOrder', arguments: raw }));
        assert.equal(tools.calls.length, 0);
      }),
      { numRuns: 200 },
    );
  });

  it("an injected key always carries the server value, never the model's", async () => {
    await fc.assert(
      fc.asyncProperty(messyArgs, fc.string({ minLength: 1 }), async (args, userId) => {
        const tools = recordingTools();
        const policy: Policy = {
          tools: { '*': { approval: 'never', inject: { userId: '{{user.id}}' } } },
          tenants: {},
        };
        const { ctx } = context(tools, policy, { dryRun: false, userId });
        await executeToolCall(ctx, { id: 'c1', name: 'quote', input: args });
        for (const call of tools.calls) assert.equal(call.arguments['userId'], userId);
      }),
      { numRuns: 200 },
    );
  });
});

/** Arguments as a hostile or broken model sends them: deep, huge, non-finite, or plain broken. */
const hostileArgs = fc.oneof(
  rawArgs,
  fc.integer({ min: 60, max: 5000 }).map((d) => `{"userId": "u", "note": ${'['.repeat(d)}1${']'.repeat(d)}}`),
  fc.integer({ min: 60, max: 5000 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
  fc.integer({ min: 1, max: 3000 }).map((d) => '['.repeat(d)),
  fc.constantFrom(
    '{"userId":"u","side":"BUY","price":1e400,"qty":1}',
    '{"qty": -1e999}',
    '{"price": NaN}',
    '{"price": Infinity}',
  ),
  fc
    .integer({ min: 100_000, max: 400_000 })
    .map((n) => JSON.stringify({ userId: 'u', side: 'BUY', price: 1, qty: 1, note: 'x'.repeat(n) })),
);

describe('executeToolCall and the loop under hostile arguments', () => {
  it(
    'never throw; a call that reaches a tool has finite, ' + 'shallow arguments; every call ends in one result',
    async () => {
      await fc.assert(
        fc.asyncProperty(hostileArgs, fc.constantFrom('placeOrder', 'quote'), async (raw, name) => {
          const tools = recordingTools();
          const { ctx, drafts } = context(
            tools,
            { tools: { '*': { approval: 'never' } }, tenants: {} },
            { dryRun: false },
          );
          await executeToolCall(ctx, parseToolCall({ id: 'c1', name, arguments: raw }));
          for (const call of tools.calls) assert.equal(checkJsonShape(call.arguments), undefined);
          assert.equal(drafts.filter((d) => d.type === 'tool_result').length, 1);
        }),
        { numRuns: 150 },
      );
    },
  );

  it(
    'a run of hostile turns with repeated call ids ends cleanly: ' +
      'one result per call, nothing after the terminal event',
    async () => {
      const turn = fc.array(
        fc.record({
          id: fc.constantFrom('call_0', 'call_1', '0', ''),
          name: fc.constantFrom('placeOrder', 'quote', 'nope'),
          arguments: hostileArgs,
        }),
        {
          minLength: 1,
          maxLength: 4,
        },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 3 }), async (turns) => {
          const store = new MemoryRunStore();
          const run = await store.createRun({ input: 'go', model: 'fake:model' });
          let n = 0;
          const model: ModelAdapter = {
            id: 'fake:model',
            generate: async () => {
              const calls: RawToolCall[] | undefined = turns[n++];
              return calls === undefined
                ? { text: 'done', toolCalls: [], finishReason: 'stop' }
                : { text: '', toolCalls: calls, finishReason: 'tool_calls' };
            },
          };
          const tools = recordingTools();
          const final = await runAgent({
            runId: run.id,
            store,
            model,
            tools,
            policy: { tools: { '*': { approval: 'never' } }, tenants: {} },
          });
          assert.equal(final.status, 'completed', JSON.stringify(final.error));
          const events = await store.readEvents(run.id);
          assert.equal(
            events.findIndex((e) => isTerminalEvent(e)),
            events.length - 1,
            'the terminal event is the last one',
          );
          const calls = events.flatMap((e) => (e.type === 'assistant_message' ? (e.data.calls ?? []) : []));
          const results = events.flatMap((e) => (e.type === 'tool_result' ? [e.data.toolCallId] : []));
          assert.equal(new Set(calls.map((c) => c.id)).size, calls.length, 'toolgate ids are unique');
          assert.deepEqual([...results].sort(), calls.map((c) => c.id).sort(), 'each call has exactly one result');
          for (const call of tools.calls) assert.equal(checkJsonShape(call.arguments), undefined);
        }),
        { numRuns: 40 },
      );
    },
  );
});
