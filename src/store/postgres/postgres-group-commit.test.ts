import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Pool } from 'pg';
import { ToolgateError, type RunEvent } from '../../core/index.ts';
import {
  adminQuery,
  openTestStore,
  POSTGRES_TEST_URL,
  whenPostgres,
  withSchema,
} from '../../../test/contract/postgres-harness.ts';
import { PostgresConnection, type Query } from './postgres-connection.ts';
import type { GroupCommitLimits } from './postgres-group-commit.ts';
import { PostgresListener } from './postgres-listener.ts';
import { PostgresRunStore } from './postgres-run-store.ts';
import { postgresTarget } from './postgres-url.ts';

/** A connection that counts the transactions it commits, and can end its own backend after a group locked its runs. */
class CountingConnection extends PostgresConnection {
  commits = 0;
  /** When set, the next group's connection is terminated right after its runs are locked. */
  killNextGroup = false;

  override async transaction<T>(action: string, work: (query: Query) => Promise<T>): Promise<T> {
    const result = await super.transaction(action, (query) => work(this.#sabotaged(query)));
    this.commits += 1;
    return result;
  }

  #sabotaged(query: Query): Query {
    return async (sql, params) => {
      const rows = await query(sql, params);
      if (this.killNextGroup && sql.includes('FOR UPDATE')) {
        this.killNextGroup = false;
        const [row] = await query('SELECT pg_backend_pid() AS pid');
        await adminQuery('SELECT pg_terminate_backend($1)', [row?.['pid']]);
      }
      return rows;
    };
  }
}

/** A store on `schema` (migrated by a store opened first) whose connection counts commits. */
async function countingStore(
  schema: string,
  limits?: Partial<GroupCommitLimits>,
): Promise<{ store: PostgresRunStore; connection: CountingConnection }> {
  await (await openTestStore(schema)).close();
  const target = postgresTarget(POSTGRES_TEST_URL, schema);
  const naming = { label: target.label, server: target.server, password: target.password };
  const pool = new Pool({ connectionString: target.connectionString, max: 4 });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const connection = new CountingConnection({ pool, naming });
  const listener = new PostgresListener({ config: { connectionString: target.connectionString }, naming });
  const store = new PostgresRunStore({
    connection,
    listener,
    ...(limits === undefined ? {} : { groupLimits: limits }),
  });
  return { store, connection };
}

const note = (text: string): { type: 'user_message'; data: { text: string } } => ({
  type: 'user_message',
  data: { text },
});

function rejectedWith(outcome: PromiseSettledResult<unknown> | undefined, code: string): void {
  assert.equal(outcome?.status, 'rejected', `expected a rejection (${code})`);
  const reason: unknown = outcome?.status === 'rejected' ? outcome.reason : undefined;
  assert.ok(reason instanceof ToolgateError, String(reason));
  assert.equal(reason.code, code, reason.message);
}

/** The run's stored events as [seq, text], read on a connection of its own. */
async function storedTexts(schema: string, runId: string): Promise<[number, string][]> {
  const rows = await adminQuery(
    `SELECT seq, data->>'text' AS text FROM "${schema}".events WHERE run_id = $1 ORDER BY seq`,
    [runId],
  );
  return rows.map((row) => [Number(row['seq']), String(row['text'])]);
}

await whenPostgres('PostgreSQL group commit', () => {
  describe('PostgreSQL group commit', () => {
    it('commits ten appends of ten runs made together in one transaction, awaited appends in one each', () =>
      withSchema(async (_open, schema) => {
        const { store, connection } = await countingStore(schema);
        const runs = await Promise.all(
          Array.from({ length: 10 }, () => store.createRun({ input: 'x', model: 'm', status: 'running' })),
        );
        const before = connection.commits;
        const appended = await Promise.all(runs.map((run, i) => store.append(run.id, [note(`step ${i}`)])));
        assert.equal(connection.commits - before, 1, 'ten appends made together share one commit');
        for (const [i, run] of runs.entries()) {
          assert.deepEqual(await storedTexts(schema, run.id), [[1, `step ${i}`]]);
          assert.equal(appended[i]?.[0]?.runId, run.id);
          assert.equal((await store.getRun(run.id))?.lastEventId, 1);
        }
        const sequential = connection.commits;
        for (const run of runs.slice(0, 3)) await store.append(run.id, [note('again')]);
        assert.equal(connection.commits - sequential, 3);
        await store.close();
      }));

    it('refuses a bad append alone: the others of its group are committed, it writes nothing', () =>
      withSchema(async (_open, schema) => {
        const { store, connection } = await countingStore(schema);
        const make = (): Promise<{ id: string }> => store.createRun({ input: 'x', model: 'm', status: 'running' });
        const [good, ended, leased, stale, patched] = [
          await make(),
          await make(),
          await make(),
          await make(),
          await make(),
        ];
        await store.append(ended.id, [{ type: 'run_cancelled', data: { reason: 'test' } }], { status: 'cancelled' });
        const lease = await store.claimRun(leased.id, { owner: 'a', ttlMs: 60_000 });
        assert.ok(lease !== undefined);
        const before = connection.commits;
        const outcomes = await Promise.allSettled([
          store.append(good.id, [note('good')]),
          store.append('run_missing', [note('nowhere')]),
          store.append(ended.id, [note('after the end')]),
          store.append(leased.id, [note('fenced')], {}, { lease: { ...lease, epoch: lease.epoch + 1 } }),
          store.append(stale.id, [note('stale')], {}, { expectLastEventId: 41 }),
          store.append(patched.id, [note('patched')], { steps: 3, status: 'completed' }),
        ]);
        assert.equal(connection.commits - before, 1);
        assert.equal(outcomes[0]?.status, 'fulfilled');
        rejectedWith(outcomes[1], 'not_found');
        rejectedWith(outcomes[2], 'conflict');
        rejectedWith(outcomes[3], 'lease_lost');
        rejectedWith(outcomes[4], 'conflict');
        assert.equal(outcomes[5]?.status, 'fulfilled');
        assert.deepEqual(await storedTexts(schema, good.id), [[1, 'good']]);
        assert.deepEqual(await storedTexts(schema, leased.id), []);
        assert.deepEqual(await storedTexts(schema, stale.id), []);
        assert.equal((await store.getRun(ended.id))?.lastEventId, 1);
        assert.equal((await store.getRun(stale.id))?.lastEventId, 0);
        const after = await store.getRun(patched.id);
        assert.deepEqual([after?.steps, after?.status, after?.lastEventId], [3, 'completed', 1]);
        await store.close();
      }));

    it('retries each append alone when a statement of the group fails, so only the bad one is refused', () =>
      withSchema(async (_open, schema) => {
        const { store } = await countingStore(schema);
        const runs = await Promise.all(
          Array.from({ length: 4 }, () => store.createRun({ input: 'x', model: 'm', status: 'running' })),
        );
        // PostgreSQL cannot store U+0000 in text: the UPDATE of this append fails the group's transaction.
        const outcomes = await Promise.allSettled(
          runs.map((run, i) => store.append(run.id, [note(`n${i}`)], i === 2 ? { output: 'bad \u0000' } : {})),
        );
        assert.deepEqual(
          outcomes.map((outcome) => outcome.status),
          ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
        );
        rejectedWith(outcomes[2], 'internal');
        assert.match(String(outcomes[2]?.status === 'rejected' ? outcomes[2].reason : ''), /append events to run/);
        for (const [i, run] of runs.entries())
          assert.deepEqual(await storedTexts(schema, run.id), i === 2 ? [] : [[1, `n${i}`]]);
        await store.close();
      }));

    it('applies the appends of one run in call order, each in a later group, each seeing the one before', () =>
      withSchema(async (_open, schema) => {
        const { store, connection } = await countingStore(schema);
        const runs = await Promise.all(
          Array.from({ length: 5 }, () => store.createRun({ input: 'x', model: 'm', status: 'running' })),
        );
        const before = connection.commits;
        const results = await Promise.all(
          runs.flatMap((run) => [
            store.append(run.id, [note('one'), note('two')], {}, { expectLastEventId: 0 }),
            store.append(run.id, [note('three')], {}, { expectLastEventId: 2 }),
            store.append(run.id, [note('four')], { status: 'completed' }),
          ]),
        );
        assert.equal(connection.commits - before, 3, 'three appends per run: three groups of five');
        assert.deepEqual(
          results.slice(0, 3).map((events) => events.map((event) => event.id)),
          [[1, 2], [3], [4]],
        );
        for (const run of runs) {
          assert.deepEqual(await storedTexts(schema, run.id), [
            [1, 'one'],
            [2, 'two'],
            [3, 'three'],
            [4, 'four'],
          ]);
          assert.equal((await store.getRun(run.id))?.status, 'completed');
        }
        await store.close();
      }));

    it('tells subscribers after the commit and before the append resolves', () =>
      withSchema(async (_open, schema) => {
        const { store } = await countingStore(schema);
        const run = await store.createRun({ input: 'x', model: 'm', status: 'running' });
        const heard: { ids: number[]; stored: Promise<number>; resolved: boolean }[] = [];
        let resolved = false;
        store.subscribe(run.id, (events: readonly RunEvent[]) => {
          const stored = adminQuery(`SELECT count(*)::int AS n FROM "${schema}".events WHERE run_id = $1`, [run.id]);
          heard.push({ ids: events.map((e) => e.id), stored: stored.then(([row]) => Number(row?.['n'])), resolved });
        });
        const pending = store.append(run.id, [note('hello')]).then(() => (resolved = true));
        assert.equal(heard.length, 0, 'nothing is heard before the group is committed');
        await pending;
        assert.deepEqual(
          heard.map((h) => [h.ids, h.resolved]),
          [[[1], false]],
        );
        assert.equal(await heard[0]?.stored, 1, 'the event was committed when the subscriber heard it');
        await store.close();
      }));

    it('fails every append of the group, keeping none, when its connection is lost mid-transaction', () =>
      withSchema(async (_open, schema) => {
        const { store, connection } = await countingStore(schema);
        const runs = await Promise.all(
          Array.from({ length: 3 }, () => store.createRun({ input: 'x', model: 'm', status: 'running' })),
        );
        connection.killNextGroup = true;
        const outcomes = await Promise.allSettled(runs.map((run) => store.append(run.id, [note('lost')])));
        for (const [i, outcome] of outcomes.entries()) {
          rejectedWith(outcome, 'store_unavailable');
          // Each append's error names its own run, as an append alone would.
          const reason: unknown = outcome.status === 'rejected' ? outcome.reason : undefined;
          assert.match(String(reason), new RegExp(`could not append events to run ${runs[i]?.id ?? '?'}: `));
        }
        for (const run of runs) {
          assert.deepEqual(await storedTexts(schema, run.id), []);
          assert.equal((await store.getRun(run.id))?.lastEventId, 0);
        }
        // The store goes on working on another connection.
        const again = await Promise.all(runs.map((run) => store.append(run.id, [note('later')])));
        assert.deepEqual(
          again.map((events) => events[0]?.id),
          [1, 1, 1],
        );
        await store.close();
      }));

    it('commits appends still queued when the store is closed, and refuses appends after', () =>
      withSchema(async (_open, schema) => {
        const { store } = await countingStore(schema);
        const run = await store.createRun({ input: 'x', model: 'm', status: 'running' });
        const first = store.append(run.id, [note('queued 1')]);
        const second = store.append(run.id, [note('queued 2')]);
        await store.close();
        assert.equal((await first)[0]?.id, 1);
        assert.equal((await second)[0]?.id, 2);
        assert.deepEqual(await storedTexts(schema, run.id), [
          [1, 'queued 1'],
          [2, 'queued 2'],
        ]);
        await assert.rejects(store.append(run.id, [note('too late')]), /closed/);
      }));

    it('never deadlocks nor loses an event when two instances append to the same runs at once', () =>
      withSchema(async (open, schema) => {
        const a = await open();
        const b = await open();
        const runs = await Promise.all(
          Array.from({ length: 20 }, () => a.createRun({ input: 'x', model: 'm', status: 'running' })),
        );
        const rounds = 8;
        const writer = async (store: PostgresRunStore, order: readonly { id: string }[], name: string) => {
          for (let round = 0; round < rounds; round++)
            await Promise.all(order.map((run) => store.append(run.id, [note(`${name}${round}`)])));
        };
        await Promise.all([writer(a, runs, 'a'), writer(b, [...runs].reverse(), 'b')]);
        for (const run of runs) {
          const stored = await storedTexts(schema, run.id);
          assert.deepEqual(
            stored.map(([seq]) => seq),
            Array.from({ length: 2 * rounds }, (_, i) => i + 1),
          );
          const texts = stored.map(([, text]) => text);
          for (const name of ['a', 'b'])
            assert.deepEqual(
              texts.filter((text) => text.startsWith(name)),
              Array.from({ length: rounds }, (_, i) => `${name}${i}`),
            );
        }
      }));
  });
});
