import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addUsage, ZERO_USAGE } from './usage.ts';

describe('addUsage', () => {
  it('keeps reported usage free of an estimated mark', () => {
    assert.deepEqual(addUsage({ ...ZERO_USAGE }, { promptTokens: 10, completionTokens: 2, totalTokens: 12 }), {
      promptTokens: 10,
      completionTokens: 2,
      totalTokens: 12,
    });
  });

  it('marks a total estimated once any part of it was, and leaves the per-call estimatedOnly out of it', () => {
    const reported = { promptTokens: 10, completionTokens: 2, totalTokens: 12 };
    const partly = {
      promptTokens: 30,
      completionTokens: 5,
      totalTokens: 35,
      estimated: true as const,
      estimatedOnly: 'completionTokens' as const,
    };
    const total = addUsage(addUsage(reported, partly), reported);
    assert.deepEqual(total, { promptTokens: 50, completionTokens: 9, totalTokens: 59, estimated: true });
  });
});
