import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from './runs.ts';

describe('newId', () => {
  it('is the prefix, an underscore and 24 hex digits', () => {
    assert.match(newId('run'), /^run_[0-9a-f]{24}$/);
    assert.match(newId('call'), /^call_[0-9a-f]{24}$/);
  });

  it('never repeats, across many refills of its random pool', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 50_000; i += 1) ids.add(newId('x'));
    assert.equal(ids.size, 50_000);
  });

  it('uses every hex digit in every position (the bytes are random, not a counter)', () => {
    const seen = Array.from({ length: 24 }, () => new Set<string>());
    for (let i = 0; i < 2_000; i += 1) {
      const digits = newId('x').slice(2);
      for (let p = 0; p < 24; p += 1) seen[p]?.add(digits.charAt(p));
    }
    for (const digits of seen) assert.equal(digits.size, 16);
  });
});
