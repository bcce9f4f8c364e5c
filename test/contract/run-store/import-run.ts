import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { MemoryRunStore } from '../../../src/store/memory/memory-run-store.ts';
import { draft, type Run, type RunEvent, type RunStore } from '../../../src/core/index.ts';
import { newRun, toolgateError, userMessage, withStore, type RunStoreFactory } from './harness.ts';

type ImportRun = NonNullable<RunStore['importRun']>;

/** A finished run and an unfinished one, with their logs, as another store holds them. */
async function originals(): Promise<{ finished: Run; finishedLog: RunEvent[]; open: Run; openLog: RunEvent[] }> {
  const source = new MemoryRunStore();
  const finished = await source.createRun(
    newRun({
      tenantId: 'acme',
      userId: 'alice',
      threadId: 't-1',
      context: { desk: 'power' },
      dryRun: true,
      metadata: { origin: 'copy' },
    }),
  );
  await source.append(finished.id, [draft('run_status', { from: 'queued', to: 'running' }), userMessage('buy 10 MW')], {
    status: 'running',
  });
  await source.append(
    finished.id,
    [
      draft('run_completed', {
        output: 'done',
        usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
        steps: 1,
      }),
    ],
    { status: 'completed', output: 'done', steps: 1 },
  );
  const open = await source.createRun(newRun({ input: 'still going' }));
  await source.append(open.id, [draft('run_status', { from: 'queued', to: 'running' })], { status: 'running' });
  const result = {
    finished: (await source.getRun(finished.id)) as Run,
    finishedLog: await source.readEvents(finished.id),
    open: (await source.getRun(open.id)) as Run,
    openLog: await source.readEvents(open.id),
  };
  await source.close();
  return result;
}

/** The optional `importRun` (toolgate migrate): skipped for stores that leave it out. */
export function importRunContract(factory: RunStoreFactory): void {
  describe('importRun (optional)', () => {
    const importing = (title: string, test: (store: RunStore, importRun: ImportRun) => Promise<void>): void => {
      it(title, (t: TestContext) =>
        withStore(factory, async (store) => {
          if (store.importRun === undefined) {
            t.skip('this store takes no copied runs');
            return;
          }
          await test(store, store.importRun.bind(store));
        }),
      );
    };

    importing(
      'keeps a copied run and its log exactly as they were: ids, numbering, times, settings',
      async (store, importRun) => {
        const { finished, finishedLog } = await originals();
        assert.equal(await importRun(finished, finishedLog), 'imported');
        assert.deepEqual(await store.getRun(finished.id), finished);
        assert.deepEqual(await store.readEvents(finished.id), finishedLog);
        assert.deepEqual(
          (await store.listRuns({ tenantId: 'acme' })).runs.map((r) => r.id),
          [finished.id],
        );
      },
    );

    importing('a run it already has is left alone ("exists"), so a copy can run again', async (store, importRun) => {
      const { finished, finishedLog } = await originals();
      await importRun(finished, finishedLog);
      assert.equal(await importRun({ ...finished, output: 'changed' }, finishedLog.slice(0, 1)), 'exists');
      assert.equal((await store.getRun(finished.id))?.output, 'done');
      assert.equal((await store.readEvents(finished.id)).length, finishedLog.length);
    });

    importing(
      'a copied run that ended takes no more events; an unfinished one goes on from its last event and can be claimed',
      async (store, importRun) => {
        const { finished, finishedLog, open, openLog } = await originals();
        await importRun(finished, finishedLog);
        await importRun(open, openLog);
        await assert.rejects(store.append(finished.id, [userMessage('late')]), toolgateError('conflict'));
        const [event] = await store.append(open.id, [userMessage('next')]);
        assert.equal(event?.id, openLog.length + 1);
        const leases = await store.claimNext({ owner: 'after-copy', ttlMs: 5_000, limit: 10 });
        assert.deepEqual(
          leases.map((l) => l.runId),
          [open.id],
        );
      },
    );
  });
}
