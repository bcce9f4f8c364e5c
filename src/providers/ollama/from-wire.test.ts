import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../../core/errors.ts';
import { parseJson } from '../../core/parse-json.ts';
import { finishReasonOf, parseChatResponse } from './from-wire.ts';

const url = 'http://127.0.0.1:11434/api/chat';
const parse = (text: string, maxToolCalls?: number) =>
  parseChatResponse(parseJson(text), {
    url,
    provider: 'ollama',
    ...(maxToolCalls === undefined ? {} : { maxToolCalls }),
  });

/** A non-streamed answer with tools, as `/api/chat` with `stream: false` returns it. */
const TOOL_ANSWER =
  '{"model":"qwen2.5:7b","created_at":"2025-07-07T20:32:53.844124Z","message":{"role":"assistant","content":"",' +
  ('"tool_calls":[{"id":"call_k3b1x8zq","function":{"index":0,"name":"get_spot' +
    '_price","arguments":{"area":"DE-LU","hours":[14,15],"note":"Ünïcødé ⚡"}}},') +
  '{"function":{"index":1,"name":"list_open_orders","arguments":{}}}]},' +
  '"done_reason":"stop","done":true,"total_duration":3244883583,"load_duration":2969184542,"prompt_eval_count":169,' +
  '"prompt_eval_duration":141656333,"eval_count":18,"eval_duration":133293625}';

describe('parseChatResponse', () => {
  it(
    'reads tool calls with object arguments, keeps wire ids, ' +
      'generates missing ones; stop with calls is tool_calls',
    () => {
      const result = parse(TOOL_ANSWER);
      assert.equal(result.text, '');
      assert.equal(result.toolCalls.length, 2);
      assert.deepEqual(result.toolCalls[0], {
        id: 'call_k3b1x8zq',
        name: 'get_spot_price',
        arguments: '{"area":"DE-LU","hours":[14,15],"note":"Ünïcødé ⚡"}',
      });
      assert.equal(result.toolCalls[1]?.name, 'list_open_orders');
      assert.equal(result.toolCalls[1]?.arguments, '{}');
      assert.match(result.toolCalls[1]?.id ?? '', /^call_\w+$/);
      assert.notEqual(result.toolCalls[1]?.id, result.toolCalls[0]?.id);
      assert.equal(result.finishReason, 'tool_calls');
      assert.deepEqual(result.usage, { promptTokens: 169, completionTokens: 18, totalTokens: 187 });
      assert.equal(result.reasoning, undefined);
    },
  );

  it('passes string arguments on byte for byte (a proxy, an older server)', () => {
    const args = `{'area': "DE-LU", "hours": [14, 15,], "note": "⚡"`;
    const result = parse(
      JSON.stringify({
        message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: args } }] },
        done: true,
      }),
    );
    assert.equal(result.toolCalls[0]?.arguments, args);
  });

  it('reads text and thinking; the answer is text, the thinking is reasoning', () => {
    const result = parse(
      '{"model":"qwen3:8b","created_at":"2025-07-07T20:43:37.688511Z' +
        '","message":{"role":"assistant","content":"It is 87.4 €/MWh.",' +
        ('"thinking":"The user wants the DE-LU price; the tool said ' +
          '87.4."},"done_reason":"stop","done":true,"prompt_eval_count":61,"eval_count":468}'),
    );
    assert.equal(result.text, 'It is 87.4 €/MWh.');
    assert.equal(result.reasoning, 'The user wants the DE-LU price; the tool said 87.4.');
    assert.equal(result.finishReason, 'stop');
    assert.deepEqual(result.toolCalls, []);
  });

  it('usage: one count is enough (Ollama omits zeros); none means no usage', () => {
    assert.deepEqual(parse('{"message":{"role":"assistant","content":"x"},"done":true,"eval_count":5}').usage, {
      promptTokens: 0,
      completionTokens: 5,
      totalTokens: 5,
    });
    assert.deepEqual(parse('{"message":{"role":"assistant","content":"x"},"done":true,"prompt_eval_count":9}').usage, {
      promptTokens: 9,
      completionTokens: 0,
      totalTokens: 9,
    });
    assert.equal(parse('{"message":{"role":"assistant","content":"x"},"done":true}').usage, undefined);
  });

  it('skips a tool call without a function, and tolerates odd field types', () => {
    const result = parse(
      '{"message":{"role":"assistant","content":null,"thinking":7,"tool_call' +
        's":[{"id":"a"},{"function":{"name":3,"arguments":null}}]},"done":true}',
    );
    assert.equal(result.text, '');
    assert.equal(result.reasoning, undefined);
    assert.equal(result.toolCalls.length, 1);
    assert.equal(result.toolCalls[0]?.name, '');
    assert.equal(result.toolCalls[0]?.arguments, '');
  });

  it('a body without a message is model_error quoting it', () => {
    assert.throws(
      () => parse('{"models":[]}'),
      (e: unknown) =>
        e instanceof ToolgateError &&
        e.code === 'model_error' &&
        e.message.includes(url) &&
        e.message.includes('{"models":[]}'),
    );
    assert.throws(
      () => parse('[1]'),
      (e: unknown) => e instanceof ToolgateError && e.code === 'model_error',
    );
  });

  it('more tool calls than maxToolCalls is model_error naming providers.ollama.maxToolCalls', () => {
    assert.equal(parse(TOOL_ANSWER, 2).toolCalls.length, 2);
    assert.throws(
      () => parse(TOOL_ANSWER, 1),
      (e: unknown) =>
        e instanceof ToolgateError &&
        e.code === 'model_error' &&
        /maxToolCalls.*providers\.ollama\.maxToolCalls/.test(e.message),
    );
  });
});

describe('finishReasonOf', () => {
  it('maps done_reason, letting tool calls win over stop', () => {
    const table: [unknown, number, string][] = [
      ['stop', 0, 'stop'],
      ['stop', 2, 'tool_calls'],
      ['length', 0, 'length'],
      ['length', 1, 'length'],
      ['load', 0, 'load'],
      ['unload', 0, 'unload'],
      ['something_new', 0, 'something_new'],
      [undefined, 0, 'stop'],
      [undefined, 1, 'tool_calls'],
      ['', 1, 'tool_calls'],
      [42, 0, 'stop'],
    ];
    for (const [doneReason, calls, expected] of table)
      assert.equal(finishReasonOf(doneReason, calls), expected, `${String(doneReason)} with ${calls} calls`);
  });
});
