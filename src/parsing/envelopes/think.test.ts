import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findThinkBlocks, withoutReasoning } from './think.ts';

describe('findThinkBlocks', () => {
  it('finds closed and unclosed reasoning blocks', () => {
    assert.deepEqual(findThinkBlocks('<think>a</think> b <think>c'), [
      { start: 0, end: 16 },
      { start: 19, end: 27 },
    ]);
  });

  it('treats text before an orphan </think> as reasoning (R1 opens the block in its template)', () => {
    assert.deepEqual(findThinkBlocks('plan {"x": 1}\n</think>\nanswer'), [{ start: 0, end: 22 }]);
  });

  it('withoutReasoning keeps what the reply says, without what the model thought', () => {
    assert.equal(withoutReasoning('<think>plan</think>\n<tool_call>x</tool_call>'), '\n<tool_call>x</tool_call>');
    assert.equal(withoutReasoning('still thinking</think>answer'), 'answer', 'R1 opens the block in its template');
    assert.equal(withoutReasoning('a <think>cut off'), 'a ');
    assert.equal(withoutReasoning('no reasoning'), 'no reasoning');
  });
});
