import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ROLLOUTS_THREAD_ID, draft, type RunStore } from '../../core/index.ts';
import { openSqliteRunStore } from '../../store/sqlite/open-sqlite-run-store.ts';
import { openPostgresRunStore } from '../../store/postgres/open-postgres-run-store.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../../../test/support/postgres.ts';
import { importArchive } from './import-archive.ts';
import { pruneRuns } from './prune-runs.ts';
import { recorded, seedRuns } from './retention-fixture.ts';

const DAY = 86_400_000;
const USAGE = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const POLICY = { completedAfterDays: 5, failedAfterDays: 20, keepApprovals: true };

interface Backend {
  name: string;
  skip: string | false;
  /** The store called `name` (empty when first opened). */
  open(name: string): Promise<RunStore>;
  /** PostgreSQL gives space back only with VACUUM FULL. */
  full: boolean;
}

let dir = '';
const databases: string[] = [];
const urls = new Map<string, string>();

const BACKENDS: Backend[] = [
  {
    name: 'SQLite',
    skip: false,
    full: false,
    open: (name) => openSqliteRunStore({ path: join(dir, `${name}.db`) }),
  },
  {
    name: 'PostgreSQL',
    skip: postgresSkip(),
    full: true,
    open: async (name) => {
      let url = urls.get(name);
      if (url === undefined) {
        url = await createDatabase('toolgate_prune', databases);
        urls.set(name, url);
      }
      return openPostgresRunStore({ url, poolSize: 2 });
    },
  },
];

for (const backend of BACKENDS) {
  describe(`pruneRuns on ${backend.name}`, { skip: backend.skip }, () => {
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'toolgate-prune-'));
      urls.clear();
    });
    after(async () => {
      for (const name of databases.splice(0)) await dropDatabase(name);
      rmSync(dir, { recursive: true, force: true });
    });

    it('removes exactly what the policy says, archives it, and the archive imports back identically', async () => {
      const store = await backend.open('policy');
      const copy = await backend.open('policy-copy');
      try {
        const runs = await seedRuns(store);
        const before = new Map(
          await Promise.all(Object.values(runs).map(async (id) => [id, await recorded(store, id)] as const)),
        );
        const archive = join(dir, 'pass1.jsonl.gz');

        // Ten days on: completed runs (5 days) are due, failed ones (20 days) not yet, cancelled ones never.
        const dry = await pruneRuns({
          store,
          policy: POLICY,
          now: new Date(Date.now() + 10 * DAY),
          dryRun: true,
          archive,
        });
        assert.equal(dry.pruned, 1);
        assert.equal(existsSync(archive), false, 'a dry run writes no archive');
        assert.ok((await store.getRun(runs.completed)) !== undefined, 'a dry run deletes nothing');

        const first = await pruneRuns({
          store,
          policy: POLICY,
          now: new Date(Date.now() + 10 * DAY),
          archive,
          full: backend.full,
        });
        assert.deepEqual(
          {
            examined: first.examined,
            pruned: first.pruned,
            events: first.events,
            approvals: first.keptApprovals,
            open: first.keptOpen,
          },
          { examined: 3, pruned: 1, events: 2, approvals: 1, open: 1 },
        );
        assert.deepEqual(first.archive, { path: archive, runs: 1 });
        assert.equal(await store.getRun(runs.completed), undefined);
        for (const id of [runs.failed, runs.cancelled, runs.approved, runs.waiting])
          assert.deepEqual(await recorded(store, id), before.get(id), `${id} is untouched`);

        // Thirty days on: the failed run is due too; the approved, cancelled and waiting runs stay.
        const second = await pruneRuns({ store, policy: POLICY, now: new Date(Date.now() + 30 * DAY) });
        assert.equal(second.pruned, 1);
        assert.equal(await store.getRun(runs.failed), undefined);
        // --before: every ended run, but keepApprovals still holds, the waiting run is never pruned, nor a rollout's
        // rollback record (pruning it would start the rollout again).
        const marker = await store.createRun({
          input: 'rollback',
          model: 'none:rollouts',
          threadId: ROLLOUTS_THREAD_ID,
        });
        await store.append(marker.id, [draft('run_completed', { output: 'rolled back', usage: USAGE, steps: 0 })], {
          status: 'completed',
        });
        const third = await pruneRuns({ store, policy: { keepApprovals: true }, before: new Date(Date.now() + DAY) });
        assert.deepEqual([third.pruned, third.keptApprovals, third.keptOpen, third.keptRollouts], [1, 1, 1, 1]);
        assert.ok((await store.getRun(marker.id)) !== undefined, 'the rollback record stays');
        assert.equal(await store.getRun(runs.cancelled), undefined);
        assert.ok((await store.getRun(runs.waiting)) !== undefined);

        // The archive is the runs export JSONL, gzipped, unredacted; it imports back as it was.
        const text = gunzipSync(readFileSync(archive)).toString('utf8');
        assert.match(text.split('\n')[0] ?? '', /^\{"toolgateExport":1,"run":\{"id":"run_/);
        const imported = await importArchive({ store: copy, path: archive });
        assert.deepEqual([imported.copied, imported.events, imported.failed], [1, 2, 0]);
        assert.deepEqual(await recorded(copy, runs.completed), before.get(runs.completed));
        assert.equal((await importArchive({ store: copy, path: archive })).skipped, 1);
        await assert.rejects(
          pruneRuns({ store, before: new Date(Date.now() + DAY), archive }),
          /exists already; an archive is never overwritten/,
        );
      } finally {
        await store.close();
        await copy.close();
      }
    });

    it('gives the space back: the store is smaller after pruning big runs', async () => {
      const store = await backend.open('shrink');
      try {
        for (let i = 0; i < 40; i += 1) await seedRuns(store, 20_000);
        const report = await pruneRuns({ store, before: new Date(Date.now() + DAY), full: backend.full });
        assert.equal(report.pruned, 40 * 4);
        assert.ok(report.bytesAfter < report.bytesBefore * 0.7, `${report.bytesBefore} → ${report.bytesAfter}`);
      } finally {
        await store.close();
      }
    });

    it('imports an archive with a bad line: that run fails naming the line, the others are imported', async () => {
      const store = await backend.open('bad-line');
      try {
        const source = join(dir, 'bad.jsonl');
        const lines = (name: string): string[] => [
          JSON.stringify({
            toolgateExport: 1,
            run: {
              id: name,
              status: 'completed',
              input: 'x',
              model: 'm',
              usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
              steps: 0,
              lastEventId: 1,
              createdAt: '2025-01-01T00:00:00.000Z',
              updatedAt: '2025-01-01T00:00:00.000Z',
            },
          }),
          JSON.stringify({
            id: 1,
            runId: name,
            type: 'user_message',
            time: '2025-01-01T00:00:00.000Z',
            data: { text: 'hi' },
          }),
        ];
        writeFileSync(
          source,
          [
            ...lines('run_a'),
            ...lines('run_b').slice(0, 1),
            '{"id": 1, "runId": "run_b", "type": "nope"}',
            ...lines('run_c'),
          ].join('\n'),
        );
        const failures: string[] = [];
        const report = await importArchive({
          store,
          path: source,
          onRun: (o) => o.kind === 'failed' && failures.push(`${o.runId}: ${o.message}`),
        });
        assert.deepEqual([report.copied, report.failed], [2, 1]);
        assert.match(failures[0] ?? '', /^run_b: .*bad\.jsonl, line 4: not a run event \(unknown event type "nope"\)/);
        assert.equal((await store.readEvents('run_c')).length, 1);
        assert.equal(await store.getRun('run_b'), undefined);
      } finally {
        await store.close();
      }
    });
  });
}
