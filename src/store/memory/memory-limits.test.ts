import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryLimits } from './memory-limits.ts';

describe('MemoryLimits', () => {
  it('keeps at most maxStrikeKeys strike keys: forgotten ones go first, then those struck longest ago', async () => {
    const clock = { now: 0 };
    const limits = new MemoryLimits({ now: () => clock.now, maxStrikeKeys: 3 });
    await limits.addStrike({ key: 'soon-forgotten', forgetAfterMs: 10 });
    await limits.addStrike({ key: 'a', forgetAfterMs: 60_000 });
    clock.now = 20;
    await limits.addStrike({ key: 'b', forgetAfterMs: 60_000 });
    await limits.addStrike({ key: 'c', forgetAfterMs: 60_000 });
    assert.deepEqual(Object.keys(await limits.readStrikes(['a', 'b', 'c', 'soon-forgotten'])), ['a', 'b', 'c']);
    await limits.addStrike({ key: 'a', forgetAfterMs: 60_000 });
    await limits.addStrike({ key: 'd', forgetAfterMs: 60_000 });
    assert.deepEqual(
      Object.keys(await limits.readStrikes(['a', 'b', 'c', 'd'])),
      ['a', 'c', 'd'],
      'b was struck longest ago (a was struck again)',
    );
    for (let i = 0; i < 1000; i++) await limits.addStrike({ key: `rotating-${i}`, forgetAfterMs: 60_000 });
    assert.equal(
      Object.keys(await limits.readStrikes(Array.from({ length: 1000 }, (_, i) => `rotating-${i}`))).length,
      3,
    );
  });

  it('judges expiry by its clock: a slot lives for its ttl, then its place is free', async () => {
    const clock = { now: 0 };
    const limits = new MemoryLimits({ now: () => clock.now });
    assert.deepEqual(await limits.takeSlot({ id: 'a', limits: [{ key: 'k', max: 1, ttlMs: 100 }] }), { taken: true });
    clock.now = 99;
    assert.deepEqual(await limits.takeSlot({ id: 'b', limits: [{ key: 'k', max: 1, ttlMs: 100 }] }), {
      taken: false,
      key: 'k',
      live: 1,
      retryAfterMs: 1,
    });
    clock.now = 100;
    assert.deepEqual(await limits.takeSlot({ id: 'b', limits: [{ key: 'k', max: 1, ttlMs: 100 }] }), { taken: true });
  });
});
