import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { abortableSleep } from './abortable-sleep.ts';

describe('abortableSleep', () => {
  it('resolves after the time; rejects with the reason when aborted before or during the wait', async () => {
    await abortableSleep(1);
    const before = new AbortController();
    before.abort(new Error('gone'));
    await assert.rejects(abortableSleep(10_000, before.signal), /gone/);
    const during = new AbortController();
    const waiting = abortableSleep(10_000, during.signal);
    during.abort(new Error('stop'));
    await assert.rejects(waiting, /stop/);
  });
});
