import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { seedRuns } from '../app/retention/retention-fixture.ts';
import { openSqliteRunStore } from '../store/sqlite/open-sqlite-run-store.ts';
import { startServeRetention } from './serve-retention.ts';

describe('serve retention', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-serve-retention-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prunes on its timer, archives into archiveDir and logs a line with the counts', async () => {
    const store = await openSqliteRunStore({ path: join(dir, 'runs.db') });
    const lines: string[] = [];
    const logger = {
      info: (_: object, line: string) => void lines.push(line),
      warn: (line: string) => void lines.push(line),
    };
    try {
      const runs = await seedRuns(store);
      const archiveDir = join(dir, 'archives');
      const retention = startServeRetention({
        store,
        retention: { completedAfterDays: 0.000001, keepApprovals: true, archiveDir },
        // @ts-expect-error -- the two methods serve-retention calls, as pino's Logger has them
        logger,
        // Longer than the policy's 86 ms: the runs are due by the first pass.
        firstPassMs: 200,
      });
      for (let i = 0; i < 100 && lines.length === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
      await retention.stop();
      assert.match(
        lines[0] ?? '',
        /^retention: pruned 1 run\(s\) with 2 event\(s\); kept 1 not ended, 1 with approvals/,
      );
      assert.equal(await store.getRun(runs.completed), undefined);
      assert.ok((await store.getRun(runs.failed)) !== undefined, 'no failedAfterDays: failed runs stay');
      assert.match(readdirSync(archiveDir).join(','), /^runs-.*\.jsonl\.gz$/);
    } finally {
      await store.close();
    }
  });

  it('does nothing without a policy or with intervalMinutes 0', async () => {
    const store = await openSqliteRunStore({ path: ':memory:' });
    const logger = { info: () => assert.fail('no pass'), warn: () => assert.fail('no pass') };
    try {
      await seedRuns(store);
      for (const retention of [undefined, { completedAfterDays: 0.000001, intervalMinutes: 0 }]) {
        const started = startServeRetention({ store, retention, logger, firstPassMs: 1 });
        await new Promise((r) => setTimeout(r, 30));
        await started.stop();
      }
      assert.equal((await store.listRuns()).runs.length, 5);
    } finally {
      await store.close();
    }
  });
});
