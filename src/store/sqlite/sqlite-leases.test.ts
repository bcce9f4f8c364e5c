import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolgateError, draft, type RunLease } from '../../core/index.ts';
import { openSqliteRunStore } from './open-sqlite-run-store.ts';
import type { SqliteRunStore } from './sqlite-run-store.ts';

const LONG = 60_000;

// Claims runs with claimNext until none is left, from a separate process, once
// told "go" on stdin (so two workers start together); prints the ids it got as JSON.
const CLAIM_WORKER_SOURCE = `
const [storeModule, path, owner] = process.argv.slice(2);
const { openSqliteRunStore } = await import(storeModule);
const store = await openSqliteRunStore({ path });
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
const ids = [];
for (;;) {
  const leases = await store.claimNext({ owner, ttlMs: 60000, limit: 2 });
  if (leases.length === 0) break;
  ids.push(...leases.map((l) => l.runId));
  await new Promise((resolve) => setTimeout(resolve, 1));
}
await store.close();
process.stdout.write(JSON.stringify(ids) + '\\n');
process.exit(0);
`;

interface ClaimWorker {
  ready: Promise<void>;
  go(): void;
  claimed: Promise<string[]>;
}

function startClaimWorker(dir: string, path: string, owner: string): ClaimWorker {
  const script = join(dir, 'claim-worker.mjs');
  writeFileSync(script, CLAIM_WORKER_SOURCE);
  const storeModule = new URL('./open-sqlite-run-store.ts', import.meta.url).href;
  const worker = spawn(process.execPath, [script, storeModule, path, owner], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  worker.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    worker.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.startsWith('ready\n')) resolve();
    });
    worker.on('exit', () => reject(new Error(`worker exited before it was ready: ${stderr}`)));
  });
  const claimed = new Promise<string[]>((resolve, reject) => {
    worker.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(stdout.slice('ready\n'.length)) as string[])
        : reject(new Error(`worker failed (${code}): ${stderr}`)),
    );
  });
  return { ready, claimed, go: () => worker.stdin.end('go\n') };
}

function isLeaseLost(error: unknown): true {
  assert.ok(error instanceof ToolgateError, String(error));
  assert.equal(error.code, 'lease_lost', error.message);
  return true;
}

async function createRuns(store: SqliteRunStore, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1)
    ids.push((await store.createRun({ input: 'x', model: 'm', status: i % 2 === 0 ? 'queued' : 'running' })).id);
  return ids;
}

describe('SqliteRunStore leases across connections to one file', () => {
  let dir = '';
  let n = 0;
  const file = (): string => join(dir, `leases-${(n += 1)}.db`);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps claims exclusive and fences a stale owner, as two processes would see them', async () => {
    const path = file();
    const one = await openSqliteRunStore({ path });
    const two = await openSqliteRunStore({ path });
    try {
      const { id } = await one.createRun({ input: 'x', model: 'm', status: 'running' });
      // A long lease while it must be live (a loaded machine may pause between two calls), then
      // renewed to end a millisecond later: it expires in the store as a paused owner's would.
      const live = await one.claimRun(id, { owner: 'process-1', ttlMs: LONG });
      assert.equal(live?.epoch, 1);
      assert.equal(await two.claimRun(id, { owner: 'process-2', ttlMs: LONG }), undefined, 'live elsewhere: refused');
      await one.append(id, [draft('user_message', { text: 'from one' })], undefined, { lease: live as RunLease });
      const stale = await one.renewLease(live as RunLease, 1);
      assert.equal(stale?.epoch, 1);
      const expiresAt = stale?.expiresAt ?? 0;
      while (Date.now() <= expiresAt) await new Promise((resolve) => setTimeout(resolve, 2));

      const current = await two.claimRun(id, { owner: 'process-2', ttlMs: LONG });
      assert.equal(current?.epoch, 2);
      assert.equal(await one.claimRun(id, { owner: 'process-1', ttlMs: LONG }), undefined);
      assert.equal(await one.renewLease(stale as RunLease, LONG), undefined);

      const heard: unknown[] = [];
      one.subscribe(id, (events) => heard.push(...events));
      await assert.rejects(
        one.append(
          id,
          [draft('user_message', { text: 'stale' })],
          { status: 'waiting_approval' },
          { lease: stale as RunLease },
        ),
        isLeaseLost,
      );
      assert.deepEqual(heard, []);
      const run = await two.getRun(id);
      assert.equal(run?.lastEventId, 1);
      assert.equal(run?.status, 'running');
      assert.equal((await two.readEvents(id)).length, 1);

      const [event] = await two.append(id, [draft('user_message', { text: 'from two' })], undefined, {
        lease: current as RunLease,
      });
      assert.equal(event?.id, 2);
      assert.equal((await one.releaseRun(current as RunLease))?.lastEventId, 2);
      // Released through the other connection: free for anyone, the epoch keeps growing.
      assert.equal((await one.claimRun(id, { owner: 'process-1', ttlMs: LONG }))?.epoch, 3);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('never hands one run to two connections that call claimNext in turn', async () => {
    const path = file();
    const one = await openSqliteRunStore({ path });
    const two = await openSqliteRunStore({ path });
    try {
      const ids = await createRuns(one, 50);
      const claimAll = async (store: SqliteRunStore, owner: string): Promise<string[]> => {
        const got: string[] = [];
        for (;;) {
          const leases = await store.claimNext({ owner, ttlMs: LONG, limit: 3 });
          if (leases.length === 0) return got;
          got.push(...leases.map((l) => l.runId));
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      const [a, b] = await Promise.all([claimAll(one, 'process-1'), claimAll(two, 'process-2')]);
      assert.ok(a.length > 0 && b.length > 0, `both should get some: ${a.length} / ${b.length}`);
      assert.equal(a.length + b.length, 50);
      assert.deepEqual([...new Set([...a, ...b])].sort(), [...ids].sort());
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('never hands one run to two processes that call claimNext at the same time', async () => {
    const path = file();
    const store = await openSqliteRunStore({ path, synchronous: 'NORMAL' });
    try {
      const ids = await createRuns(store, 50);
      const workers = [startClaimWorker(dir, path, 'process-1'), startClaimWorker(dir, path, 'process-2')];
      await Promise.all(workers.map((w) => w.ready));
      for (const worker of workers) worker.go();
      const [a = [], b = []] = await Promise.all(workers.map((w) => w.claimed));
      assert.equal(a.length + b.length, 50, `claimed ${a.length} + ${b.length}`);
      assert.deepEqual([...new Set([...a, ...b])].sort(), [...ids].sort());
      const leases = await store.claimNext({ owner: 'late', ttlMs: LONG, limit: 100 });
      assert.deepEqual(leases, [], 'every run is held');
    } finally {
      await store.close();
    }
  });
});
