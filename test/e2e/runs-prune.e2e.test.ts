// `toolgate runs prune` and `toolgate migrate --from archive:…` as processes, on a SQLite file and on PostgreSQL:
// the archive written before the delete brings the pruned runs back as they were.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { recorded, seedRuns, type SeededRuns } from '../../src/app/retention/retention-fixture.ts';
import type { RunStore } from '../../src/core/index.ts';
import { openPostgresRunStore } from '../../src/store/postgres/open-postgres-run-store.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';
import { runCli } from '../support/processes.ts';

let dir = '';
const databases: string[] = [];

const TARGETS = [
  { name: 'a SQLite file', skip: false as const, spec: async (name: string) => `sqlite:${join(dir, `${name}.db`)}` },
  { name: 'PostgreSQL', skip: postgresSkip(), spec: (name: string) => createDatabase(`toolgate_${name}`, databases) },
];

function open(spec: string): Promise<RunStore> {
  return spec.startsWith('sqlite:') ? openSqliteRunStore({ path: spec.slice(7) }) : openPostgresRunStore({ url: spec });
}

for (const target of TARGETS) {
  describe(`toolgate runs prune on ${target.name}`, { skip: target.skip, timeout: 120_000 }, () => {
    let store = '';
    let copy = '';
    let runs: SeededRuns;
    const originals = new Map<string, Awaited<ReturnType<typeof recorded>>>();
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'toolgate-prune-e2e-'));
      store = await target.spec('pruned');
      copy = await target.spec('restored');
      const opened = await open(store);
      try {
        runs = await seedRuns(opened);
        for (const id of Object.values(runs)) originals.set(id, await recorded(opened, id));
      } finally {
        await opened.close();
      }
    });
    after(async () => {
      for (const name of databases.splice(0)) await dropDatabase(name);
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses without a cut-off, and through a server', async () => {
      const none = await runCli(['runs', 'prune', '--store', store], { cwd: dir });
      assert.equal(none.code, 2, none.stderr);
      assert.match(none.stderr, /--before .*retention/);
      const remote = await runCli(['runs', 'prune', '--url', 'http://127.0.0.1:9', '--before', '1d'], { cwd: dir });
      assert.equal(remote.code, 2);
      assert.match(remote.stderr, /works on a store, not through a server/);
    });

    it('prunes by the config policy with an archive, and migrate --from archive brings the runs back', async () => {
      // Policy days that make every ended run due at once (0.000001 days: 86 ms, less than the CLI takes to start).
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        'retention:\n  completedAfterDays: 0.000001\n  failedAfterDays: 0.000001\n  keepApprovals: true\n',
      );
      const archive = join(dir, 'runs.jsonl.gz');
      const pruned = await runCli(['runs', 'prune', '--store', store, '--archive', archive, '--json'], { cwd: dir });
      assert.equal(pruned.code, 0, pruned.stderr);
      const report = JSON.parse(pruned.stdout) as { pruned: number; keptApprovals: number; keptOpen: number };
      assert.deepEqual([report.pruned, report.keptApprovals, report.keptOpen], [2, 1, 1]);
      assert.ok(statSync(archive).size > 0);

      const again = await runCli(['runs', 'prune', '--store', store, '--archive', archive], { cwd: dir });
      assert.equal(again.code, 2);
      assert.match(again.stderr, /exists already/);

      const restored = await runCli(['migrate', '--from', `archive:${archive}`, '--to', copy], { cwd: dir });
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stdout, /imported 2 run\(s\) with 4 event\(s\); 0 already there; 0 failed/);
      const twice = await runCli(['migrate', '--from', 'archive', archive, '--to', copy], { cwd: dir });
      assert.match(twice.stdout, /imported 0 run\(s\) with 0 event\(s\); 2 already there/);

      const [left, back] = [await open(store), await open(copy)];
      try {
        for (const id of [runs.completed, runs.failed]) {
          assert.equal(await left.getRun(id), undefined);
          assert.deepEqual(await recorded(back, id), originals.get(id));
        }
        for (const id of [runs.cancelled, runs.approved, runs.waiting])
          assert.deepEqual(await recorded(left, id), originals.get(id));
      } finally {
        await left.close();
        await back.close();
      }
      const human = await runCli(['runs', 'prune', '--store', store, '--before', '2d', '--dry-run'], { cwd: dir });
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /would prune 0 run\(s\)/);
    });
  });
}
