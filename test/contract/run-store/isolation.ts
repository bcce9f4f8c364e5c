import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  draft,
  type Message,
  type NewRun,
  type PendingApproval,
  type RunEvent,
  type RunStore,
} from '../../../src/core/index.ts';
import { newRun, toolgateError, userMessage, withStore, type RunStoreFactory } from './harness.ts';

/** Mutates every nested object it can reach: a store that handed out its own state would change. */
function scribble(value: unknown): void {
  if (Array.isArray(value)) {
    value.push('scribbled');
    value.forEach(scribble);
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const [key, inner] of Object.entries(record)) {
      if (typeof inner === 'object' && inner !== null) scribble(inner);
      else record[key] = 'scribbled';
    }
    record['extra'] = 'scribbled';
  }
}

async function seed(store: RunStore): Promise<string> {
  const { id } = await store.createRun(
    newRun({ tenantId: 'a', metadata: { list: [1, { x: 2 }] }, context: { customer: { id: 'C-1' } } }),
  );
  const pendingApproval: PendingApproval = {
    toolCallId: 'c1',
    name: 'place_order',
    arguments: { mw: 10 },
    effect: 'write',
    reason: 'policy',
    eventId: 1,
  };
  await store.append(
    id,
    [draft('tool_call', { step: 1, toolCallId: 'c1', name: 'place_order', arguments: { mw: 10, hours: [1, 2] } })],
    {
      status: 'waiting_approval',
      pendingApproval,
      usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
    },
  );
  await store.appendThreadMessages('th1', [{ role: 'user', content: 'hello' }], 'a');
  return id;
}

export function isolationContract(factory: RunStoreFactory): void {
  describe('copies and close', () => {
    it('hands out copies of runs: mutating them does not change the store', () =>
      withStore(factory, async (store) => {
        const id = await seed(store);
        const snapshot = await store.getRun(id);
        scribble(await store.getRun(id));
        scribble((await store.listRuns()).runs);
        const created = await store.createRun(newRun({ metadata: { a: { b: 1 } } }));
        const createdId = created.id;
        scribble(created);
        assert.deepEqual(await store.getRun(id), snapshot);
        assert.deepEqual((await store.getRun(createdId))?.metadata, { a: { b: 1 } });
        const idempotent = await store.createRunIdempotent(newRun({ metadata: { a: 1 } }), {
          key: 'k',
          requestHash: 'h',
        });
        const idempotentId = idempotent.run.id;
        scribble(idempotent.run);
        assert.deepEqual((await store.getRun(idempotentId))?.metadata, { a: 1 });
      }));

    it('hands out copies of events: to the caller, to readers and to subscribers', () =>
      withStore(factory, async (store) => {
        const id = await seed(store);
        const received: RunEvent[] = [];
        store.subscribe(id, (events) => received.push(...events));
        scribble(
          await store.append(id, [
            draft('tool_call', { step: 2, toolCallId: 'c2', name: 'quote', arguments: { hours: [3] } }),
          ]),
        );
        const snapshot = await store.readEvents(id);
        scribble(received);
        scribble(await store.readEvents(id));
        assert.deepEqual(await store.readEvents(id), snapshot);
        assert.deepEqual(snapshot.at(-1)?.data, {
          step: 2,
          toolCallId: 'c2',
          name: 'quote',
          arguments: { hours: [3] },
        });
      }));

    it('hands out copies of threads', () =>
      withStore(factory, async (store) => {
        await seed(store);
        scribble(await store.getThread('th1', 'a'));
        assert.deepEqual((await store.getThread('th1', 'a'))?.messages, [{ role: 'user', content: 'hello' }]);
      }));

    it('keeps its own copy of what it is given', () =>
      withStore(factory, async (store) => {
        const init: NewRun = newRun({ metadata: { list: [1] }, context: { nested: { k: 'v' } } });
        const { id } = await store.createRun(init);
        const drafts = [draft('tool_call', { step: 1, toolCallId: 'c1', name: 'quote', arguments: { hours: [1] } })];
        const pendingApproval: PendingApproval = {
          toolCallId: 'c1',
          name: 'quote',
          arguments: { hours: [1] },
          effect: 'read',
          reason: 'policy',
          eventId: 1,
        };
        await store.append(id, drafts, { pendingApproval });
        const messages: Message[] = [{ role: 'user', content: 'hello' }];
        await store.appendThreadMessages('th1', messages);
        scribble(init);
        scribble(drafts);
        scribble(pendingApproval);
        scribble(messages);
        const run = await store.getRun(id);
        assert.deepEqual(run?.metadata, { list: [1] });
        assert.deepEqual(run?.context, { nested: { k: 'v' } });
        assert.deepEqual(run?.pendingApproval?.arguments, { hours: [1] });
        assert.deepEqual((await store.readEvents(id))[0]?.data, {
          step: 1,
          toolCallId: 'c1',
          name: 'quote',
          arguments: { hours: [1] },
        });
        assert.deepEqual((await store.getThread('th1'))?.messages, [{ role: 'user', content: 'hello' }]);
      }));

    it('rejects every operation after close with internal, and closing twice is harmless', () =>
      withStore(factory, async (store) => {
        const id = await seed(store);
        await store.close();
        await store.close();
        const operations: [string, () => Promise<unknown>][] = [
          ['createRun', () => store.createRun(newRun())],
          ['createRunIdempotent', () => store.createRunIdempotent(newRun(), { key: 'k', requestHash: 'h' })],
          ['getRun', () => store.getRun(id)],
          ['listRuns', () => store.listRuns()],
          ['append', () => store.append(id, [userMessage('late')])],
          ['readEvents', () => store.readEvents(id)],
          ['getThread', () => store.getThread('th1', 'a')],
          ['appendThreadMessages', () => store.appendThreadMessages('th1', [{ role: 'user', content: 'late' }], 'a')],
        ];
        for (const [name, operation] of operations) {
          await assert.rejects(operation(), toolgateError('internal'), `${name} after close`);
        }
        assert.throws(() => store.subscribe(id, () => {}), toolgateError('internal'));
      }));
  });
}
