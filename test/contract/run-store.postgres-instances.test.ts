// Two PostgresRunStore instances (two pools, as two processes would have) on one schema.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Client } from 'pg';
import { ToolgateError, draft, type RunLease } from '../../src/core/index.ts';
import { oneTo, sleep } from './run-store/harness.ts';
import { POSTGRES_TEST_URL, adminQuery, whenPostgres, withSchema } from './postgres-harness.ts';
import { eventually } from '../support/wait-until.ts';

const LONG = 60_000;
const STEP = draft('assistant_message', {
  step: 1,
  text: 'checking',
  toolCalls: [],
  finishReason: 'stop',
  latencyMs: 3,
});

await whenPostgres('PostgresRunStore: two instances on one schema', () => {
  describe('PostgresRunStore: two instances on one schema', () => {
    it('never claims a run twice when both instances call claimNext at once', () =>
      withSchema(async (open, schema) => {
        const a = await open();
        const b = await open();
        for (const i of oneTo(40))
          await a.createRun({ id: `run_${String(i).padStart(2, '0')}`, input: 'x', model: 'm' });
        const batches = await Promise.all(
          ['a1', 'a2', 'b1', 'b2'].map((owner) =>
            (owner.startsWith('a') ? a : b).claimNext({ owner, ttlMs: LONG, limit: 15 }),
          ),
        );
        const ids = batches.flat().map((lease) => lease.runId);
        assert.equal(ids.length, 40, 'every run claimed');
        assert.equal(new Set(ids).size, 40, 'no run claimed twice');
        assert.ok(batches.flat().every((lease) => lease.epoch === 1));
        const epochs = await adminQuery(`SELECT DISTINCT lease_epoch FROM "${schema}".runs`);
        assert.deepEqual(
          epochs.map((row) => Number(row['lease_epoch'])),
          [1],
        );
      }));

    it('creates one run for 20 concurrent createRunIdempotent calls with one key across both', () =>
      withSchema(async (open) => {
        const a = await open();
        const b = await open();
        const results = await Promise.all(
          oneTo(20).map((i) =>
            (i % 2 === 0 ? a : b).createRunIdempotent(
              { input: 'x', model: 'm', tenantId: 't' },
              { key: 'same', requestHash: 'h' },
            ),
          ),
        );
        assert.equal(results.filter((r) => r.created).length, 1);
        assert.equal(new Set(results.map((r) => r.run.id)).size, 1);
        assert.equal((await a.listRuns()).runs.length, 1);
        await assert.rejects(
          b.createRunIdempotent({ input: 'y', model: 'm', tenantId: 't' }, { key: 'same', requestHash: 'other' }),
          isCode('idempotency_mismatch'),
        );
      }));

    it('refuses with lease_lost, writing nothing, an append by an owner the other instance took the run from', () =>
      withSchema(async (open) => {
        const a = await open();
        const b = await open();
        const { id } = await a.createRun({ input: 'x', model: 'm', status: 'running' });
        const stale = await a.claimRun(id, { owner: 'engine-a', ttlMs: 50 });
        assert.ok(stale !== undefined);
        await sleep(80);
        const current = await b.claimRun(id, { owner: 'engine-b', ttlMs: LONG });
        assert.equal(current?.epoch, stale.epoch + 1);
        const heard: number[] = [];
        a.subscribe(id, (events) => heard.push(...events.map((e) => e.id)));
        const before = await a.getRun(id);
        await assert.rejects(
          a.append(id, [STEP], { steps: 1, status: 'completed' }, { lease: stale }),
          isCode('lease_lost'),
        );
        assert.deepEqual(await b.readEvents(id), []);
        assert.deepEqual(await b.getRun(id), before);
        assert.deepEqual(heard, []);
        assert.equal((await b.append(id, [STEP], { steps: 1 }, { lease: current as RunLease }))[0]?.id, 1);
      }));

    it('judges a lease by the database clock once the append holds the row, however long it waited for it', () =>
      withSchema(async (open, schema) => {
        const a = await open();
        const { id } = await a.createRun({ input: 'x', model: 'm', status: 'running' });
        const lease = await a.claimRun(id, { owner: 'engine-a', ttlMs: 100 });
        assert.ok(lease !== undefined);
        // Another session holds the row: the append waits past the lease's end before it can check it.
        const blocker = new Client({ connectionString: POSTGRES_TEST_URL });
        await blocker.connect();
        let appending: Promise<unknown> | undefined;
        try {
          await blocker.query('BEGIN');
          await blocker.query(`SELECT 1 FROM "${schema}".runs WHERE id = $1 FOR UPDATE`, [id]);
          appending = a.append(id, [STEP], undefined, { lease });
          appending.catch(() => undefined);
          await sleep(200);
        } finally {
          await blocker.query('COMMIT');
          await blocker.end();
        }
        await assert.rejects(appending, isCode('lease_lost'));
        assert.deepEqual(await a.readEvents(id), []);
      }));

    it('wakes a watcher on one instance for appends on the other, also after its LISTEN connection was killed', () =>
      withSchema(async (open) => {
        const applicationName = `toolgate-test-${randomBytes(4).toString('hex')}`;
        const a = await open();
        const b = await open({ applicationName });
        const { id } = await a.createRun({ input: 'x', model: 'm' });
        const woken: number[] = [];
        const unwatch = await b.watch(id, (lastEventId) => woken.push(lastEventId));

        // The payload is the run id and the sequence number, nothing else.
        const raw = new Client({ connectionString: POSTGRES_TEST_URL });
        const payloads: string[] = [];
        raw.on('notification', (message) => payloads.push(message.payload ?? ''));
        await raw.connect();
        try {
          await raw.query('LISTEN toolgate_events');
          // Payloads that do not parse are ignored.
          await raw.query("SELECT pg_notify('toolgate_events', 'garbage'), pg_notify('toolgate_events', $1)", [
            `${id}:x`,
          ]);
          const started = Date.now();
          await a.append(id, [STEP, STEP]);
          assert.equal(await eventually('the first wake-up', 1_000, () => woken.at(-1)), 2);
          assert.ok(Date.now() - started < 1_000);
          assert.deepEqual(woken, [2]);
          await eventually('the raw notification', 1_000, () => (payloads.includes(`${id}:2`) ? true : undefined));
        } finally {
          await raw.end();
        }

        const [listen] = await adminQuery(
          "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'",
          [`${applicationName}:listen`],
        );
        assert.ok(listen !== undefined, "B's LISTEN connection is visible in pg_stat_activity");
        const warnings: string[] = [];
        const onWarning = (warning: Error): void => void warnings.push(warning.message);
        process.on('warning', onWarning);
        try {
          await adminQuery('SELECT pg_terminate_backend($1)', [listen['pid']]);
          // Reconnected, it wakes every watcher once: appends may have been missed meanwhile.
          await eventually('the wake-up after reconnecting', 5_000, () => (woken.length > 1 ? true : undefined));
          assert.equal(woken[1], 2, 'woken with the last event id it read');
          await a.append(id, [STEP]);
          assert.equal(
            await eventually('a wake-up after the reconnect', 1_000, () => (woken.at(-1) === 3 ? 3 : undefined)),
            3,
          );
          assert.ok(
            warnings.some((w) => w.includes('reconnecting')),
            'the lost connection is reported',
          );
        } finally {
          process.off('warning', onWarning);
        }

        unwatch();
        const count = woken.length;
        await a.append(id, [STEP]);
        await sleep(200);
        assert.equal(woken.length, count, 'no wake-up after unwatch');
      }));

    it('does not wake a watcher for a refused append', () =>
      withSchema(async (open) => {
        const a = await open();
        const b = await open();
        const { id } = await a.createRun({ input: 'x', model: 'm', status: 'cancelled' });
        const woken: number[] = [];
        await b.watch(id, (lastEventId) => woken.push(lastEventId));
        await assert.rejects(a.append(id, [STEP]), isCode('conflict'));
        await sleep(200);
        assert.deepEqual(woken, []);
      }));
  });
});

function isCode(code: string): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError(${code}), got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  };
}
