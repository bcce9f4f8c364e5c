import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readJsonReply } from '../step/side-call.ts';
import { readVerdict, reflectionPrompt } from './reflection.ts';

const read = (text: string) => readVerdict(readJsonReply(text), text);

describe('reflection verdicts', () => {
  it('reads the JSON verdict and reason', () => {
    assert.deepEqual(read('{"verdict": "replan", "reason": "wrong tool"}'), {
      verdict: 'replan',
      reason: 'wrong tool',
    });
    assert.deepEqual(read('```json\n{"verdict": "give up", "reason": "no data"}\n```'), {
      verdict: 'give_up',
      reason: 'no data',
    });
    assert.deepEqual(read('{"decision": "ESCALATE"}'), { verdict: 'escalate', reason: 'the model chose escalate' });
  });

  it('falls back to the first verdict word in prose', () => {
    assert.equal(read('I think we should re-plan: the wallet tool is wrong.')?.verdict, 'replan');
    assert.equal(read('Best to continue with corrected arguments.')?.verdict, 'continue');
  });

  it('reads the confidence the prompt asks for: a share, a numeric string or a percentage, clamped to 0..1', () => {
    assert.match(reflectionPrompt('g', 'tool_failure'), /"confidence"/);
    assert.equal(read('{"verdict": "continue", "reason": "r", "confidence": 0.8}')?.confidence, 0.8);
    assert.equal(read('{"verdict": "replan", "confidence": "0.25"}')?.confidence, 0.25);
    assert.equal(read('{"verdict": "replan", "confidence": "90%"}')?.confidence, 0.9);
    assert.equal(read('{"verdict": "replan", "confidence": 250}')?.confidence, 1);
    assert.equal(read('{"verdict": "replan", "confidence": -1}')?.confidence, 0);
    assert.equal(read('{"verdict": "replan", "confidence": "high"}')?.confidence, undefined);
  });

  it('returns nothing for a reply without a verdict', () => {
    assert.equal(read('hmm, not sure'), undefined);
    assert.equal(read('{"verdict": "maybe"}'), undefined);
  });

  it('the prompt names the goal, the trigger and every verdict', () => {
    const prompt = reflectionPrompt('buy 5 MWh', 'empty_result');
    assert.match(prompt, /the tools returned nothing/);
    assert.match(prompt, /The goal: buy 5 MWh/);
    for (const v of ['continue', 'replan', 'give_up', 'escalate']) assert.match(prompt, new RegExp(v));
  });
});
