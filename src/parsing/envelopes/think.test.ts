import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findThinkBlocks } from './think.ts';

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
});
