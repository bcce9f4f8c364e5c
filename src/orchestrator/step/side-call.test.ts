// A strategy's side call (a plan, a critique, a route) reads the model's reply
// with the run's call formats (config parsing.formats, the chat template's), as
// the run's own turns do: a plan written as calls in such a format is a plan.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent, ToolSource, ToolSpec } from '../../core/index.ts';
import type { Policy } from '../../gate/index.ts';
import type { CallFormat } from '../../parsing/formats/call-format.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { runAgent } from '../run-agent.ts';
import type { RunAgentOptions } from '../state/run-options.ts';
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
];

function venue(): ToolSource {
  return {
    name: 'venue',
    listTools: async () => SPECS,
    callTool: async (req) => ({ ok: true, content: [{ type: 'text', text: `${req.name} ok` }] }),
    close: async () => undefined,
  };
}

const NEVER_ASK: Policy = { tools: { '*': { approval: 'never' } }, tenants: {} };

/** A format no built-in family or shape reads, as parsing.formats would give it. */
const GUILLEMET_FORMAT: CallFormat = {
  id: 'guillemets',
  origin: 'config',
  call: { begin: '«call»', end: '«end»' },
  name: { slot: 'marker', before: 'fn=', after: ';' },
  arguments: { grammar: 'key_value' },
};
const PLAN_AS_CALL = 'I will price it. «call» fn=quote; qty=3 «end»';

async function drive(
  options: Omit<RunAgentOptions, 'runId' | 'store'>,
): Promise<{ events: RunEvent[]; status: string }> {
  const store = new MemoryRunStore();
  const run = await store.createRun({ input: 'get me a quote for 3', model: 'fake:model' });
  const final = await runAgent({ ...options, runId: run.id, store });
  return { events: await store.readEvents(run.id), status: final.status };
}

function ofType<T extends RunEvent['type']>(events: readonly RunEvent[], type: T): Extract<RunEvent, { type: T }>[] {
  return events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
}

describe('side calls read replies with the run formats', () => {
  it("a plan written as a call in the run's own format is that plan", async () => {
    const model = scriptedModel([{ text: PLAN_AS_CALL }, { text: '{"final_answer": "3 cost 30."}' }]);
    const { events, status } = await drive({
      model,
      tools: venue(),
      policy: NEVER_ASK,
      strategy: 'plan',
      parseRetries: 0,
      formats: [GUILLEMET_FORMAT],
    });
    assert.equal(status, 'completed');
    const plan = ofType(events, 'assistant_message').find((e) => e.data.purpose === 'plan');
    assert.deepEqual(
      plan?.data.calls?.map((c) => [c.name, JSON.parse(c.arguments) as unknown]),
      [['quote', { qty: 3 }]],
    );
    const created = ofType(events, 'plan_created')[0]?.data;
    assert.deepEqual(
      created?.steps.map((s) => (s.kind === 'tool' ? [s.name, s.arguments] : [s.kind])),
      [['quote', { qty: 3 }]],
    );
  });

  it('without the format, the same reply is no plan (the format is what made it one)', async () => {
    const model = scriptedModel([{ text: PLAN_AS_CALL }]);
    const { events } = await drive({ model, tools: venue(), policy: NEVER_ASK, strategy: 'plan', parseRetries: 0 });
    assert.equal(ofType(events, 'plan_created').length, 0);
    const plan = ofType(events, 'assistant_message').find((e) => e.data.purpose === 'plan');
    assert.equal(plan?.data.calls, undefined);
  });
});
