import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../../src/core/index.ts';
import { isIsoTime, sleep, withStore, type RunStoreFactory } from './harness.ts';

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

    it('gives each tenant its own thread of a given id: no error, no leak', () =>
      withStore(factory, async (store) => {
        const mine: Message[] = [{ role: 'user', content: 'tenant a speaking' }];
        const theirs: Message[] = [{ role: 'user', content: 'tenant b speaking' }];
        const nobodys: Message[] = [{ role: 'user', content: 'no tenant speaking' }];
        await store.appendThreadMessages('t1', mine, 'a');
        // Another tenant taking the id first must not shadow the owner's history.
        assert.equal(await store.getThread('t1', 'b'), undefined);
        assert.equal(await store.getThread('t1'), undefined);
        await store.appendThreadMessages('t1', theirs, 'b');
        await store.appendThreadMessages('t1', nobodys);
        await store.appendThreadMessages('t1', SECOND_TURN, 'a');

        const a = await store.getThread('t1', 'a');
        const b = await store.getThread('t1', 'b');
        const none = await store.getThread('t1');
        assert.deepEqual(a?.messages, [...mine, ...SECOND_TURN]);
        assert.deepEqual(b?.messages, theirs);
        assert.deepEqual(none?.messages, nobodys);
        assert.equal(a?.tenantId, 'a');
        assert.equal(b?.tenantId, 'b');
        assert.ok(none !== undefined && !('tenantId' in none));
        assert.ok([a, b, none].every((thread) => thread?.id === 't1'));
      }));

    it('creates the thread of a tenant that arrives second with its own creation time', () =>
      withStore(factory, async (store) => {
        await store.appendThreadMessages('t1', FIRST_TURN, 'a');
        await sleep(3);
        await store.appendThreadMessages('t1', SECOND_TURN, 'b');
        const a = await store.getThread('t1', 'a');
        const b = await store.getThread('t1', 'b');
        assert.ok(a !== undefined && b !== undefined);
        assert.ok(b.createdAt > a.createdAt, "b started its own thread, it did not join a's");
        assert.equal(a.updatedAt, a.createdAt, "b's append must not touch a's thread");
      }));

    it('keeps threads of different ids apart within and across tenants', () =>
      withStore(factory, async (store) => {
        await store.appendThreadMessages('th2', FIRST_TURN);
        assert.equal(await store.getThread('th2', 'a'), undefined);
        await store.appendThreadMessages('th3', FIRST_TURN, 'a');
        assert.equal(await store.getThread('th3'), undefined);
        assert.equal(await store.getThread('th3', 'b'), undefined);
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
