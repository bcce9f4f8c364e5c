import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject, ParsedToolCall } from '../../core/index.ts';
import { readJsonReply } from '../step/side-call.ts';
import { MAX_PLAN_STEPS, readPlan } from './plan-shape.ts';

const reply = (text: string, calls: ParsedToolCall[] = []) => ({
  json: readJsonReply(text),
  answer: text.trim(),
  calls,
});

describe('readPlan', () => {
  it('reads steps: tool calls (tool/action/name; arguments as an object or a JSON string) and reasoning steps', () => {
    const read = readPlan(
      reply(
        JSON.stringify({
          steps: [
            { tool: 'a', arguments: { x: 1 }, why: 'first' },
            { action: 'b', arguments: '{"y": 2}' },
            { name: 'c', args: {} },
            { thought: 'think' },
            'plain words are a reasoning step',
          ],
        }),
      ),
    );
    assert.deepEqual(read, {
      ok: true,
      steps: [
        { kind: 'tool', name: 'a', input: { x: 1 }, text: 'first' },
        { kind: 'tool', name: 'b', raw: '{"y": 2}' },
        { kind: 'tool', name: 'c', input: {} },
        { kind: 'reasoning', text: 'think' },
        { kind: 'reasoning', text: 'plain words are a reasoning step' },
      ],
    });
  });

  it("reads seed 000's {actions, final_answer} and a final_answer action", () => {
    assert.deepEqual(readPlan(reply('{"actions":[{"action":"getOrderBook","arguments":{}}],"final_answer":"x"}')), {
      ok: true,
      steps: [{ kind: 'tool', name: 'getOrderBook', input: {} }],
      finalAnswer: 'x',
    });
    assert.deepEqual(readPlan(reply('{"actions":[{"action":"final_answer","arguments":{"answer":"done"}}]}')), {
      ok: true,
      steps: [],
      finalAnswer: 'done',
    });
  });

  it('finds the plan inside a code fence, prose or after a think block, and repairs sloppy JSON', () => {
    const text =
      '<think>let me plan</think>Here is my plan:\n' +
      "```json\n{'steps': [{'tool': 'a', 'arguments': {'q': 'x',},},],}\n```";
    const read = readPlan(reply(text));
    assert.equal(read.ok, true);
    assert.deepEqual(read.ok ? read.steps : [], [{ kind: 'tool', name: 'a', input: { q: 'x' } }]);
  });

  it('a bare array is the list of steps', () => {
    assert.deepEqual(readPlan(reply('Steps:\n[{"tool": "a", "arguments": {}}, {"thought": "then answer"}]')), {
      ok: true,
      steps: [
        { kind: 'tool', name: 'a', input: {} },
        { kind: 'reasoning', text: 'then answer' },
      ],
    });
  });

  it('a reply too long to be a plan is not read as JSON', () => {
    assert.equal(readJsonReply(`{"steps": [${'{"tool": "a"},'.repeat(20_000)}]}`), undefined);
  });

  it('tool calls in the reply are the steps when there is no plan object; plain text is the final answer', () => {
    const calls = [
      { id: 'plan_1_1', name: 'a', input: {} },
      { id: 'plan_1_2', name: 'b', input: { k: 1 } },
    ];
    assert.deepEqual(readPlan(reply('', calls)), {
      ok: true,
      steps: calls.map((c) => ({ kind: 'tool', name: c.name, input: c.input })),
    });
    assert.deepEqual(readPlan(reply('Paris.')), { ok: true, steps: [], finalAnswer: 'Paris.', prose: true });
  });

  it('says what is wrong with a reply that is not a usable plan', () => {
    const cases: [string, RegExp][] = [
      ['{"steps": "do it"}', /"steps" must be an array/],
      ['{"steps": [42]}', /steps\[0\] must be an object/],
      ['{"steps": [{"tool": "a", "arguments": [1]}]}', /steps\[0\]\.arguments must be an object/],
      ['{"steps": [{"why": "no tool"}]}', /steps\[0\] names no tool/],
      ['{"steps": []}', /no steps and no final_answer/],
      ['{"something": "else"}', /not a plan/],
      ['', /not a plan/],
    ];
    for (const [text, error] of cases) {
      const read = readPlan(reply(text));
      assert.equal(read.ok, false, text);
      assert.match(read.ok ? '' : read.error, error, text);
    }
    const many: JsonObject = {
      steps: Array.from({ length: MAX_PLAN_STEPS + 1 }, () => ({ tool: 'a', arguments: {} })),
    };
    const tooLong = readPlan(reply(JSON.stringify(many)));
    assert.match(tooLong.ok ? '' : tooLong.error, new RegExp(`at most ${MAX_PLAN_STEPS}`));
  });
});
