// A model in native mode that writes its call as text after prose: never run
// from there; told to use the tool-calling interface (within parseRetries);
// switched to prompted mode for the rest of the run the second time, and the
// switch is in the log, so a resumed run keeps it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { CallToolRequest, ModelRequest, RunEvent, RunStore, ToolSource, ToolSpec } from '../../core/index.ts';
import type { Policy } from '../../gate/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { openSqliteRunStore } from '../../store/sqlite/open-sqlite-run-store.ts';
import { applyEvents, emptyConversation } from '../state/run-state.ts';
import { runAgent } from '../run-agent.ts';
import type { RunAgentOptions } from '../state/run-options.ts';
import { submitInput } from '../submit-input.ts';
import { CALL_WRITTEN_AS_TEXT, DEFAULT_TEXT_CALLS_BEFORE_PROMPTED, textCallFeedback } from './text-call-retry.ts';
import { scriptedModel } from '../../../test/support/scripted-model.ts';

const SCHEMA = { type: 'object', properties: { qty: { type: 'number' } } };
const SPECS: ToolSpec[] = [
  {
    name: 'quote',
    description: 'a price',
    inputSchema: SCHEMA,
    annotations: { readOnlyHint: true },
    origin: { kind: 'mcp', server: 'venue', tool: 'quote' },
  },
  {
    name: 'place',
    description: 'an order',
    inputSchema: SCHEMA,
    annotations: { readOnlyHint: false },
    origin: { kind: 'mcp', server: 'venue', tool: 'place' },
  },
];

function venue(): ToolSource & { calls: CallToolRequest[] } {
  const calls: CallToolRequest[] = [];
  return {
    name: 'venue',
    calls,
    listTools: async () => SPECS,
    callTool: async (req) => {
      calls.push(req);
      return { ok: true, content: [{ type: 'text', text: `${req.name} ok` }] };
    },
    close: async () => undefined,
  };
}

const NEVER_ASK: Policy = { tools: { '*': { approval: 'never' } }, tenants: {} };
const PROSE_CALL = 'Let me get a quote first.\n<tool_call>{"name": "quote", "arguments": {"qty": 3}}</tool_call>';
const PROMPTED_CALL = '<tool_call>{"name": "quote", "arguments": {"qty": 3}}</tool_call>';

async function drive(options: Omit<RunAgentOptions, 'runId' | 'store'> & { store?: RunStore }) {
  const store = options.store ?? new MemoryRunStore();
  const run = await store.createRun({ input: 'go', model: 'fake:model' });
  const final = await runAgent({ ...options, runId: run.id, store });
  return { store, run: final, events: await store.readEvents(run.id) };
}

function ofType<T extends RunEvent['type']>(events: readonly RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

const userTexts = (request: ModelRequest | undefined): string[] =>
  (request?.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content);

describe('a call written as text after prose, in native mode', () => {
  it('is not run: the model is told to use the tool-calling interface, naming the tool, as a parse retry', async () => {
    const tools = venue();
    const model = scriptedModel([
      { text: PROSE_CALL },
      { toolCalls: [{ id: 'c1', name: 'quote', arguments: '{"qty": 3}' }] },
      { text: 'The quote is ok.' },
    ]);
    const { run, events } = await drive({ model, tools, policy: NEVER_ASK });
    assert.equal(run.status, 'completed');
    assert.equal(tools.calls.length, 1, 'only the native call of the retry ran');
    const retry = ofType(events, 'parse_retry')[0];
    assert.equal(retry?.data.attempt, 1);
    assert.equal(retry?.data.maxAttempts, 4, 'the default parseRetries (3) bound it');
    assert.equal(retry?.data.diagnostics[0]?.code, CALL_WRITTEN_AS_TEXT);
    assert.match(retry?.data.feedback ?? '', /"quote"/);
    assert.match(retry?.data.feedback ?? '', /tool-calling interface/);
    // The feedback reached the model, after its reply without the call.
    const second = model.requests[1];
    assert.equal(userTexts(second).at(-1), retry?.data.feedback);
    assert.ok(second?.tools.length === 2, 'still native: the tools are offered');
    const firstReply = second?.messages.find((m) => m.role === 'assistant');
    assert.equal(firstReply?.content, 'Let me get a quote first.');
    const attempts = ofType(events, 'assistant_message').map((e) => [e.data.step, e.data.attempt]);
    assert.deepEqual(
      attempts.slice(0, 2),
      [
        [1, 1],
        [1, 2],
      ],
      'the retry is an attempt of the same step',
    );
    assert.equal(ofType(events, 'tool_mode_changed').length, 0);
  });

  it('counts in parseRetries: with no retry left the reply is the answer, as before, and nothing runs', async () => {
    const tools = venue();
    const { run, events } = await drive({
      model: scriptedModel([{ text: PROSE_CALL }]),
      tools,
      policy: NEVER_ASK,
      parseRetries: 0,
    });
    assert.equal(run.status, 'completed');
    assert.equal(tools.calls.length, 0);
    assert.equal(ofType(events, 'parse_retry').length, 0);
    assert.equal(run.output, 'Let me get a quote first.');
  });

  const switchTitle =
    `with textToolCalls auto, the ${DEFAULT_TEXT_CALLS_BEFORE_PROMPTED}nd time switches the run to prompted mode, ` +
    'recorded in tool_mode_changed';
  it(switchTitle, async () => {
    const tools = venue();
    const model = scriptedModel([
      { text: PROSE_CALL },
      { text: PROSE_CALL },
      { text: PROMPTED_CALL },
      { text: 'Done: quoted.' },
    ]);
    const { run, events } = await drive({ model, tools, policy: NEVER_ASK });
    assert.equal(run.status, 'completed');
    const changed = ofType(events, 'tool_mode_changed');
    assert.equal(changed.length, 1);
    assert.deepEqual(
      { ...changed[0]?.data, reason: undefined },
      { step: 1, from: 'native', to: 'prompted', cause: 'text_calls', model: 'fake:model', reason: undefined },
    );
    assert.match(changed[0]?.data.reason ?? '', /2 times/);
    const retries = ofType(events, 'parse_retry');
    assert.equal(retries.length, 2, 'each of the two replies was a retry');
    assert.match(retries[1]?.data.feedback ?? '', /system prompt/);
    // Asked again in prompted mode: no tool definitions, the format in the system prompt.
    const third = model.requests[2];
    assert.deepEqual(third?.tools, []);
    assert.match(third?.messages[0]?.role === 'system' ? third.messages[0].content : '', /quote/);
    // In prompted mode the call in the text runs (through the gate), and the mode stays for the rest of the run.
    assert.deepEqual(
      tools.calls.map((c) => [c.name, c.arguments]),
      [['quote', { qty: 3 }]],
    );
    assert.deepEqual(model.requests[3]?.tools, []);
    assert.deepEqual(
      ofType(events, 'assistant_message').map((e) => e.data.toolMode),
      ['native', 'native', 'prompted', 'prompted'],
    );
  });

  it('keeps never (text is only text) and always (the text call runs at once)', async () => {
    const never = venue();
    const n = await drive({
      model: scriptedModel([{ text: PROSE_CALL }]),
      tools: never,
      policy: NEVER_ASK,
      textToolCalls: 'never',
    });
    assert.equal(n.run.status, 'completed');
    assert.equal(never.calls.length, 0);
    assert.equal(ofType(n.events, 'parse_retry').length, 0);
    assert.equal(n.run.output, PROSE_CALL);

    const always = venue();
    const a = await drive({
      model: scriptedModel([{ text: PROSE_CALL }, { text: 'done' }]),
      tools: always,
      policy: NEVER_ASK,
      textToolCalls: 'always',
    });
    assert.equal(always.calls.length, 1);
    assert.equal(ofType(a.events, 'parse_retry').length, 0);
    assert.equal(ofType(a.events, 'tool_mode_changed').length, 0);
  });

  describe('on a SQLite file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-text-calls-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('the switch is read back from the log: a run resumed in another process goes on in prompted mode', async () => {
      const path = join(dir, 'runs.db');
      const policy: Policy = { tools: { quote: { approval: 'never' }, place: { approval: 'required' } }, tenants: {} };
      const placeInText = '<tool_call>{"name": "place", "arguments": {"qty": 1}}</tool_call>';
      const first = await openSqliteRunStore({ path });
      const model = scriptedModel([
        { text: PROSE_CALL },
        { text: 'Placing it.\n' + placeInText },
        { text: placeInText },
      ]);
      const tools = venue();
      const { run } = await drive({ store: first, model, tools, policy });
      assert.equal(run.status, 'waiting_approval', 'the prompted call of a write waits for a person: the gate applies');
      await first.close();

      const second = await openSqliteRunStore({ path });
      try {
        const events = await second.readEvents(run.id);
        const changed = ofType(events, 'tool_mode_changed')[0];
        assert.equal(changed?.data.to, 'prompted');
        // The state up to the switch, before any prompted turn: already prompted.
        const upTo = events.filter((e) => e.id <= (changed?.id ?? 0));
        assert.equal(applyEvents(emptyConversation(), upTo).toolMode, 'prompted');
        assert.equal(applyEvents(emptyConversation(), upTo).textCallsInNative, 2);
        await submitInput(second, run.id, {
          type: 'approval',
          toolCallId: run.pendingApproval?.toolCallId ?? '',
          decision: 'approve',
        });
        const later = scriptedModel([{ text: 'Placed.' }]);
        const resumed = await runAgent({ runId: run.id, store: second, model: later, tools, policy });
        assert.equal(resumed.status, 'completed');
        assert.deepEqual(
          tools.calls.map((c) => c.name),
          ['place'],
        );
        assert.deepEqual(later.requests[0]?.tools, [], 'the resumed run asks in prompted mode');
      } finally {
        await second.close();
      }
    });
  });
});

describe('textCallFeedback', () => {
  it('names the tools, says what to do, and warns on the last attempt', () => {
    const text = textCallFeedback({ names: ['quote', 'place'], attempt: 3, maxAttempts: 4, switched: false });
    assert.match(text, /a call to "quote", "place" as text/);
    assert.match(text, /tool-calling interface/);
    assert.match(text, /last attempt/);
    assert.doesNotMatch(textCallFeedback({ names: [], attempt: 1, maxAttempts: 4, switched: true }), /last attempt/);
  });
});
