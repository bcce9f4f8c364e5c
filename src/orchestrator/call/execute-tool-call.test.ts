// A call is parsed once, where it comes in; what reaches the tool is what the
// parser read, never the recorded JSON text read again. `-0` tells them apart:
// the parser keeps it, a JSON round trip (stringify, then parse) makes it 0.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scriptedModel } from '../../../test/support/scripted-model.ts';
import type { CallToolRequest, EventDraft, ToolSource, ToolSpec } from '../../core/index.ts';
import { createRedactor } from '../../gate/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { sharedValidator } from '../../validation/index.ts';
import { executeToolCall, type ToolCallContext } from './execute-tool-call.ts';
import { runAgent } from '../run-agent.ts';
import { buildToolCatalog } from './tool-catalog.ts';

const MEASURE: ToolSpec = {
  name: 'measure',
  description: 'measures',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  annotations: { readOnlyHint: true },
  origin: { kind: 'mcp', server: 'lab', tool: 'measure' },
};

function recordingTools(): ToolSource & { calls: CallToolRequest[] } {
  const calls: CallToolRequest[] = [];
  return {
    name: 'lab',
    calls,
    listTools: async () => [MEASURE],
    callTool: async (request) => {
      calls.push(request);
      return { ok: true, content: [{ type: 'text', text: 'measured' }] };
    },
    close: async () => undefined,
  };
}

function context(tools: ToolSource): { ctx: ToolCallContext; drafts: EventDraft[] } {
  const drafts: EventDraft[] = [];
  const policy = { tools: { '*': { approval: 'never' as const } }, tenants: {} };
  const ctx: ToolCallContext = {
    runId: 'run_1',
    step: 1,
    append: async (list) => void drafts.push(...list),
    tools,
    catalog: buildToolCatalog([MEASURE], { policy }),
    policy,
    validator: sharedValidator(),
    redact: createRedactor(),
    dryRun: false,
  };
  return { ctx, drafts };
}

describe('a tool call is parsed once', () => {
  it("executeToolCall sends the parsed call's input as it is: no JSON round trip on the way to the tool", async () => {
    const tools = recordingTools();
    const { ctx } = context(tools);
    const outcome = await executeToolCall(ctx, { id: 'c1', name: 'measure', input: { n: -0 } });
    assert.equal(outcome.kind, 'done');
    assert.equal(tools.calls.length, 1);
    assert.ok(
      Object.is(tools.calls[0]?.arguments['n'], -0),
      'the value the parser read, not the one its JSON text reads back as',
    );
  });

  it(
    'a call whose arguments could not be read is refused ' + "with the parser's reason; its text is not read again",
    async () => {
      const tools = recordingTools();
      const { ctx, drafts } = context(tools);
      const outcome = await executeToolCall(ctx, {
        id: 'c1',
        name: 'measure',
        raw: '{"n": 1}',
        error: { message: 'Invalid JSON, as the parser said', position: 3 },
      });
      assert.equal(
        tools.calls.length,
        0,
        'the raw text is valid JSON, but it was not the arguments the parser could read',
      );
      assert.ok(outcome.kind === 'done' && outcome.result.error?.code === 'invalid_arguments');
      const gate = drafts.find((d) => d.type === 'gate_decision');
      assert.deepEqual(gate?.type === 'gate_decision' ? gate.data.issues : undefined, [
        { code: 'not_json', path: '', message: 'Invalid JSON, as the parser said, at character 3' },
      ]);
    },
  );

  it("in a run, the model turn's parse reaches the tool; the log records the arguments as JSON", async () => {
    const store = new MemoryRunStore();
    const run = await store.createRun({ input: 'measure it', model: 'fake:model' });
    const model = scriptedModel([
      { toolCalls: [{ id: 'm1', name: 'measure', arguments: '{"n": -0}' }] },
      { text: 'done' },
    ]);
    const tools = recordingTools();
    const final = await runAgent({
      runId: run.id,
      store,
      model,
      tools,
      policy: { tools: { '*': { approval: 'never' } }, tenants: {} },
    });
    assert.equal(final.status, 'completed');
    assert.ok(
      Object.is(tools.calls[0]?.arguments['n'], -0),
      'the recorded "0" was not read back on the way to the tool',
    );
    const events = await store.readEvents(run.id);
    const recorded = events.flatMap((e) => (e.type === 'assistant_message' ? (e.data.calls ?? []) : []));
    assert.deepEqual(
      recorded.map((c) => [c.name, c.arguments, c.providerId]),
      [['measure', '{"n":0}', 'm1']],
    );
  });
});
