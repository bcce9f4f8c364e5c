// PostgresRunStore while its database is gone: one store reaches the server
// through a TCP proxy the test cuts (every connection dropped, new ones
// refused) and restores; a second store on the same schema talks to the server
// directly, as another process would. Operations fail with store_unavailable
// naming the database; LISTEN comes back with backoff and wakes its watchers,
// also those that started watching while the database was gone, and also
// after a loss nobody was watching for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft } from '../../src/core/index.ts';
import { startTcpProxy, throughProxy } from '../support/tcp-proxy.ts';
import { POSTGRES_TEST_URL, whenPostgres, withSchema } from './postgres-harness.ts';
import { eventually } from '../support/wait-until.ts';

const STEP = draft('assistant_message', {
  step: 1,
  text: 'checking',
  toolCalls: [],
  finishReason: 'stop',
  latencyMs: 3,
});

async function withProxy(
  work: (url: string, proxy: Awaited<ReturnType<typeof startTcpProxy>>) => Promise<void>,
): Promise<void> {
  const target = new URL(POSTGRES_TEST_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  try {
    await work(throughProxy(POSTGRES_TEST_URL, proxy), proxy);
  } finally {
    await proxy.close();
  }
}

await whenPostgres('PostgresRunStore: the database unreachable for a while', () => {
  describe('PostgresRunStore: the database unreachable for a while', () => {
    it('fails with store_unavailable naming the database, and works again once it is back', () =>
      withProxy((url, proxy) =>
        withSchema(async (open) => {
          const store = await open({ url });
          const { id } = await store.createRun({ input: 'x', model: 'm' });
          await proxy.cut();
          await assert.rejects(store.append(id, [STEP]), (error: unknown) => {
            assert.ok(error instanceof ToolgateError);
            assert.equal(error.code, 'store_unavailable', error.message);
            // A pooled connection that was cut, or a new one that is refused: either way what to check.
            const server = `127\\.0\\.0\\.1:${proxy.port}`;
            assert.match(
              error.message,
              new RegExp(
                `^PostgreSQL store postgres://\\S+@${server}/\\S+ ` +
                  `\\(schema \\S+\\): could not append events to run ${id}: ` +
                  (`(.*ECONNREFUSED.*; nothing accepts connections at ${server}: check that PostgreSQL is ` +
                    (`running there|Connection terminated unexpectedly; the connection ` +
                      `to ${server} was lost: check that PostgreSQL is up and reachable)`)),
              ),
            );
            return true;
          });
          await assert.rejects(
            store.getRun(id),
            (error: unknown) => error instanceof ToolgateError && error.code === 'store_unavailable',
          );
          await proxy.restore();
          assert.equal((await store.append(id, [STEP]))[0]?.id, 1, 'nothing of the failed append was kept');
        }),
      ));

    it(
      'reads on pooled connections the server dropped while ' +
        'they sat idle are asked again on new ones; a write is not',
      () =>
        withProxy((url, proxy) =>
          withSchema(async (open) => {
            const poolSize = 3;
            const store = await open({ url, poolSize });
            const { id } = await store.createRun({ input: 'x', model: 'm' });
            await store.append(id, [STEP]);
            // Every pooled connection open and idle: reads at once, each holding its connection for a moment.
            const opened = proxy.accepted();
            await Promise.all(Array.from({ length: poolSize }, () => store.listRuns({ limit: 1 })));
            const before = proxy.accepted();
            assert.ok(before > opened, 'the reads opened pooled connections');

            proxy.dropOnNextWrite();
            assert.equal((await store.getRun(id))?.id, id, 'getRun');
            proxy.dropOnNextWrite();
            assert.deepEqual(
              (await store.listRuns()).runs.map((r) => r.id),
              [id],
              'listRuns',
            );
            proxy.dropOnNextWrite();
            assert.deepEqual(
              (await store.readEvents(id)).map((e) => e.id),
              [1],
              'readEvents',
            );
            assert.ok(proxy.accepted() > before, 'the reads went on new connections');

            // A write is not sent twice: it may have landed before its connection broke.
            proxy.dropOnNextWrite();
            await assert.rejects(
              store.createRun({ input: 'y', model: 'm' }),
              (error: unknown) => error instanceof ToolgateError && error.code === 'store_unavailable',
            );
          }),
        ),
    );

    it(
      'a watch made while the database is gone is kept and woken ' +
        'once LISTEN is back; appends made meanwhile are not lost to it',
      () =>
        withProxy((url, proxy) =>
          withSchema(async (open) => {
            const watched = await open({ url });
            const direct = await open();
            const { id } = await direct.createRun({ input: 'x', model: 'm' });
            const warnings: string[] = [];
            const onWarning = (warning: Error): void => void warnings.push(warning.message);
            process.on('warning', onWarning);
            try {
              await proxy.cut();
              const woken: number[] = [];
              // Before: rejected, and the watcher was dropped; nothing would ever wake it.
              const unwatch = await watched.watch(id, (lastEventId) => woken.push(lastEventId));
              await direct.append(id, [STEP, STEP]);
              await proxy.restore();
              assert.equal(
                await eventually('the wake-up after LISTEN came back', 10_000, () => woken.at(-1)),
                2,
                'woken with the last event id',
              );
              await direct.append(id, [STEP]);
              assert.equal(
                await eventually('a notification after the reconnect', 2_000, () =>
                  woken.at(-1) === 3 ? 3 : undefined,
                ),
                3,
              );
              assert.ok(
                warnings.some((w) =>
                  /PostgreSQL store .*could not listen for appends.*listening again with backoff/.test(w),
                ),
                warnings.join(' | '),
              );
              unwatch();
            } finally {
              process.off('warning', onWarning);
            }
          }),
        ),
    );

    it('LISTEN lost while nobody watched: the next watch listens again and hears appends', () =>
      withProxy((url, proxy) =>
        withSchema(async (open) => {
          const watched = await open({ url });
          const direct = await open();
          const { id } = await direct.createRun({ input: 'x', model: 'm' });
          (await watched.watch(id, () => undefined))();
          await proxy.cut();
          await proxy.restore();
          const woken: number[] = [];
          await watched.watch(id, (lastEventId) => woken.push(lastEventId));
          await direct.append(id, [STEP]);
          assert.equal(await eventually('the notification', 2_000, () => woken.at(-1)), 1);
        }),
      ));
  });
});
