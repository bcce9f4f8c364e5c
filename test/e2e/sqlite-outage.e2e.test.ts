// A SQLite file another process keeps locked: `toolgate serve` stays up, says
// what is wrong (the file, the lock, the setting to raise), runs wait in place
// instead of failing — keeping the model answers they could not store yet —
// and complete as soon as the lock is gone. The lock is real: a
// second connection on the same file holds a write transaction open. (A full
// disk and a read-only file are played on the store's own connection in
// src/app/run-manager-store.test.ts.)
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, it } from 'node:test';
import { escapeRegExp } from '../../src/core/index.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mock-openai-server.ts';
import { startServe, stopProcess } from '../support/processes.ts';
import { assertWellFormedLog, createRun, getRun, pollUntil, readEvents, readiness } from '../support/runs-api.ts';

/**
 * Long: the runs wait in place for up to a lease; one taken up again by the next sweep (half a lease later) would come
 * too late.
 */
const LEASE_MS = 30_000;

function promptOf(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const prompt = messages.find((m) => m.role === 'user')?.content;
  return typeof prompt === 'string' ? prompt : '';
}

describe('toolgate serve on a SQLite file another process keeps locked', { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  let mock: MockOpenAI | undefined;
  let blocker: DatabaseSync | undefined;

  after(async () => {
    if (blocker?.isOpen === true) blocker.close();
    await Promise.allSettled(children.map((child) => stopProcess(child)));
    await mock?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'SQLITE_BUSY: the process stays up, a request gets 503 naming the file and the ' +
      'busy timeout, runs wait with their answers and complete once the lock is released',
    async () => {
      mock = await startMockOpenAI({
        handler: (request) => ({ delayMs: 400, then: { text: `done: ${promptOf(request)}` } }),
      });
      const dir = mkdtempSync(join(tmpdir(), 'toolgate-sqlite-busy-'));
      dirs.push(dir);
      const file = join(dir, 'runs.db');
      writeFileSync(
        join(dir, 'toolgate.yaml'),
        `model: openai:mock
providers:
  openai: { baseUrl: "${mock.url}", apiKey: test, maxRetries: 0 }
server:
  leaseMs: ${LEASE_MS}
  sqliteBusyTimeoutMs: 100
  shutdownGraceMs: 0
`,
      );
      const serve = await startServe({
        cwd: dir,
        args: ['--store', `sqlite:${file}`],
        onSpawn: (child) => void children.push(child),
      });
      let exited = '';
      serve.child.once('exit', (code, signal) => (exited = `exited (${code ?? signal})`));

      const ids: string[] = [];
      for (let i = 1; i <= 3; i++) ids.push((await createRun(serve.url, `job ${i}`)).id);
      const asked = mock.requests;
      await pollUntil(async () => asked.length >= 3, 'the three runs asking the model');
      // Another process takes the write lock and keeps it: the answers arrive and cannot be written.
      blocker = new DatabaseSync(file, { timeout: 5_000 });
      blocker.exec('BEGIN IMMEDIATE');

      // Appends made together are committed together (decision 0017): the message names the run or the group.
      const waiting = (id: string): boolean =>
        serve.output().includes(`run ${id}: SQLite store ${file}: could not append events`);
      await pollUntil(async () => ids.every(waiting), 'every run to say it waits for the store', { timeoutMs: 20_000 });
      assert.match(
        serve.output(),
        new RegExp(
          `SQLite store ${escapeRegExp(file)}: could not append events( to run \\S+)?: database is locked; ` +
            (`another connection held the database lock for longer than the busy timeout \\(100 ms\\); ` +
              (`check for other processes using the file, or raise busyTimeoutMs ` +
                `\\(server\\.sqliteBusyTimeoutMs in toolgate\\.yaml\\); the run waits for the store`)),
        ),
      );
      const refused = await fetch(`${serve.url}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'job 4' }),
      });
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '1');
      const body = (await refused.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'store_unavailable');
      assert.match(
        body.error.message,
        new RegExp(
          `^SQLite store ${escapeRegExp(file)}: could not create (and claim ` +
            `)?a run: database is locked; another connection held the database lock`,
        ),
      );
      // Reads go on beside the writer (WAL): the runs are still there, not failed.
      for (const id of ids) assert.equal((await getRun(serve.url, id)).status, 'running');
      assert.equal((await readiness(serve.url)).status, 200);
      assert.equal(exited, '', 'the process stayed up');

      blocker.exec('ROLLBACK');
      blocker.close();
      const released = Date.now();
      // Written as soon as the lock is gone (the waits grow to 1 s), not by a sweep half a lease (15 s) later.
      await pollUntil(
        async () =>
          (await Promise.all(ids.map((id) => getRun(serve.url, id)))).every((run) => run.status === 'completed'),
        'every run to complete',
        { timeoutMs: 12_000 },
      );
      assert.ok(Date.now() - released < 12_000);
      for (const id of ids) {
        const events = await readEvents(serve.url, id);
        assertWellFormedLog(id, events);
        assert.equal(events.filter((e) => e.type === 'run_failed').length, 0);
        assert.equal(
          asked.filter((r) => promptOf(r) === events.find((e) => e.type === 'user_message')?.data.text).length,
          1,
          `${id}: the answer that waited was kept, not asked for again`,
        );
      }
      assert.ok(!serve.output().includes('paused, the run store is unavailable'), 'no run had to be paused');
      await createRun(serve.url, 'job 5');
      assert.equal(exited, '');
    },
  );
});
