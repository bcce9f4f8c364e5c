// beforeToolCall runs exactly once per call, on the arguments that will run:
// for a call that needs a person, after their decision — never while it waits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  CallToolRequest,
  JsonObject,
  ModelAdapter,
  ModelResponse,
  RawToolCall,
  RunEvent,
  ToolSource,
  ToolSpec,
} from '../core/index.ts';
import type { Policy } from '../gate/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { runAgent } from './run-agent.ts';
import type { BeforeToolCallVerdict, HookToolCall, RunHooks } from './state/run-options.ts';
import { submitInput } from './submit-input.ts';

const PLACE: ToolSpec = {
  name: 'place',
  description: 'Places an order.',
  inputSchema: {
    type: 'object',
    properties: { qty: { type: 'number' } },
    required: ['qty'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false },
  origin: { kind: 'mcp', server: 'venue', tool: 'place' },
};
const ASK: Policy = { tools: { place: { approval: 'required' } }, tenants: {} };

function fakeModel(turns: Partial<ModelResponse>[]): ModelAdapter {
  let n = 0;
  return {
    id: 'fake:model',
    async generate() {
      const turn = turns[n++];
      if (turn === undefined) throw new Error('no more turns');
      return {
        text: turn.text ?? '',
        toolCalls: turn.toolCalls ?? [],
        finishReason: (turn.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop',
      };
    },
  };
}

function venue(): ToolSource & { calls: CallToolRequest[] } {
  const calls: CallToolRequest[] = [];
  return {
    name: 'venue',
    calls,
    listTools: async () => [PLACE],
    callTool: async (req) => (calls.push(req), { ok: true, content: [{ type: 'text', text: 'placed' }] }),
    close: async () => undefined,
  };
}

/** A beforeToolCall that records every call it sees. */
function countingHook(verdict?: BeforeToolCallVerdict): RunHooks & { seen: HookToolCall[] } {
  const seen: HookToolCall[] = [];
  return { seen, beforeToolCall: (call) => (seen.push(call), verdict) };
}

const call = (args: JsonObject): RawToolCall => ({ id: 'p', name: 'place', arguments: JSON.stringify(args) });

/** Drives a run to the approval, lets `decide` answer it, and drives it on to its end. */
async function approveThrough(
  hooks: RunHooks & { seen: HookToolCall[] },
  decide: (toolCallId: string) => Parameters<typeof submitInput>[2],
) {
  const store = new MemoryRunStore();
  const tools = venue();
  const model = fakeModel([{ toolCalls: [call({ qty: 1 })] }, { text: 'done' }]);
  const { id } = await store.createRun({ input: 'buy one', model: 'fake:model' });
  const options = { runId: id, store, model, tools, policy: ASK, hooks };
  const waiting = await runAgent(options);
  assert.equal(waiting.status, 'waiting_approval');
  const toolCallId = waiting.pendingApproval?.toolCallId ?? '';
  const beforeDecision = hooks.seen.length;
  await submitInput(store, id, decide(toolCallId));
  const final = await runAgent(options);
  return { final, tools, toolCallId, beforeDecision, events: await store.readEvents(id) };
}

function gateDecisions(events: readonly RunEvent[]) {
  return events.flatMap((e) => (e.type === 'gate_decision' ? [e.data] : []));
}

describe('beforeToolCall runs once per call', () => {
  it(
    'a call that needs approval: not while it waits; ' + 'once after the approval, with the approved arguments',
    async () => {
      const hooks = countingHook();
      const { final, tools, toolCallId, beforeDecision } = await approveThrough(hooks, (id) => ({
        type: 'approval',
        toolCallId: id,
        decision: 'approve',
      }));
      assert.equal(final.status, 'completed');
      assert.equal(hooks.seen.length, 1, 'the hook ran exactly once');
      assert.equal(beforeDecision, 0, 'the hook does not run while the call waits for a person');
      assert.deepEqual(
        hooks.seen.map((c) => [c.toolCallId, c.arguments]),
        [[toolCallId, { qty: 1 }]],
      );
      assert.deepEqual(
        tools.calls.map((c) => c.arguments),
        [{ qty: 1 }],
      );
    },
  );

  it('an edited call: once, with the edited arguments as they will run (normalised)', async () => {
    const hooks = countingHook();
    const { final, tools } = await approveThrough(hooks, (id) => ({
      type: 'approval',
      toolCallId: id,
      decision: 'edit',
      arguments: { qty: '5' },
    }));
    assert.equal(final.status, 'completed');
    assert.deepEqual(
      hooks.seen.map((c) => c.arguments),
      [{ qty: 5 }],
      'once, with the edit',
    );
    assert.deepEqual(
      tools.calls.map((c) => c.arguments),
      [{ qty: 5 }],
    );
  });

  it('a rejected call never reaches the hook', async () => {
    const hooks = countingHook();
    const { final, tools } = await approveThrough(hooks, (id) => ({
      type: 'approval',
      toolCallId: id,
      decision: 'reject',
      reason: 'no',
    }));
    assert.equal(final.status, 'completed');
    assert.equal(hooks.seen.length, 0);
    assert.equal(tools.calls.length, 0);
  });

  it('a hook that denies an approved call refuses it: audited once, the tool is not reached', async () => {
    const hooks = countingHook({ action: 'deny', reason: 'market closed' });
    const { final, tools, events } = await approveThrough(hooks, (id) => ({
      type: 'approval',
      toolCallId: id,
      decision: 'approve',
      userId: 'alice',
    }));
    assert.equal(final.status, 'completed');
    assert.equal(hooks.seen.length, 1);
    assert.equal(tools.calls.length, 0);
    assert.deepEqual(
      gateDecisions(events).map((g) => [g.decision, g.hook?.action]),
      [
        ['approval_required', undefined],
        ['denied', 'deny'],
      ],
    );
  });

  it('a call that needs no person: once', async () => {
    const store = new MemoryRunStore();
    const hooks = countingHook();
    const tools = venue();
    const { id } = await store.createRun({ input: 'buy', model: 'fake:model' });
    const policy: Policy = { tools: { place: { approval: 'never' } }, tenants: {} };
    const final = await runAgent({
      runId: id,
      store,
      model: fakeModel([{ toolCalls: [call({ qty: 2 })] }, { text: 'done' }]),
      tools,
      policy,
      hooks,
    });
    assert.equal(final.status, 'completed');
    assert.deepEqual(
      hooks.seen.map((c) => c.arguments),
      [{ qty: 2 }],
    );
    assert.equal(tools.calls.length, 1);
  });
});
