import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  CallToolRequest,
  ModelAdapter,
  ModelResponse,
  RunStore,
  ToolResult,
  ToolSource,
  ToolSpec,
} from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { createToolgate } from '../create-toolgate.ts';
import type { ToolgatePolicy } from '../toolgate-options.ts';
import { readAllEvents } from './load-runs.ts';
import { replayRun } from './replay-run.ts';
import type { RecordedRun } from './recorded-run.ts';

const PLACE_ORDER: ToolSpec = {
  name: 'placeOrder',
  description: 'Places a limit order.',
  inputSchema: {
    type: 'object',
    properties: { userId: { type: 'string' }, qty: { type: 'number' }, price: { type: 'number' } },
    required: ['userId', 'qty', 'price'],
  },
  annotations: { readOnlyHint: false },
  origin: { kind: 'mcp', server: 'venue', tool: 'placeOrder' },
};

const GET_BOOK: ToolSpec = {
  name: 'getOrderBook',
  description: 'The order book.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnlyHint: true },
  origin: { kind: 'mcp', server: 'venue', tool: 'getOrderBook' },
};

/** A venue that counts what reaches it: a replay must reach it with nothing but reads it allowed. */
class CountingVenue implements ToolSource {
  readonly name = 'venue';
  readonly received: string[] = [];
  async listTools(): Promise<ToolSpec[]> {
    return [PLACE_ORDER, GET_BOOK];
  }
  async callTool(request: CallToolRequest): Promise<ToolResult> {
    this.received.push(request.name);
    const text = request.name === 'placeOrder' ? 'order 1 placed' : 'best ask 90';
    return { ok: true, content: [{ type: 'text', text }] };
  }
  async close(): Promise<void> {}
}

function model(turns: readonly Partial<ModelResponse>[]): ModelAdapter {
  let next = 0;
  return {
    id: 'fake:model',
    generate: async () => {
      const turn = turns[next++];
      if (turn === undefined) throw new Error('no more turns');
      return { text: turn.text ?? '', toolCalls: turn.toolCalls ?? [], finishReason: turn.finishReason ?? 'stop' };
    },
  };
}

const BID = { id: 'c1', name: 'placeOrder', arguments: '{"userId":"alice","qty":"7,000","price":85}' };
const BOOK = { id: 'c0', name: 'getOrderBook', arguments: '{}' };

async function recordRun(options: {
  policy: ToolgatePolicy;
  turns: readonly Partial<ModelResponse>[];
  textToolCalls?: 'never' | 'auto';
}): Promise<{ original: RecordedRun; store: RunStore; venue: CountingVenue }> {
  const store = new MemoryRunStore();
  const venue = new CountingVenue();
  const toolgate = await createToolgate({
    model: model(options.turns),
    tools: [venue],
    store,
    policy: options.policy,
    ...(options.textToolCalls === undefined ? {} : { textToolCalls: options.textToolCalls }),
  });
  const run = await toolgate.run({ input: 'buy for alice' });
  return { original: { run, events: await readAllEvents(store, run.id) }, store, venue };
}

async function newConfig(options: { policy: ToolgatePolicy; store?: RunStore; textToolCalls?: 'never' | 'auto' }) {
  const venue = new CountingVenue();
  const toolgate = await createToolgate({
    tools: [venue],
    policy: options.policy,
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.textToolCalls === undefined ? {} : { textToolCalls: options.textToolCalls }),
  });
  return { toolgate, venue };
}

const ALLOW_ALL: ToolgatePolicy = { tools: { placeOrder: { approval: 'never' } } };
const TWO_TURNS: Partial<ModelResponse>[] = [
  { toolCalls: [BOOK, BID], finishReason: 'tool_calls' },
  { text: 'Placed order 1 for alice.' },
];

describe('replayRun', () => {
  it('a stricter policy: the call needs a person, is rejected, and nothing reaches the venue', async () => {
    const { original, venue: first } = await recordRun({ policy: ALLOW_ALL, turns: TWO_TURNS });
    assert.equal(original.run.status, 'completed');
    assert.deepEqual(first.received, ['getOrderBook', 'placeOrder']);
    const { toolgate, venue } = await newConfig({ policy: { tools: { placeOrder: { approval: 'required' } } } });
    const { diff, replay } = await replayRun({ original, toolgate });
    assert.deepEqual(venue.received, []);
    assert.equal(diff.of, original.run.id);
    assert.deepEqual(
      diff.calls.map((c) => [c.kind, c.before?.name, c.changes]),
      [
        ['same', 'getOrderBook', []],
        ['changed', 'placeOrder', ['decision: allowed → approval_required', 'outcome: executed → not_run']],
      ],
    );
    assert.deepEqual(diff.calls[1]?.after?.arguments, { userId: 'alice', qty: 7000, price: 85 });
    assert.equal(diff.model, 'recorded');
    assert.equal(diff.status.after, 'completed');
    assert.equal(diff.answer.changed, false);
    assert.equal(diff.changed, true);
    const rejected = replay.events.find((e) => e.type === 'input_received');
    assert.equal(
      rejected?.type === 'input_received' && rejected.data.input.type === 'approval' && rejected.data.input.reason,
      'replay: not decided in the original',
    );
    // The replay's second turn saw a rejection, not the venue's answer: it diverged there.
    assert.equal(diff.divergedAtStep, 2);
  });

  it('a looser policy: the refused call would run, with its arguments, and is not executed', async () => {
    const deny: ToolgatePolicy = { tenants: { '*': { deny: ['placeOrder'] } } };
    const { original, venue: first } = await recordRun({ policy: deny, turns: TWO_TURNS });
    assert.deepEqual(first.received, ['getOrderBook']);
    const { toolgate, venue } = await newConfig({ policy: ALLOW_ALL });
    const { diff } = await replayRun({ original, toolgate });
    assert.deepEqual(venue.received, []);
    const bid = diff.calls.find((c) => c.after?.name === 'placeOrder');
    assert.deepEqual(bid?.changes, ['decision: denied → allowed', 'outcome: not_run → would_run']);
    assert.deepEqual(bid?.after?.arguments, { userId: 'alice', qty: 7000, price: 85 });
  });
});

describe('replayRun: parser, decisions, live model, save', () => {
  it('a parser setting reads a call the original missed: the call is added; the replay ends after it', async () => {
    const written = '<tool_call>{"name": "getOrderBook", "arguments": {}}</tool_call>';
    const { original } = await recordRun({ policy: ALLOW_ALL, turns: [{ text: written }], textToolCalls: 'never' });
    assert.equal(original.run.output, written);
    const { toolgate, venue } = await newConfig({ policy: ALLOW_ALL, textToolCalls: 'auto' });
    const { diff, replay } = await replayRun({ original, toolgate });
    assert.deepEqual(venue.received, []);
    assert.deepEqual(
      diff.calls.map((c) => [c.kind, c.after?.name, c.after?.outcome]),
      [['added', 'getOrderBook', 'would_run']],
    );
    assert.deepEqual(diff.status, { before: 'completed', after: 'failed' });
    assert.equal(diff.answer.changed, true);
    assert.equal(diff.divergedAtStep, 2);
    const ended = replay.events.find((e) => e.type === 'run_failed');
    assert.equal(
      ended?.type === 'run_failed' ? ended.data.error.message : '',
      'replay ended, no recorded model answer: the original has no more model turns',
    );
  });

  it("decides a call as the original's person did, and gives it the recorded result", async () => {
    const store = new MemoryRunStore();
    const strict: ToolgatePolicy = { tools: { placeOrder: { approval: 'required' } } };
    const first = await createToolgate({
      model: model(TWO_TURNS),
      tools: [new CountingVenue()],
      store,
      policy: strict,
    });
    const waiting = await first.run({ input: 'buy for alice' });
    assert.equal(waiting.status, 'waiting_approval');
    const approval = { type: 'approval' as const, toolCallId: waiting.pendingApproval?.toolCallId ?? '' };
    const done = await first.submitInput(waiting.id, { ...approval, decision: 'approve' });
    const original = { run: done, events: await readAllEvents(store, done.id) };
    const { toolgate, venue } = await newConfig({ policy: strict });
    const { diff } = await replayRun({ original, toolgate });
    assert.deepEqual(venue.received, []);
    assert.equal(diff.changed, false, JSON.stringify(diff, null, 2));
    assert.deepEqual(
      diff.calls.map((c) => [c.kind, c.after?.decision, c.after?.outcome]),
      [
        ['same', 'allowed', 'recorded_result'],
        ['same', 'approval_required', 'recorded_result'],
      ],
    );
  });

  it('--allow-reads runs a read without a recorded result; a live model answers from the divergence', async () => {
    const deny: ToolgatePolicy = {
      tenants: { '*': { deny: ['getOrderBook'] } },
      tools: { placeOrder: { approval: 'never' } },
    };
    const { original } = await recordRun({ policy: deny, turns: TWO_TURNS });
    const venue = new CountingVenue();
    const live = model([{ text: 'The live answer.' }]);
    const toolgate = await createToolgate({ tools: [venue], policy: ALLOW_ALL, model: live });
    const { diff } = await replayRun({ original, toolgate, allowReads: true, liveModel: true });
    // The read ran for real; the write got its recorded result.
    assert.deepEqual(venue.received, ['getOrderBook']);
    assert.deepEqual(
      diff.calls.map((c) => [c.after?.name, c.after?.outcome]),
      [
        ['getOrderBook', 'read_live'],
        ['placeOrder', 'recorded_result'],
      ],
    );
    assert.equal(diff.model, 'live');
    assert.equal(diff.divergedAtStep, 2);
    assert.deepEqual(diff.answer, { before: 'Placed order 1 for alice.', after: 'The live answer.', changed: true });
  });

  it('save: stored as a new run with replay_compared before its end; the original is untouched', async () => {
    const { original, store } = await recordRun({ policy: ALLOW_ALL, turns: TWO_TURNS });
    const before = JSON.stringify([await store.getRun(original.run.id), await readAllEvents(store, original.run.id)]);
    const { toolgate } = await newConfig({ policy: { tools: { placeOrder: { approval: 'required' } } }, store });
    const { diff, replay, saved } = await replayRun({ original, toolgate, save: true });
    const after = JSON.stringify([await store.getRun(original.run.id), await readAllEvents(store, original.run.id)]);
    assert.equal(after, before);
    assert.ok(saved !== undefined);
    assert.notEqual(saved.run.id, original.run.id);
    assert.deepEqual(saved.run.metadata, { replayOf: original.run.id, replay: true });
    assert.equal(saved.run.status, replay.run.status);
    assert.equal(saved.run.output, replay.run.output);
    const types = saved.events.map((e) => e.type);
    assert.deepEqual(types.slice(-2), ['replay_compared', 'run_completed']);
    assert.equal(types.length, replay.events.length + 1);
    const compared = saved.events.at(-2);
    assert.deepEqual(compared?.type === 'replay_compared' ? compared.data : undefined, { of: original.run.id, diff });
  });
});
