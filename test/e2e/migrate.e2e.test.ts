// `toolgate migrate`: runs and their logs copied from a SQLite file into
// PostgreSQL by the real CLI, then read back through the PostgreSQL store and
// served by `toolgate serve` on it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { draft, type Run, type RunEvent } from '../../src/core/index.ts';
import { openPostgresRunStore } from '../../src/store/postgres/open-postgres-run-store.ts';
import { openSqliteRunStore } from '../../src/store/sqlite/open-sqlite-run-store.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';
import { runCli, startServe } from '../support/processes.ts';

describe('toolgate migrate --from sqlite:… --to postgres://…', { skip: postgresSkip(), timeout: 120_000 }, () => {
  let dir: string;
  let sqlite: string;
  let postgres: string;
  const databases: string[] = [];
  const originals: { run: Run; events: RunEvent[] }[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-migrate-'));
    sqlite = join(dir, 'runs.db');
    postgres = await createDatabase('toolgate_migrate', databases);
    const store = await openSqliteRunStore({ path: sqlite });
    for (const [tenantId, input, finish] of [
      ['acme', 'buy 10 MW', true],
      ['globex', 'sell 5 MW', true],
      ['acme', 'still going', false],
    ] as const) {
      const run = await store.createRun({
        input,
        model: 'openai:mock',
        tenantId,
        settings: {
          maxSteps: 8,
          strategy: 'react',
          toolMode: 'native',
          parseRetries: 3,
          textToolCalls: 'auto',
          constrain: false,
          stream: true,
        } as Run['settings'] & object,
      });
      await store.append(
        run.id,
        [draft('run_status', { from: 'queued', to: 'running' }), draft('user_message', { text: input })],
        { status: 'running' },
      );
      if (finish)
        await store.append(
          run.id,
          [
            draft('run_completed', {
              output: `${input}: done`,
              usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
              steps: 1,
            }),
          ],
          { status: 'completed', output: `${input}: done`, steps: 1 },
        );
      originals.push({ run: (await store.getRun(run.id)) as Run, events: await store.readEvents(run.id) });
    }
    await store.close();
  });

  after(async () => {
    for (const name of databases) await dropDatabase(name);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('copies every run of every tenant with its whole log, as it was; a second pass copies nothing again', async () => {
    const first = await runCli(['migrate', '--from', `sqlite:${sqlite}`, '--to', postgres]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /copied 3 run\(s\) with 8 event\(s\); 0 already there; 0 failed/);
    assert.match(first.stdout, /1 copied run\(s\) had not ended/);
    assert.doesNotMatch(first.stderr + first.stdout, /password|secret/);
    const store = await openPostgresRunStore({ url: postgres });
    try {
      for (const { run, events } of originals) {
        assert.deepEqual(await store.getRun(run.id), run);
        assert.deepEqual(await store.readEvents(run.id), events);
      }
    } finally {
      await store.close();
    }
    const again = await runCli(['migrate', '--from', `sqlite:${sqlite}`, '--to', postgres]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /copied 0 run\(s\) with 0 event\(s\); 3 already there; 0 failed/);
  });

  it('a server on PostgreSQL serves the copied runs, and says which store without its password', async () => {
    const server = await startServe({ cwd: dir, args: ['--store', postgres] });
    try {
      const done = originals[0];
      const response = await fetch(`${server.url}/v1/runs/${done?.run.id ?? ''}/events?format=json`);
      assert.equal(response.status, 200);
      assert.deepEqual(((await response.json()) as { events: RunEvent[] }).events, done?.events);
      assert.match(server.output(), /store postgres:\/\//);
    } finally {
      await server.stop();
    }
  });

  it('names both stores or says how', async () => {
    const missing = await runCli(['migrate', '--from', `sqlite:${sqlite}`]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--from <store> --to <store>/);
    const unknown = await runCli(['migrate', '--from', `sqlite:${sqlite}`, '--to', 'mysql://x']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown store "mysql:\/\/x": use memory:, sqlite:<file> .* or postgres:\/\//);
  });
});
