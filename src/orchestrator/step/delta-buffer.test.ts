import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventDraft, RunEvent } from '../../core/index.ts';
import { DeltaBuffer } from './delta-buffer.ts';

function recorder(): {
  appended: { step: number; text: string }[];
  append: (drafts: EventDraft[]) => Promise<RunEvent[]>;
} {
  const appended: { step: number; text: string }[] = [];
  return {
    appended,
    append: async (drafts) => {
      for (const d of drafts) appended.push(d.data as { step: number; text: string });
      return [];
    },
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('DeltaBuffer', () => {
  it('appends the first text of a step at once, and coalesces what follows until the timer or a flush', async () => {
    const { appended, append } = recorder();
    // A timer that never fires in this test: only the first text and flush() may append.
    const buffer = new DeltaBuffer({ append, flushMs: 60_000 });
    buffer.push(1, 'The');
    await settle();
    assert.deepEqual(appended, [{ step: 1, text: 'The' }], 'the first token is not held back');
    buffer.push(1, ' spot');
    buffer.push(1, ' price');
    await settle();
    assert.equal(appended.length, 1, 'later text waits to be coalesced');
    await buffer.flush();
    assert.deepEqual(appended, [
      { step: 1, text: 'The' },
      { step: 1, text: ' spot price' },
    ]);
    // A new step's first text is again sent at once; the previous step's rest goes first.
    buffer.push(2, 'Next');
    await settle();
    assert.deepEqual(appended.at(-1), { step: 2, text: 'Next' });
    await buffer.flush();
    assert.equal(appended.map((a) => a.text).join(''), 'The spot priceNext');
  });

  it('with nothing on its way, the first text goes to the store within the push, not a microtask later', async () => {
    const { appended, append } = recorder();
    const buffer = new DeltaBuffer({ append, flushMs: 60_000 });
    buffer.push(1, 'First');
    assert.deepEqual(appended, [{ step: 1, text: 'First' }], 'appended synchronously');
    // One still on its way: the next one waits for it, in order.
    let release: () => void = () => undefined;
    const slow = new DeltaBuffer({
      append: async (drafts) => {
        await new Promise<void>((resolve) => (release = resolve));
        return append(drafts);
      },
      flushMs: 60_000,
    });
    slow.push(2, 'a');
    slow.push(3, 'b');
    await settle();
    assert.equal(appended.length, 1, 'the first append of the slow store has not returned');
    release();
    await settle();
    release();
    await slow.flush();
    assert.deepEqual(appended.slice(1), [
      { step: 2, text: 'a' },
      { step: 3, text: 'b' },
    ]);
  });

  it('the timer flushes coalesced text without a flush() call', async () => {
    const { appended, append } = recorder();
    const buffer = new DeltaBuffer({ append, flushMs: 1 });
    buffer.push(1, 'a');
    buffer.push(1, 'b');
    buffer.push(1, 'c');
    for (let i = 0; i < 100 && appended.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(appended, [
      { step: 1, text: 'a' },
      { step: 1, text: 'bc' },
    ]);
  });
});
