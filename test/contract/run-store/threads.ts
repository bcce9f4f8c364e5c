import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../../src/core/index.ts';
import { isIsoTime, sleep, toolgateError, withStore, type RunStoreFactory } from './harness.ts';

const FIRST_TURN: Message[] = [
  { role: 'system', content: 'You trade power.' },
  { role: 'user', content: 'Buy 10 MW für morgen 🌅' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'place_order', arguments: '{"volumeMw":10}' }] },
];
const SECOND_TURN: Message[] = [
  { role: 'tool', toolCallId: 'call_1', name: 'place_order', content: '{"orderId":"O-1","status":"accepted"}' },
  { role: 'assistant', content: 'Order O-1 is accepted.' },
];

export function threadsContract(factory: RunStoreFactory): void {
  describe('threads', () => {
    it('getThread of an unknown thread is undefined', () =>
      withStore(factory, async (store) => {
        assert.equal(await store.getThread('thread_missing'), undefined);
        assert.equal(await store.getThread('thread_missing', 'a'), undefined);
      }));

    it('creates a thread on first use and keeps messages in order across appends', () =>
      withStore(factory, async (store) => {
        await store.appendThreadMessages('th1', FIRST_TURN, 'a');
        const created = await store.getThread('th1', 'a');
        assert.ok(created !== undefined);
        assert.equal(created.id, 'th1');
        assert.equal(created.tenantId, 'a');
        assert.deepEqual(created.messages, FIRST_TURN);
        assert.ok(isIsoTime(created.createdAt) && isIsoTime(created.updatedAt));

        await sleep(3);
        await store.appendThreadMessages('th1', SECOND_TURN, 'a');
        const thread = await store.getThread('th1', 'a');
        assert.deepEqual(thread?.messages, [...FIRST_TURN, ...SECOND_TURN]);
        assert.equal(thread?.createdAt, created.createdAt);
        assert.ok(thread !== undefined && thread.updatedAt > created.updatedAt);
      }));

    it('keeps a thread without tenant free of a tenantId', () =>
      withStore(factory, async (store) => {
        await store.appendThreadMessages('th1', FIRST_TURN);
        const thread = await store.getThread('th1');
        assert.deepEqual(thread?.messages, FIRST_TURN);
        assert.ok(thread !== undefined && !('tenantId' in thread));
      }));

    it("keeps threads apart per tenant: another tenant neither sees nor extends one", () =>
      withStore(factory, async (store) => {
        await store.appendThreadMessages('th1', FIRST_TURN, 'a');
        assert.equal(await store.getThread('th1', 'b'), undefined);
        assert.equal(await store.getThread('th1'), undefined);
        await assert.rejects(store.appendThreadMessages('th1', SECOND_TURN, 'b'), toolgateError('not_found'));
        await assert.rejects(store.appendThreadMessages('th1', SECOND_TURN), toolgateError('not_found'));
        assert.deepEqual((await store.getThread('th1', 'a'))?.messages, FIRST_TURN);

        await store.appendThreadMessages('th2', FIRST_TURN);
        assert.equal(await store.getThread('th2', 'a'), undefined);
      }));

    it('keeps the messages of different threads apart', () =>
      withStore(factory, async (store) => {
        await store.appendThreadMessages('th1', FIRST_TURN, 'a');
        await store.appendThreadMessages('th2', SECOND_TURN, 'a');
        assert.deepEqual((await store.getThread('th1', 'a'))?.messages, FIRST_TURN);
        assert.deepEqual((await store.getThread('th2', 'a'))?.messages, SECOND_TURN);
      }));
  });
}
