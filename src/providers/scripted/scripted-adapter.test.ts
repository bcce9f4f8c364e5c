import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import type { Message } from '../../core/messages.ts';
import type { ModelRequest } from '../../core/ports/model-adapter.ts';
import { withEstimatedUsage } from '../shared/estimate-usage.ts';
import { createScriptedAdapter, splitWords } from './scripted-adapter.ts';
import type { ScriptedScript } from './script-schema.ts';

const script: ScriptedScript = {
  description: 'price check, then answer',
  turns: [
    { text: 'Let me look that up.', toolCalls: [{ name: 'get_price', arguments: "{'area': 'DE-LU',}" }] },
    {
      toolCalls: [{ id: 'fixed', name: 'place_order', arguments: '{"mw":5}' }],
      usage: { promptTokens: 50, completionTokens: 7 },
    },
    { text: 'Done: bought 5 MW at 87.40 €/MWh.', finishReason: 'length' },
  ],
};

function conversation(assistantTurns: number): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Buy 5 MW if the price is under 90.' }];
  for (let i = 0; i < assistantTurns; i += 1) {
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, name: 'x', arguments: '{}' }] });
    messages.push({ role: 'tool', toolCallId: `c${i}`, name: 'x', content: 'ok' });
  }
  return messages;
}

const request = (assistantTurns: number, stream = false): ModelRequest => ({
  messages: conversation(assistantTurns),
  tools: [],
  stream,
});

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof ToolgateError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

describe('scripted adapter', () => {
  it('picks the turn from the number of assistant messages, statelessly', async () => {
    const model = createScriptedAdapter({ script });
    assert.equal(model.id, 'scripted:script');
    const third = await model.generate(request(2));
    const first = await model.generate(request(0));
    const second = await model.generate(request(1));
    assert.equal(first.text, 'Let me look that up.');
    assert.equal(second.toolCalls[0]?.name, 'place_order');
    assert.equal(third.text, 'Done: bought 5 MW at 87.40 €/MWh.');
    assert.deepEqual(await model.generate(request(0)), first, 'the same point in a conversation gives the same answer');
  });

  it("picks the turn by callIndex when the request carries it (a strategy's side calls count)", async () => {
    const model = createScriptedAdapter({ script });
    // No assistant message in the conversation, but two model calls before this one.
    const third = await model.generate({ ...request(0), callIndex: 2 });
    assert.equal(third.text, 'Done: bought 5 MW at 87.40 €/MWh.');
    await assert.rejects(
      model.generate({ ...request(0), callIndex: 3 }),
      isCode('model_error', /no turn 4 .*already had 3 model calls/),
    );
  });

  it('hands raw arguments on untouched, with deterministic ids unless the script names one', async () => {
    const model = createScriptedAdapter({ script, id: 'scripted:demo.json' });
    assert.equal(model.id, 'scripted:demo.json');
    const first = await model.generate(request(0));
    assert.deepEqual(first.toolCalls, [{ id: 'call_s1_1', name: 'get_price', arguments: "{'area': 'DE-LU',}" }]);
    assert.equal((await model.generate(request(1))).toolCalls[0]?.id, 'fixed');
  });

  it('defaults the finish reason from the turn, and keeps a scripted one', async () => {
    const model = createScriptedAdapter({ script });
    assert.equal((await model.generate(request(0))).finishReason, 'tool_calls');
    assert.equal((await model.generate(request(2))).finishReason, 'length');
    const plain = createScriptedAdapter({ script: { turns: [{ text: 'hi' }] } });
    assert.equal((await plain.generate(request(0))).finishReason, 'stop');
  });

  it('uses scripted usage; a turn without one answers without usage, which toolgate then estimates', async () => {
    const model = createScriptedAdapter({ script });
    assert.deepEqual((await model.generate(request(1))).usage, {
      promptTokens: 50,
      completionTokens: 7,
      totalTokens: 57,
    });
    assert.equal((await model.generate(request(0))).usage, undefined);
    const estimated = (await withEstimatedUsage(model).generate(request(0))).usage;
    assert.ok(
      estimated !== undefined && estimated.promptTokens > 0 && estimated.completionTokens > 0,
      JSON.stringify(estimated),
    );
    assert.equal(estimated.totalTokens, estimated.promptTokens + estimated.completionTokens);
    assert.equal(estimated.estimated, true);
    assert.deepEqual((await withEstimatedUsage(model).generate(request(1))).usage, {
      promptTokens: 50,
      completionTokens: 7,
      totalTokens: 57,
    });
  });

  it('streams the text in several word chunks when asked', async () => {
    const model = createScriptedAdapter({ script });
    const deltas: string[] = [];
    const result = await model.generate(request(2, true), { onTextDelta: (t) => deltas.push(t) });
    assert.ok(deltas.length >= 4, `got ${deltas.length} chunks`);
    assert.equal(deltas.join(''), result.text);
    const quiet: string[] = [];
    await model.generate(request(2, false), { onTextDelta: (t) => quiet.push(t) });
    assert.deepEqual(quiet, []);
  });

  it('past the end of the script → model_error naming the turn and the script length', async () => {
    const model = createScriptedAdapter({ script });
    await assert.rejects(
      model.generate(request(3)),
      isCode('model_error', /^scripted model has no turn 4 \(script has 3 turns/),
    );
  });

  it('honours the signal before, during a delay and mid-stream', async () => {
    const model = createScriptedAdapter({ script: { turns: [{ text: 'one two three four five', delayMs: 10_000 }] } });
    await assert.rejects(model.generate(request(0), { signal: AbortSignal.abort() }), isCode('cancelled'));
    const waiting = new AbortController();
    const pending = model.generate(request(0), { signal: waiting.signal });
    setTimeout(() => waiting.abort(), 10);
    await assert.rejects(pending, isCode('cancelled'));

    const streaming = createScriptedAdapter({ script: { turns: [{ text: 'one two three four five' }] } });
    const controller = new AbortController();
    const deltas: string[] = [];
    const stream = streaming.generate(request(0, true), {
      signal: controller.signal,
      onTextDelta: (t) => {
        deltas.push(t);
        controller.abort();
      },
    });
    await assert.rejects(stream, isCode('cancelled'));
    assert.deepEqual(deltas, ['one ']);
  });
});

describe('splitWords', () => {
  it('splits after whitespace and concatenates back exactly', () => {
    assert.deepEqual(splitWords('a  b\nc '), ['a  ', 'b\n', 'c ']);
    assert.deepEqual(splitWords('  lead'), ['  ', 'lead']);
    assert.deepEqual(splitWords(''), []);
  });
});
