import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ToolgateError,
  draft,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type ToolSource,
} from '../../core/index.ts';
import { MemoryRunStore } from '../../store/memory/memory-run-store.ts';
import { handLog } from '../../../test/support/replay-logs.ts';
import { createToolgate } from '../create-toolgate.ts';
import { readAllEvents } from './load-runs.ts';
import { REPLAY_ENDED, ReplayModel } from './replay-model.ts';

const FIRST: ModelResponse = {
  text: 'Let me look.',
  reasoning: 'the book first',
  providerData: { signature: 'abc' },
  toolCalls: [{ id: 'native_1', name: 'getOrderBook', arguments: '{"depth": 5}' }],
  finishReason: 'tool_calls',
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
};
const SECOND: ModelResponse = {
  text: 'The best ask is 90.',
  toolCalls: [],
  finishReason: 'stop',
  usage: { promptTokens: 20, completionTokens: 6, totalTokens: 26 },
};

const BOOK_SOURCE: ToolSource = {
  name: 'venue',
  listTools: async () => [
    {
      name: 'getOrderBook',
      description: 'The book.',
      inputSchema: { type: 'object', properties: { depth: { type: 'number' } } },
      annotations: { readOnlyHint: true },
      origin: { kind: 'mcp', server: 'venue', tool: 'getOrderBook' },
    },
  ],
  callTool: async () => ({ ok: true, content: [{ type: 'text', text: 'best ask 90' }] }),
  close: async () => {},
};

/** A real run with a model that records what it was asked: the requests a faithful replay sends again. */
async function recorded() {
  const requests: ModelRequest[] = [];
  const answers = [FIRST, SECOND];
  const model: ModelAdapter = {
    id: 'fake:model',
    generate: async (request) => {
      requests.push(structuredClone(request));
      const answer = answers[requests.length - 1];
      if (answer === undefined) throw new Error('no more answers');
      return answer;
    },
  };
  const store = new MemoryRunStore();
  const toolgate = await createToolgate({ model, tools: [BOOK_SOURCE], store, systemPrompt: 'You trade.' });
  const run = await toolgate.run({ input: 'what is the best ask?' });
  assert.equal(run.status, 'completed');
  return { requests, events: await readAllEvents(store, run.id) };
}

describe('ReplayModel', () => {
  it('answers the requests of the original with its turns, in order, exactly as the model wrote them', async () => {
    const { requests, events } = await recorded();
    const model = new ReplayModel({ id: 'fake:model', events, originalSystemPrompt: 'You trade.' });
    const [first, second] = requests;
    assert.ok(first !== undefined && second !== undefined);
    const streamed: string[] = [];
    assert.deepEqual(await model.generate({ ...first, stream: true }, { onTextDelta: (t) => streamed.push(t) }), FIRST);
    assert.deepEqual(streamed, ['Let me look.']);
    assert.deepEqual(await model.generate(second), SECOND);
    assert.equal(model.divergence, undefined);
    assert.equal(model.answeredLive, false);
    await assert.rejects(
      model.generate(second),
      (e: unknown) =>
        e instanceof ToolgateError && e.message === `${REPLAY_ENDED}: the original has no more model turns`,
    );
    assert.deepEqual(model.divergence, { call: 2, reason: 'the original has no more model turns' });
  });

  it("a conversation that is not the original's: without a live model, the recorded turns go on", async () => {
    const { requests, events } = await recorded();
    const [first, second] = requests;
    assert.ok(first !== undefined && second !== undefined);
    const otherResult = {
      ...second,
      messages: second.messages.map((m) => (m.role === 'tool' ? { ...m, content: 'no book' } : m)),
    };
    const model = new ReplayModel({ id: 'fake:model', events });
    await model.generate(first);
    assert.deepEqual(await model.generate(otherResult), SECOND);
    assert.equal(model.divergence?.call, 1);
    assert.match(model.divergence?.reason ?? '', /^the conversation before step 2 is not the original's/);
  });

  it('a live model is asked from the first divergence on (here a new system prompt), and only from there', async () => {
    const { requests, events } = await recorded();
    const [first, second] = requests;
    assert.ok(first !== undefined && second !== undefined);
    const asked: ModelRequest[] = [];
    const live: ModelAdapter = {
      id: 'live:model',
      generate: async (request) => {
        asked.push(request);
        return { text: 'live', toolCalls: [], finishReason: 'stop' };
      },
    };
    const same = new ReplayModel({ id: 'fake:model', events, live, originalSystemPrompt: 'You trade.' });
    assert.deepEqual(await same.generate(first), FIRST);
    assert.equal(asked.length, 0);
    const prompt = (r: ModelRequest): ModelRequest => ({
      ...r,
      messages: r.messages.map((m) => (m.role === 'system' ? { ...m, content: 'You trade carefully.' } : m)),
    });
    const model = new ReplayModel({ id: 'fake:model', events, live, originalSystemPrompt: 'You trade.' });
    assert.equal((await model.generate(prompt(first))).text, 'live');
    assert.equal((await model.generate(second)).text, 'live');
    assert.equal(asked.length, 2);
    assert.deepEqual(model.divergence, { call: 0, reason: "the system prompt is not the original's" });
    assert.equal(model.answeredLive, true);
  });

  it("answers a strategy's side calls from the recorded side calls of the same purpose, in order", async () => {
    const { events } = await handLog([
      draft('user_message', { text: 'buy' }),
      draft('assistant_message', {
        step: 1,
        text: '{"steps": []}',
        toolCalls: [],
        finishReason: 'stop',
        latencyMs: 1,
        purpose: 'plan',
      }),
      draft('assistant_message', {
        step: 2,
        text: 'Nothing to do.',
        toolCalls: [],
        finishReason: 'stop',
        latencyMs: 1,
      }),
    ]);
    const model = new ReplayModel({ id: 'fake:model', events });
    const conversation: ModelRequest = { messages: [{ role: 'user', content: 'buy' }], tools: [], stream: false };
    assert.equal(
      (await model.generate({ messages: [], tools: [], stream: false, purpose: 'plan' })).text,
      '{"steps": []}',
    );
    assert.equal((await model.generate(conversation)).text, 'Nothing to do.');
    assert.equal(model.divergence, undefined);
    await assert.rejects(
      model.generate({ messages: [], tools: [], stream: false, purpose: 'reflect' }),
      /no more reflect/,
    );
    assert.deepEqual(model.divergence, { call: 2, reason: 'the original made no more reflect calls' });
  });
});
