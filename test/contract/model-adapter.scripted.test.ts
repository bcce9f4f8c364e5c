// The scripted model has no wire: each case is the script turn that plays it.
// Retries and Retry-After belong to a transport, so those cases check only
// the outcome (the error code a provider's failure becomes).
import type { ModelAdapter } from '../../src/core/index.ts';
import { createScriptedAdapter } from '../../src/providers/scripted/scripted-adapter.ts';
import type { ScriptedTurn } from '../../src/providers/scripted/script-schema.ts';
import {
  BROKEN_ARGUMENTS,
  modelAdapterContract,
  REASONING,
  TEXT,
  type ContractCase,
} from './model-adapter.contract.ts';

const usage = { promptTokens: 20, completionTokens: 12 };
const TURNS: Record<ContractCase, ScriptedTurn[]> = {
  text: [{ text: TEXT, usage }],
  'stream-text': [{ text: TEXT, usage }],
  'tool-call': [
    {
      text: 'Let me check the price.',
      toolCalls: [{ id: 'call_1', name: 'get_spot_price', arguments: '{"area":"DE-LU"}' }],
    },
  ],
  'stream-parallel-tool-calls': [
    {
      text: 'Checking both areas.',
      toolCalls: [
        { id: 'call_de', name: 'get_spot_price', arguments: '{"area":"DE-LU"}' },
        { id: 'call_fr', name: 'get_spot_price', arguments: '{"area":"FR"}' },
      ],
    },
  ],
  'stream-broken-arguments': [
    { toolCalls: [{ name: 'get_spot_price', arguments: BROKEN_ARGUMENTS }], finishReason: 'length' },
  ],
  'stream-reasoning': [{ reasoning: REASONING, text: 'I will check.' }],
  // A script cannot fail after some text: the nearest is text, then an error on the next call.
  'stream-error-midstream': [{ text: 'The spot', error: { code: 'model_unavailable', message: 'Overloaded' } }],
  'error-401': [{ error: { code: 'model_auth', message: 'invalid x-api-key; check providers.anthropic.apiKey' } }],
  'error-404-model': [{ error: { code: 'model_not_found', message: 'model "nope" not found' } }],
  'error-429': [{ error: { code: 'model_rate_limited', message: 'rate limited' } }],
  'error-5xx': [{ error: { code: 'model_unavailable', message: 'overloaded' } }],
  'stalled-stream': [{ text: TEXT, delayMs: 60_000 }],
  'stream-text-late-end': [{ text: TEXT, usage }],
  'stream-text-never-ends': [{ text: TEXT, usage }],
};

modelAdapterContract('scripted', async () => {
  const queue: ScriptedTurn[] = [];
  // Each call plays the next staged turn as the first turn of a one-turn script.
  const adapter: ModelAdapter = {
    id: 'scripted:contract',
    generate(request, options) {
      const turn = queue.shift();
      if (turn === undefined) throw new Error('nothing staged');
      return createScriptedAdapter({ script: { turns: [turn] } }).generate({ ...request, callIndex: 0 }, options);
    },
  };
  return {
    name: 'scripted',
    stage: (...names) => {
      for (const name of names) queue.push(...TURNS[name]);
    },
    adapter: () => adapter,
    requests: () => undefined,
    remaining: () => queue.length,
    expected: {
      textUsage: { promptTokens: 20, completionTokens: 12, totalTokens: 32 },
      toolCallId: 'call_1',
      parallelIds: ['call_de', 'call_fr'],
      notFoundHint: /not found/,
      streamErrorMessage: 'Overloaded',
      brokenIn: 'native',
    },
    close: async () => undefined,
  };
});
