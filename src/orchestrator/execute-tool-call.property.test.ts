// Properties of the one path to a tool, over random model output:
// every executed call passed validation; no write executes in a dry run;
// an injected key is never the model's value; every call ends in one result.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CallToolRequest, EventDraft, JsonObject, JsonValue, ToolSource, ToolSpec } from '../core/index.ts';
import { createRedactor, type Policy } from '../gate/index.ts';
import { createValidator } from '../validation/index.ts';
import { executeToolCall, type ToolCallContext } from './execute-tool-call.ts';
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
  { name: 'placeOrder', description: '', inputSchema: ORDER_SCHEMA, annotations: { readOnlyHint: false }, origin: { kind: 'mcp', server: 'pe', tool: 'placeOrder' } },
  { name: 'quote', description: '', inputSchema: ORDER_SCHEMA, annotations: { readOnlyHint: true }, origin: { kind: 'mcp', server: 'pe', tool: 'quote' } },
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

function context(tools: ToolSource, policy: Policy, options: { dryRun: boolean; userId?: string }): { ctx: ToolCallContext; drafts: EventDraft[] } {
  const drafts: EventDraft[] = [];
  const ctx: ToolCallContext = {
    runId: 'run_prop',
    step: 1,
    append: async (d) => void drafts.push(...d),
    tools,
    catalog: buildToolCatalog(TOOLS, { policy }),
    policy,
    validator: createValidator(),
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
const messyArgs = fc.dictionary(fc.constantFrom('userId', 'side', 'price', 'qty', 'note', 'extra'), messyValue) as fc.Arbitrary<JsonObject>;
const positive = fc.oneof(fc.double({ min: 0.01, max: 1e6, noNaN: true }), fc.constantFrom('7,000', '1 000.5', '12', '0', '-1', 'ten'));
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
  it('every call that reaches a tool passed validation against the full schema; every call ends in exactly one result', async () => {
    const validator = createValidator();
    let executed = 0;
    await fc.assert(
      fc.asyncProperty(rawArgs, fc.constantFrom('placeOrder', 'quote'), async (raw, name) => {
        const tools = recordingTools();
        const { ctx, drafts } = context(tools, { tools: { '*': { approval: 'never' } }, tenants: {} }, { dryRun: false });
        await executeToolCall(ctx, { id: 'c1', name, arguments: raw });
        for (const call of tools.calls) assert.equal(validator.validate(ORDER_SCHEMA, call.arguments).ok, true, JSON.stringify(call.arguments));
        executed += tools.calls.length;
        assert.equal(drafts.filter((d) => d.type === 'tool_result').length, 1);
        assert.equal(drafts.filter((d) => d.type === 'gate_decision').length, 1);
      }),
      { numRuns: 300 },
    );
    // Not vacuous: normalisation turns some messy calls into valid ones that do run.
    const valid = await executeToolCall(context(recordingTools(), { tools: { '*': { approval: 'never' } }, tenants: {} }, { dryRun: false }).ctx, {
      id: 'c2',
      name: 'quote',
      arguments: "{'userId': 'u', 'side': 'buy', 'price': '7,000', 'qty': 1,}",
    });
    assert.equal(valid.kind === 'done' && valid.result.ok, true);
    assert.ok(executed > 0, 'some random calls were valid and ran');
  });

  it('in a dry run no write ever reaches a tool, whatever the arguments', async () => {
    await fc.assert(
      fc.asyncProperty(rawArgs, async (raw) => {
        const tools = recordingTools();
        const { ctx } = context(tools, { tools: { '*': { approval: 'never' } }, tenants: {} }, { dryRun: true });
        await executeToolCall(ctx, { id: 'c1', name: 'placeOrder', arguments: raw });
        assert.equal(tools.calls.length, 0);
      }),
      { numRuns: 200 },
    );
  });

  it('an injected key always carries the server value, never the model\'s', async () => {
    await fc.assert(
      fc.asyncProperty(messyArgs, fc.string({ minLength: 1 }), async (args, userId) => {
        const tools = recordingTools();
        const policy: Policy = { tools: { '*': { approval: 'never', inject: { userId: '{{user.id}}' } } }, tenants: {} };
        const { ctx } = context(tools, policy, { dryRun: false, userId });
        await executeToolCall(ctx, { id: 'c1', name: 'quote', arguments: JSON.stringify(args) });
        for (const call of tools.calls) assert.equal(call.arguments['userId'], userId);
      }),
      { numRuns: 200 },
    );
  });
});
