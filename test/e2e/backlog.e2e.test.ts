// A restart drains its backlog at once. The store holds a dozen queued runs
// nobody drives (what a process that crashed with a full queue leaves behind:
// written here with the store API); `toolgate serve` starts on it with two
// slots and a long lease. Each
// slot that frees claims the next queued run from the store at once, so the
// backlog drains in about runs / slots × run time — not two runs per sweep,
// which comes every half lease (here 30 s). Real processes and stores (a SQLite
// file, a PostgreSQL database); the model is the mock OpenAI server.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/app/open-store.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { createDatabase, dropDatabase, postgresSkip } from '../support/postgres.ts';
import { startServe, stopProcess } from '../support/processes.ts';
import { assertWellFormedLog, getRun, pollUntil, readEvents } from '../support/runs-api.ts';

const JOBS = 12;
const SLOTS = 2;
const ANSWER_MS = 300;
/** Half of it is the sweep interval: the old way, the backlog waited that long per two runs. */
const LEASE_MS = 60_000;

function promptOf(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const prompt = messages.find((m) => m.role === 'user')?.content;
  return typeof prompt === 'string' ? prompt : '';
}

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(
    `a restart with a backlog of queued runs in ${kind === 'sqlite' ? 'a SQLite file' : 'PostgreSQL'}`,
    { timeout: 120_000, skip: kind === 'postgres' ? postgresSkip() : false },
    () => {
      let mock: MockOpenAI;
      const dirs: string[] = [];
      const databases: string[] = [];
      const children: ChildProcess[] = [];

      before(async () => {
        mock = await startMockOpenAI({
          handler: (request) => ({ delayMs: ANSWER_MS, then: { text: `done: ${promptOf(request)}` } }),
        });
      });
      after(async () => {
        await Promise.allSettled(children.map((child) => stopProcess(child)));
        await mock?.close();
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
        for (const name of databases) await dropDatabase(name);
      });

      it(
        `drains at once: ${JOBS} runs on ${SLOTS} slots finish in about ` +
          `${JOBS / SLOTS} × the run time, not one sweep (half a lease) per ${SLOTS} runs`,
        async () => {
          const dir = mkdtempSync(join(tmpdir(), `toolgate-backlog-${kind}-`));
          dirs.push(dir);
          writeFileSync(
            join(dir, 'toolgate.yaml'),
            `model: openai:mock
providers:
  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }
server:
  leaseMs: ${LEASE_MS}
  shutdownGraceMs: 0
`,
          );
          const store =
            kind === 'sqlite' ? `sqlite:${join(dir, 'runs.db')}` : await createDatabase('toolgate_backlog', databases);
          const track = (child: ChildProcess): void => void children.push(child);

          // The backlog: queued runs without an owner, oldest first.
          const backlog = await openStore(store);
          const jobs: string[] = [];
          try {
            for (let i = 1; i <= JOBS; i++)
              jobs.push((await backlog.createRun({ input: `job ${i}`, model: 'openai:mock' })).id);
          } finally {
            await backlog.close();
          }

          const serve = await startServe({
            cwd: dir,
            args: ['--store', store, '--concurrency', String(SLOTS)],
            onSpawn: track,
          });
          const started = Date.now();
          await pollUntil(
            async () =>
              (await Promise.all(jobs.map((id) => getRun(serve.url, id)))).every((run) => run.status === 'completed'),
            'every job to complete',
            {
              timeoutMs: 20_000,
            },
          );
          const tookMs = Date.now() - started;
          // About 6 × 300 ms here; the old way, two runs per sweep every 30 s.
          assert.ok(tookMs < 20_000, `the backlog took ${tookMs} ms`);
          for (const id of jobs) {
            const run = await getRun(serve.url, id);
            assert.match(run.output ?? '', /^done: job \d+$/);
            const events = await readEvents(serve.url, id);
            assertWellFormedLog(id, events);
            assert.equal(events.filter((e) => e.type === 'run_started').length, 1, `${id} was started once`);
          }
          for (const id of jobs)
            assert.equal(
              mock.requests.filter((r) => promptOf(r) === `job ${jobs.indexOf(id) + 1}`).length,
              1,
              `${id}: the model was asked once`,
            );
          console.log(`backlog (${kind}): ${JOBS} runs on ${SLOTS} slots drained in ${tookMs} ms`);
        },
      );
    },
  );
}
