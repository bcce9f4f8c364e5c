import { callIdOf } from '../../test/support/events.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  toolError,
  type CallToolRequest,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type RawToolCall,
  type RunEvent,
  type ToolResult,
  type ToolSource,
  type ToolSpec,
} from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { draft, newId } from '../core/index.ts';
import { runAgent } from './run-agent.ts';
import { sharedValidator } from '../validation/index.ts';
import { submitInput } from './submit-input.ts';

type Turn = Partial<ModelResponse> & { deltas?: string[] };

/** A model that answers from a list and records what it was sent. */
function fakeModel(turns: Turn[]): ModelAdapter & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'fake:model',
    requests,
    async generate(request, options) {
      requests.push(structuredClone(request) as ModelRequest);
      const turn = turns[requests.length - 1];
      if (turn === undefined) throw new Error('no more turns');
      for (const d of turn.deltas ?? []) options?.onTextDelta?.(d);
      return {
        text: turn.text ?? (turn.deltas ?? []).join(''),
        toolCalls: turn.toolCalls ?? [],
        finishReason: turn.finishReason ?? ((turn.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'),
        usage: turn.usage ?? { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
        ...(turn.reasoning === undefined ? {} : { reasoning: turn.reasoning }),
        ...(turn.providerData === undefined ? {} : { providerData: turn.providerData }),
      };
    },
  };
}

function tool(name: string): ToolSpec {
  // Read-only, so the gate lets them run without approval (writes are tested in the gate tests).
  return {
    name,
    description: `${name} tool`,
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
    origin: { kind: 'mcp', server: 'fake', tool: name },
  };
}

/** Tools with scripted behaviour; records calls and the order they finished in. */
function fakeTools(
  behaviour: Record<string, (req: CallToolRequest) => Promise<ToolResult>>,
): ToolSource & { calls: CallToolRequest[]; finished: string[] } {
  const calls: CallToolRequest[] = [];
  const finished: string[] = [];
  return {
    name: 'fake',
    calls,
    finished,
    listTools: async () => Object.keys(behaviour).map(tool),
    async callTool(req) {
      calls.push(req);
      const fn = behaviour[req.name];
      if (fn === undefined) return toolError('tool_not_found', 'no such tool');
      const result = await fn(req);
      finished.push(req.name);
      return result;
    },
    close: async () => undefined,
  };
}

const ok = (text: string): ToolResult => ({ ok: true, content: [{ type: 'text', text }] });
const call = (id: string, name: string, args: string): RawToolCall => ({ id, name, arguments: args });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(input = 'hello') {
  const store = new MemoryRunStore();
  const run = await store.createRun({ input, model: 'fake:model' });
  return { store, run };
}

function types(events: RunEvent[]): string[] {
  return events.map((e) => e.type);
}

describe('runAgent', () => {
  it('answers without tools: events in order, run completed with the output and usage', async () => {
    const { store, run } = await start();
    const model = fakeModel([{ deltas: ['Hel', 'lo ', 'there'] }]);
    const final = await runAgent({ runId: run.id, store, model, tools: fakeTools({}) });
    const events = await store.readEvents(run.id);
    assert.equal(final.status, 'completed');
    assert.equal(final.output, 'Hello there');
    assert.deepEqual(final.usage, { promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    assert.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => i + 1),
    );
    const t = types(events);
    assert.deepEqual([t[0], t[1], t[2]], ['run_status', 'run_started', 'user_message']);
    assert.equal(t.at(-1), 'run_completed');
    const deltas = events
      .filter((e) => e.type === 'assistant_delta')
      .map((e) => (e.type === 'assistant_delta' ? e.data.text : ''));
    assert.equal(deltas.join(''), 'Hello there', 'the deltas concatenate to the message text');
    assert.ok(t.indexOf('assistant_message') > t.lastIndexOf('assistant_delta'));
  });

  it(
    "a turn's providerData is recorded with it and handed " + 'back on its assistant message in the next request',
    async () => {
      const { store, run } = await start();
      const providerData = {
        anthropic: { thinking: [{ type: 'thinking', thinking: 'check first', signature: 'sig==' }] },
      };
      const model = fakeModel([
        { reasoning: 'check first', providerData, toolCalls: [call('c1', 'lookup', '{}')] },
        { text: 'done' },
      ]);
      const final = await runAgent({ runId: run.id, store, model, tools: fakeTools({ lookup: async () => ok('v') }) });
      assert.equal(final.status, 'completed');
      const recorded = (await store.readEvents(run.id)).filter((e) => e.type === 'assistant_message');
      assert.deepEqual(
        recorded[0]?.type === 'assistant_message' ? recorded[0].data.providerData : undefined,
        providerData,
      );
      assert.equal(
        recorded[1]?.type === 'assistant_message' ? recorded[1].data.providerData : 'absent',
        undefined,
        'only the turn that had some',
      );
      const sentBack = model.requests[1]?.messages.find((m) => m.role === 'assistant');
      assert.deepEqual(sentBack?.role === 'assistant' ? sentBack.providerData : undefined, providerData);
    },
  );

  it('runs parallel calls of one turn concurrently and returns results in call order', async () => {
    const { store, run } = await start();
    const tools = fakeTools({
      slow: async () => (await sleep(80), ok('slow done')),
      fast: async () => (await sleep(5), ok('fast done')),
    });
    const model = fakeModel([
      { toolCalls: [call('c1', 'slow', '{}'), call('c2', 'fast', '{"x":1}')] },
      { text: 'done' },
    ]);
    const final = await runAgent({ runId: run.id, store, model, tools });
    assert.equal(final.status, 'completed');
    assert.deepEqual(tools.finished, ['fast', 'slow'], 'both ran at once: the fast one finished first');
    const second = model.requests[1];
    assert.ok(second);
    const toolMessages = second.messages.filter((m) => m.role === 'tool');
    assert.deepEqual(
      toolMessages.map((m) => (m.role === 'tool' ? [m.toolCallId, m.content] : [])),
      [
        ['c1', 'slow done'],
        ['c2', 'fast done'],
      ],
    );
    const assistant = second.messages.find((m) => m.role === 'assistant');
    assert.deepEqual(assistant?.role === 'assistant' ? assistant.toolCalls : undefined, [
      call('c1', 'slow', '{}'),
      call('c2', 'fast', '{"x":1}'),
    ]);
    // Each call is committed before it runs: tool_call precedes its tool_result.
    const events = await store.readEvents(run.id);
    for (const id of ['c1', 'c2'].map((p) => callIdOf(events, p))) {
      const callAt = events.findIndex((e) => e.type === 'tool_call' && e.data.toolCallId === id);
      const resultAt = events.findIndex((e) => e.type === 'tool_result' && e.data.toolCallId === id);
      assert.ok(callAt >= 0 && resultAt > callAt, `tool_call before tool_result for ${id}`);
    }
  });

  it('passes the idempotency key and the timeout to the tool', async () => {
    const { store, run } = await start();
    const tools = fakeTools({ t: async () => ok('x') });
    await runAgent({
      runId: run.id,
      store,
      model: fakeModel([{ toolCalls: [call('c9', 't', '{"a":1}')] }, { text: 'ok' }]),
      tools,
      toolTimeoutMs: 1234,
    });
    const id = callIdOf(await store.readEvents(run.id), 'c9');
    assert.match(id, /^call_[0-9a-f]{24}$/, 'toolgate gives the call its own id');
    assert.deepEqual(tools.calls[0]?.meta, { 'toolgate/idempotency-key': `${run.id}:${id}` });
    assert.equal(tools.calls[0]?.timeoutMs, 1234);
    assert.deepEqual(tools.calls[0]?.arguments, { a: 1 });
  });

  it(
    'a failing tool, an unknown tool and unparseable ' + 'arguments do not end the run: the model sees each error',
    async () => {
      const { store, run } = await start();
      const tools = fakeTools({
        boom: async () => toolError('tool_error', 'exploded'),
        thrower: async () => Promise.reject(new Error('thrown')),
      });
      const model = fakeModel([
        {
          toolCalls: [
            call('a', 'boom', '{}'),
            call('b', 'ghost', '{}'),
            call('c', 'boom', '{not json'),
            call('d', 'thrower', '{}'),
          ],
        },
        { text: 'recovered' },
      ]);
      const final = await runAgent({ runId: run.id, store, model, tools });
      assert.equal(final.status, 'completed');
      const sent = model.requests[1]?.messages.filter((m) => m.role === 'tool').map((m) => m.content) ?? [];
      assert.match(sent[0] ?? '', /^Error \(tool_error\): exploded/);
      assert.match(sent[1] ?? '', /tool_not_found.*"ghost".*boom/s);
      assert.match(sent[2] ?? '', /invalid_arguments.*not a valid JSON object.*character 5/);
      assert.match(sent[3] ?? '', /tool_error.*thrown/);
      assert.equal(tools.calls.length, 2, 'only the two well-formed calls to known tools reached a tool');
      const results = (await store.readEvents(run.id)).filter((e) => e.type === 'tool_result');
      assert.equal(results.length, 4);
    },
  );

  it('maxSteps ends a runaway run with run_failed max_steps', async () => {
    const { store, run } = await start();
    const loop = Array.from({ length: 10 }, (_, i) => ({ toolCalls: [call(`c${i}`, 't', '{}')] }));
    const tools = fakeTools({ t: async () => ok('again') });
    const final = await runAgent({ runId: run.id, store, model: fakeModel(loop), tools, maxSteps: 3 });
    assert.equal(final.status, 'failed');
    assert.equal(final.error?.code, 'max_steps');
    assert.equal(final.steps, 3);
    assert.equal(tools.calls.length, 3);
    const last = (await store.readEvents(run.id)).at(-1);
    assert.equal(last?.type, 'run_failed');
    assert.equal(last?.type === 'run_failed' ? last.data.error.code : '', 'max_steps');
  });

  it('a model error fails the run with the adapter code and message', async () => {
    const { store, run } = await start();
    const model: ModelAdapter = {
      id: 'fake:err',
      generate: async () => {
        const { ToolgateError } = await import('../core/index.ts');
        throw new ToolgateError('model_auth', 'bad key');
      },
    };
    const final = await runAgent({ runId: run.id, store, model, tools: fakeTools({}) });
    assert.equal(final.status, 'failed');
    assert.deepEqual(final.error, { code: 'model_auth', message: 'bad key' });
  });

  it('cancellation during a tool call ends the run cancelled', async () => {
    const { store, run } = await start();
    const controller = new AbortController();
    const tools = fakeTools({
      wait: async (req) =>
        await new Promise<ToolResult>((resolve) => {
          req.signal?.addEventListener('abort', () => resolve(toolError('cancelled', 'aborted')));
          setTimeout(() => controller.abort(), 10);
        }),
    });
    const final = await runAgent({
      runId: run.id,
      store,
      model: fakeModel([{ toolCalls: [call('w', 'wait', '{}')] }, { text: 'never' }]),
      tools,
      signal: controller.signal,
    });
    assert.equal(final.status, 'cancelled');
    assert.equal((await store.readEvents(run.id)).at(-1)?.type, 'run_cancelled');
  });

  it('every status change has its run_status event', async () => {
    const { store, run } = await start();
    await runAgent({ runId: run.id, store, model: fakeModel([{ text: 'hi' }]), tools: fakeTools({}) });
    const statuses = (await store.readEvents(run.id)).flatMap((e) =>
      e.type === 'run_status' ? [`${e.data.from}>${e.data.to}`] : [],
    );
    assert.deepEqual(statuses, ['queued>running', 'running>completed']);
  });

  it(
    'recovers a run from its log after a crash: a read in ' +
      'flight is called again, a write in flight waits for a person',
    async () => {
      const { store, run } = await start('trade');
      const writeSpec: ToolSpec = { ...tool('place'), annotations: { readOnlyHint: false } };
      const calls = [call('r1', 'quote', '{"k":1}'), call('w1', 'place', '{"q":2}')];
      // The log as a process left it when it died mid-call: both tool_call events committed, no results.
      await store.append(
        run.id,
        [
          draft('run_status', { from: 'queued', to: 'running' }),
          draft('run_started', { input: 'trade', model: 'fake:model', tools: ['quote', 'place'], maxSteps: 20 }),
          draft('user_message', { text: 'trade' }),
          draft('assistant_message', { step: 1, text: '', toolCalls: calls, finishReason: 'tool_calls', latencyMs: 1 }),
          draft('tool_call', { step: 1, toolCallId: 'r1', name: 'quote', arguments: { k: 1 } }),
          draft('tool_call', { step: 1, toolCallId: 'w1', name: 'place', arguments: { q: 2 } }),
        ],
        { status: 'running', steps: 1 },
      );
      const executed: string[] = [];
      const tools: ToolSource = {
        name: 'fake',
        listTools: async () => [tool('quote'), writeSpec],
        callTool: async (req) => (executed.push(req.name), ok(`${req.name} done`)),
        close: async () => undefined,
      };
      const policy = { tools: { place: { approval: 'never' as const } }, tenants: {} };
      const model = fakeModel([{ text: 'all done' }]);

      const waiting = await runAgent({ runId: run.id, store, model, tools, policy });
      assert.deepEqual(executed, ['quote'], 'the read was called again; the write was not');
      assert.equal(waiting.status, 'waiting_approval');
      assert.deepEqual(
        waiting.pendingApproval && [waiting.pendingApproval.toolCallId, waiting.pendingApproval.reason],
        ['w1', 'outcome_unknown'],
      );
      assert.equal(model.requests.length, 0, 'the model is not asked while a call of its turn is undecided');

      await submitInput(store, run.id, { type: 'approval', toolCallId: 'w1', decision: 'approve' });
      const done = await runAgent({ runId: run.id, store, model, tools, policy });
      assert.equal(done.status, 'completed');
      assert.deepEqual(executed, ['quote', 'place']);
      const sent = model.requests[0]?.messages
        .filter((m) => m.role === 'tool')
        .map((m) => (m.role === 'tool' ? m.toolCallId : ''));
      assert.deepEqual(sent, ['r1', 'w1'], 'results go back in call order');
      const events = await store.readEvents(run.id);
      assert.deepEqual(
        events.map((e) => e.id),
        events.map((_, i) => i + 1),
      );
    },
  );

  it("returnDirect: a tool's result becomes the answer without asking the model again", async () => {
    const { store, run } = await start();
    const model = fakeModel([{ toolCalls: [call('d1', 'report', '{}')] }, { text: 'never asked' }]);
    const final = await runAgent({
      runId: run.id,
      store,
      model,
      tools: fakeTools({ report: async () => ok('the report') }),
      policy: { tools: { report: { returnDirect: true } }, tenants: {} },
    });
    assert.equal(final.status, 'completed');
    assert.equal(final.output, 'the report');
    assert.equal(model.requests.length, 1);
  });

  it(
    'runAgent without a validator reuses the process-wide ' + 'compiled schemas: a second run compiles nothing',
    async () => {
      // A schema no other test uses, so this run is the first to meet it.
      const schema = {
        type: 'object',
        properties: { ticket: { type: 'string', minLength: 3 }, nonce: { const: newId('schema') } },
      };
      const spec: ToolSpec = {
        name: 'lookup',
        description: 'looks up',
        inputSchema: schema,
        annotations: { readOnlyHint: true },
        origin: { kind: 'mcp', server: 'fake', tool: 'lookup' },
      };
      const tools: ToolSource = {
        name: 'fake',
        listTools: async () => [structuredClone(spec)],
        callTool: async () => ok('found'),
        close: async () => undefined,
      };
      const shared = sharedValidator();
      const before = shared.stats().compiles;
      for (let i = 0; i < 2; i++) {
        const { store, run } = await start();
        const model = fakeModel([{ toolCalls: [call(`c${i}`, 'lookup', '{"ticket":"T-1"}')] }, { text: 'done' }]);
        const final = await runAgent({ runId: run.id, store, model, tools });
        assert.equal(final.status, 'completed');
        assert.equal(
          shared.stats().compiles,
          before + 1,
          `run ${i + 1}: the schema was compiled once, in the shared validator`,
        );
      }
    },
  );
});
