// The formats of `parsing` reach a run's model turns: a call written in a
// format the built-in lexicon does not know is read, and runs through the gate.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelAdapter, ModelRequest, ModelResponse } from '../core/index.ts';
import { defineTool } from '../tools/local/define-tool.ts';
import { createToolgate } from './create-toolgate.ts';

const MY_FORMAT = {
  id: 'bracket-calls',
  call: { begin: '[[call', end: ']]' },
  name: { slot: 'field', nameKey: 'tool', argumentsKey: 'args' },
  arguments: { grammar: 'json' },
};
const REPLY = '[[call {"tool": "lookup", "args": {"orderId": 42}} ]]';

function model(turns: Partial<ModelResponse>[]): ModelAdapter & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'fake:model',
    requests,
    async generate(request) {
      requests.push(request);
      const turn = turns[requests.length - 1] ?? { text: 'done' };
      return { text: turn.text ?? '', toolCalls: turn.toolCalls ?? [], finishReason: 'stop' };
    },
  };
}

async function runWith(parsing: { formats?: unknown[] } | undefined): Promise<{ looked: unknown[]; status: string }> {
  const looked: unknown[] = [];
  const lookup = defineTool({
    name: 'lookup',
    description: 'Finds an order.',
    inputSchema: { type: 'object', properties: { orderId: { type: 'number' } } },
    effect: 'read',
    execute: (args) => (looked.push(args), 'shipped'),
  });
  const toolgate = await createToolgate({
    model: model([{ text: REPLY }, { text: 'It shipped.' }]),
    tools: [lookup],
    ...(parsing === undefined ? {} : { parsing }),
  });
  try {
    const run = await toolgate.run({ input: 'Where is order 42?' });
    return { looked, status: run.status };
  } finally {
    await toolgate.close();
  }
}

describe('parsing.formats in a run', () => {
  it('a call in a configured format runs; without the format the same reply is only text', async () => {
    const withFormat = await runWith({ formats: [MY_FORMAT] });
    assert.equal(withFormat.status, 'completed');
    assert.deepEqual(withFormat.looked, [{ orderId: 42 }]);
    const without = await runWith(undefined);
    assert.deepEqual(without.looked, []);
  });

  it('createToolgate refuses a broken format, naming its key path', async () => {
    await assert.rejects(
      createToolgate({ parsing: { formats: [{ ...MY_FORMAT, call: { begin: '' } }] } }),
      /parsing\.formats\.0\.call/,
    );
  });
});
