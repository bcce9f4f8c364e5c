// Tools the caller runs itself (RunSettings.clientTools): offered to the model, calls parsed, validated and
// normalised like any other, then handed back (client_tool_calls) and the run completes; never executed here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CallToolRequest,
  type Message,
  type ModelToolDefinition,
  type RunEvent,
  type ToolSource,
} from '../core/index.ts';
import { MemoryRunStore } from '../store/memory/memory-run-store.ts';
import { scriptedModel } from '../../test/support/scripted-model.ts';
import { ofType } from '../../test/support/events.ts';
import { runAgent, settingsFrom } from './run-agent.ts';

const WEATHER: ModelToolDefinition = {
  name: 'get_weather',
  description: 'The weather in a city, run by the caller',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
    required: ['city', 'days'],
    additionalProperties: false,
  },
};

/** One server-side read tool; records the calls it gets. */
function serverTools(): ToolSource & { calls: CallToolRequest[] } {
  const calls: CallToolRequest[] = [];
  return {
    name: 'fake',
    calls,
    listTools: async () => [
      {
        name: 'lookup',
        description: 'a server-side read',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
        origin: { kind: 'mcp', server: 'fake', tool: 'lookup' },
      },
    ],
    async callTool(request) {
      calls.push(request);
      return { ok: true, content: [{ type: 'text', text: 'looked up' }] };
    },
    close: async () => undefined,
  };
}

async function runWith(options: { turns: Parameters<typeof scriptedModel>[0]; history?: Message[]; input?: string }) {
  const store = new MemoryRunStore();
  const settings = {
    ...settingsFrom({}),
    clientTools: [WEATHER],
    ...(options.history ? { history: options.history } : {}),
  };
  const run = await store.createRun({ input: options.input ?? 'weather in Oslo?', model: 'fake:model', settings });
  const model = scriptedModel(options.turns);
  const tools = serverTools();
  const final = await runAgent({ runId: run.id, store, model, tools });
  return { final, events: await store.readEvents(run.id), model, tools };
}

function handed(events: RunEvent[]) {
  return ofType(events, 'client_tool_calls').map((e) => e.data);
}

describe('client tools', () => {
  it('a messy call is handed back validated and normalised, never executed, and the run completes', async () => {
    const { final, events, model, tools } = await runWith({
      turns: [
        {
          text: 'Checking.',
          toolCalls: [{ id: 'c1', name: 'get_weather', arguments: "{'city': 'Oslo', 'days': '3',}" }],
        },
      ],
    });
    assert.equal(final.status, 'completed');
    assert.equal(final.output, 'Checking.');
    const calls = handed(events)[0]?.calls ?? [];
    assert.deepEqual(
      calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      [{ name: 'get_weather', arguments: { city: 'Oslo', days: 3 } }],
    );
    // Toolgate's own call id (unique in the run), the one its log records for the turn.
    const turnCalls = ofType(events, 'assistant_message')[0]?.data.calls ?? [];
    assert.equal(calls[0]?.toolCallId, turnCalls[0]?.id);
    assert.equal(ofType(events, 'tool_call').length, 0, 'nothing was executed');
    assert.equal(ofType(events, 'tool_result').length, 0);
    assert.equal(tools.calls.length, 0);
    const offered = model.requests[0]?.tools?.map((t) => t.name);
    assert.deepEqual(offered, ['lookup', 'get_weather'], 'offered beside the server tools');
    const types = events.map((e) => e.type);
    assert.equal(types.at(-1), 'run_completed');
    assert.ok(types.indexOf('client_tool_calls') < types.indexOf('run_completed'));
  });

  it('an invalid call goes back to the model with the reason; its corrected call is handed back', async () => {
    const { final, events, model } = await runWith({
      turns: [
        { toolCalls: [{ id: 'bad', name: 'get_weather', arguments: '{"city": "Oslo"}' }] },
        { toolCalls: [{ id: 'good', name: 'get_weather', arguments: '{"city": "Oslo", "days": 2}' }] },
      ],
    });
    assert.equal(final.status, 'completed');
    const results = ofType(events, 'tool_result');
    assert.equal(results.length, 1);
    assert.equal(results[0]?.data.name, 'get_weather');
    assert.equal(results[0]?.data.ok, false);
    assert.match(JSON.stringify(model.requests[1]?.messages.at(-1)), /days/);
    assert.deepEqual(
      handed(events)[0]?.calls.map((c) => c.arguments),
      [{ city: 'Oslo', days: 2 }],
    );
  });

  it('server-side calls of the turn run first through the gate, then the client calls are handed back', async () => {
    const { final, events, tools } = await runWith({
      turns: [
        {
          toolCalls: [
            { id: 's1', name: 'lookup', arguments: '{}' },
            { id: 'c1', name: 'get_weather', arguments: '{"city": "Oslo", "days": 1}' },
          ],
        },
      ],
    });
    assert.equal(final.status, 'completed');
    assert.equal(tools.calls.length, 1);
    assert.deepEqual(
      ofType(events, 'tool_result').map((e) => e.data.name),
      ['lookup'],
    );
    assert.deepEqual(
      handed(events)[0]?.calls.map((c) => c.name),
      ['get_weather'],
    );
  });

  it('a conversation given whole (ending with tool results, empty input) adds no user message', async () => {
    const history: Message[] = [
      { role: 'user', content: 'weather in Oslo?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo","days":1}' }],
      },
      { role: 'tool', toolCallId: 'c1', name: 'get_weather', content: 'sunny' },
    ];
    const { final, model } = await runWith({ turns: [{ text: 'It is sunny in Oslo.' }], history, input: '' });
    assert.equal(final.status, 'completed');
    assert.equal(final.output, 'It is sunny in Oslo.');
    const sent = model.requests[0]?.messages ?? [];
    assert.deepEqual(
      sent.map((m) => m.role),
      ['user', 'assistant', 'tool'],
      'the history as given, and no empty user message after it',
    );
  });
});
