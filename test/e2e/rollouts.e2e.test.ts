// A rollout on real `toolgate serve` processes, on a SQLite file and on PostgreSQL: `guard.maxToolCalls: 1` for half
// of acme's threads, while every acme request needs two tool calls, so the treatment itself fails the runs. The
// treated share follows the thread (sticky), other tenants are untouched, the rollback is recorded on the
// `toolgate:rollouts` thread and logged once minRuns treated runs failed, new runs are no longer treated (after a
// restart too), and `toolgate eval --live` compares the arms from the store.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/app/open-store.ts';
import { rolloutBucket } from '../../src/app/rollouts/assign-rollouts.ts';
import { readRollbacks } from '../../src/app/rollouts/rollout-marker.ts';
import type { Run } from '../../src/core/index.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';
import { POWER_EXCHANGE_SERVER, runCli, startServe, type StartedProcess } from '../support/processes.ts';
import { pollUntil, TERMINAL } from '../support/runs-api.ts';

const ACME = 'acme-key-rollouts-123';
const GLOBEX = 'globex-key-rollouts-123';
const ROLLOUT = 'guard.maxToolCalls';

/** Two reads, then the answer: counted from the run's own messages, so a thread's history changes nothing. */
function model(request: RecordedRequest) {
  const messages = request.body.messages as { role: string }[];
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  const results = messages.slice(lastUser + 1).filter((m) => m.role === 'tool').length;
  return results < 2
    ? { toolCalls: [{ id: `read${results}`, name: 'getMarketMetrics', arguments: '{}' }] }
    : { text: 'market is calm' };
}

/** Thread ids the rollout's hash puts in the treated half, and in the control half. */
function threads(count: number): { treated: string[]; control: string[] } {
  const treated: string[] = [];
  const control: string[] = [];
  for (let i = 0; treated.length < count || control.length < count; i++) {
    const id = `thread-${i}`;
    const list = rolloutBucket(ROLLOUT, id) < 50 ? treated : control;
    if (list.length < count) list.push(id);
  }
  return { treated, control };
}

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(
    `rollouts with automatic rollback (toolgate serve on ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`,
    { timeout: 120_000, skip: kind === 'postgres' ? postgresSkip() : false },
    () => {
      let mock: MockOpenAI;
      let dir: string;
      let store: string;
      let server: StartedProcess & { url: string };
      const databases: string[] = [];

      before(async () => {
        mock = await startMockOpenAI({ handler: model });
        dir = mkdtempSync(join(tmpdir(), 'toolgate-rollouts-'));
        store = kind === 'sqlite' ? `sqlite:${join(dir, 'runs.db')}` : await createDatabase('rollouts', databases);
        writeFileSync(
          join(dir, 'toolgate.yaml'),
          `model: openai:mock
providers:
  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }
servers:
  px: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(POWER_EXCHANGE_SERVER)}] }
tenants:
  acme: { apiKeys: ["${ACME}"] }
  globex: { apiKeys: ["${GLOBEX}"] }
rollout:
  ${ROLLOUT}:
    tenants: [acme]
    percent: 50
    value: 1
    rollback: { maxFailureRate: 0.3, minRuns: 5 }
server:
  store: "${store}"
  shutdownGraceMs: 0
`,
        );
        server = await startServe({ cwd: dir });
      });
      after(async () => {
        await server?.stop();
        await mock?.close();
        for (const name of databases) await dropDatabase(name);
        rmSync(dir, { recursive: true, force: true });
      });

      async function run(key: string, threadId: string): Promise<Run> {
        const response = await fetch(`${server.url}/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ input: 'How is the market?', threadId }),
        });
        const created = (await response.json()) as Run;
        assert.equal(response.status, 201, JSON.stringify(created));
        let ended: Run | undefined;
        await pollUntil(
          async () => {
            const read = await fetch(`${server.url}/v1/runs/${created.id}`, {
              headers: { authorization: `Bearer ${key}` },
            });
            ended = (await read.json()) as Run;
            return TERMINAL.has(ended.status);
          },
          `run ${created.id} to end`,
          { everyMs: 100 },
        );
        assert.ok(ended !== undefined);
        return ended;
      }

      const armOf = (r: Run) => r.settings?.rollouts?.find((a) => a.name === ROLLOUT)?.arm;
      const rollbacks = async () => {
        const opened = await openStore(store, { cwd: dir });
        try {
          return await readRollbacks(opened);
        } finally {
          await opened.close();
        }
      };

      it('treats the share of threads, rolls back on the failures it causes, and stays rolled back', async () => {
        const { treated, control } = threads(3);
        const [t1, t2, t3] = treated;
        const [c1, c2] = control;
        assert.ok(t1 && t2 && t3 && c1 && c2);
        // Two runs on each of two treated and two control threads: four treated failures, under minRuns.
        for (let round = 0; round < 2; round++) {
          const runs: Run[] = await Promise.all([t1, t2, c1, c2].map((thread) => run(ACME, thread)));
          assert.deepEqual(runs.map(armOf), ['treated', 'treated', 'control', 'control'], `round ${round}`);
          assert.deepEqual(
            runs.map((r) => r.status),
            ['failed', 'failed', 'completed', 'completed'],
          );
          assert.deepEqual(
            runs.slice(0, 2).map((r) => [r.error?.code, r.settings?.guard?.maxToolCalls]),
            [
              ['budget_tool_calls', 1],
              ['budget_tool_calls', 1],
            ],
          );
        }
        assert.deepEqual(await rollbacks(), []);
        // Another tenant's run on a treated thread id takes no part.
        const globex = await run(GLOBEX, t1);
        assert.equal(globex.status, 'completed');
        assert.equal(globex.settings?.rollouts, undefined);

        // The fifth treated failure: minRuns reached at a failure rate of 1 > 0.3, the rollout is rolled back.
        assert.equal(armOf(await run(ACME, t3)), 'treated');
        let recorded: Awaited<ReturnType<typeof rollbacks>> = [];
        await pollUntil(async () => (recorded = await rollbacks()).length > 0, 'the rollback record');
        assert.equal(recorded.length, 1);
        const data = recorded[0]?.data;
        assert.equal(data?.rollout, ROLLOUT);
        assert.equal(data?.failureRate, 1);
        assert.equal(data?.threshold, 0.3);
        assert.deepEqual([data?.treatedRuns, data?.controlRuns, data?.controlFailureRate], [5, 4, 0]);
        await pollUntil(async () => server.output().includes(`rollout ${ROLLOUT} rolled back`), 'the log line');

        const after = await run(ACME, t1);
        assert.equal(after.status, 'completed');
        assert.equal(after.settings?.rollouts, undefined, 'a rolled-back rollout assigns nothing');
        assert.equal(after.settings?.guard?.maxToolCalls, undefined);

        // A restart reads the rollback back from the store.
        await server.stop();
        server = await startServe({ cwd: dir });
        const restarted = await run(ACME, t2);
        assert.equal(restarted.status, 'completed');
        assert.equal(restarted.settings?.rollouts, undefined);
        assert.equal((await rollbacks()).length, 1);
      });

      it('toolgate eval --live compares the treated and control runs from the store', async () => {
        const json = await runCli(['eval', '--live', '--window', '1h', '--json', '--config', 'toolgate.yaml'], {
          cwd: dir,
        });
        assert.equal(json.code, 0, json.stderr);
        const report = JSON.parse(json.stdout) as {
          rollouts: {
            name: string;
            treated: { ended: number; failed: number };
            control: { ended: number; failed: number };
            difference: { failureRate?: number };
            test?: { pValue: number };
            rolledBack?: { threshold: number };
          }[];
        };
        const [figures, ...others] = report.rollouts;
        assert.equal(others.length, 0);
        assert.equal(figures?.name, ROLLOUT);
        assert.deepEqual(figures?.treated, { ...figures?.treated, ended: 5, failed: 5 });
        assert.deepEqual(figures?.control, { ...figures?.control, ended: 4, failed: 0 });
        assert.equal(figures?.difference.failureRate, 1);
        assert.ok((figures?.test?.pValue ?? 1) < 0.01, JSON.stringify(figures?.test));
        assert.equal(figures?.rolledBack?.threshold, 0.3);

        const text = await runCli(['eval', '--live', '--rollout', ROLLOUT, '--config', 'toolgate.yaml'], { cwd: dir });
        assert.equal(text.code, 0, text.stderr);
        assert.match(text.stdout, /guard\.maxToolCalls\s+treated\s+5\s+0%\s+100%/);
        assert.match(text.stdout, /control\s+4\s+100%\s+0%/);
        assert.match(text.stdout, /difference\s+-100 pp\s+\+100 pp/);
        assert.match(text.stdout, /p-value 0\.\d{3}: .*two-proportion z-test/);
        assert.match(text.stdout, /rolled back at .*threshold 30%/);
      });
    },
  );
}
