// The link service against a real SQLite store holding a run that waits on a call; decisions go through the
// orchestrator's submitInput, the path the runs API takes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { draft, type JsonObject, type RunInput, type RunStore } from '../../core/index.ts';
import { submitInput } from '../../orchestrator/submit-input.ts';
import { openSqliteRunStore } from '../../store/sqlite/open-sqlite-run-store.ts';
import { createDecisionLinks } from './decision-links.ts';
import { createApprovalLinks } from './link-service.ts';

const SECRET = 'the-link-secret-for-these-tests-0123456789';
const ARGS: JsonObject = { symbol: 'EU-BASE', quantity: 5 };

describe('link service', () => {
  let dir: string;
  let store: RunStore;
  let clock = Date.now();
  const now = (): number => clock;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-links-'));
    store = await openSqliteRunStore({ path: join(dir, 'runs.db') });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const runs = {
    getRun: async (_caller: object, runId: string) => store.getRun(runId),
    submitInput: async (_caller: object, runId: string, input: RunInput) => submitInput(store, runId, input),
  };
  const log = { readEvents: async (runId: string) => store.readEvents(runId) };
  const service = createApprovalLinks({ secret: SECRET, runs, store: log, now });
  const issuer = createDecisionLinks({ secret: SECRET, baseUrl: () => 'http://tg.test', ttlMs: 60_000, now });

  /** A run waiting on call `c1` (placeOrder with `args`). */
  async function waitingRun(args: JsonObject = ARGS, toolCallId = 'c1'): Promise<string> {
    const run = await store.createRun({ input: 'buy', model: 'mock:model' });
    await askAgain(run.id, args, toolCallId);
    return run.id;
  }

  async function askAgain(runId: string, args: JsonObject, toolCallId = 'c1'): Promise<void> {
    const run = await store.getRun(runId);
    assert.ok(run !== undefined);
    const asked = { toolCallId, name: 'placeOrder', arguments: args, effect: 'write', reason: 'policy' } as const;
    await store.append(
      runId,
      [
        draft('approval_required', { step: 1, ...asked }),
        draft('run_status', { from: run.status, to: 'waiting_approval' }),
      ],
      { status: 'waiting_approval', pendingApproval: { ...asked, eventId: run.lastEventId + 1 } },
    );
  }

  async function links(runId: string, args: JsonObject = ARGS) {
    const issued = await issuer.issue({ runId, toolCallId: 'c1', arguments: args, target: 'desk' });
    const token = (url: string): string => url.slice(url.lastIndexOf('/') + 1);
    return { ...issued, approveToken: token(issued.approve), rejectToken: token(issued.reject) };
  }

  async function decisions(runId: string): Promise<RunInput[]> {
    return (await store.readEvents(runId)).flatMap((e) => (e.type === 'input_received' ? [e.data.input] : []));
  }

  it('shows what a link would do, then decides once with its source; a second use says when it was used', async () => {
    clock = Date.now();
    const runId = await waitingRun();
    const issued = await links(runId);
    const shown = await service.inspect(issued.approveToken);
    assert.ok(shown.ok);
    assert.deepEqual(
      [shown.runId, shown.toolCallId, shown.name, shown.arguments, shown.decision, shown.target, shown.expiresAt],
      [runId, 'c1', 'placeOrder', ARGS, 'approve', 'desk', issued.expiresAt],
    );
    assert.equal((await store.getRun(runId))?.status, 'waiting_approval', 'inspecting decides nothing');
    const used = await service.use(issued.approveToken, { via: 'link' });
    assert.deepEqual(used, { ok: true, runId, toolCallId: 'c1', decision: 'approve', decided: true });
    assert.deepEqual(await decisions(runId), [
      {
        type: 'approval',
        toolCallId: 'c1',
        decision: 'approve',
        source: { via: 'link', target: 'desk', linkId: issued.linkIds[0] },
      },
    ]);
    assert.equal((await store.getRun(runId))?.status, 'running');
    const twice = await service.use(issued.approveToken, { via: 'link' });
    assert.ok(!twice.ok);
    assert.equal(twice.code, 'conflict');
    assert.match(twice.message, /^this link was already used at \d{4}-/);
    const other = await service.use(issued.rejectToken, { via: 'chat', actor: 'bob' });
    assert.ok(!other.ok);
    assert.match(other.message, /^already decided: approve via link \(desk\) at /);
    assert.equal((await decisions(runId)).length, 1);
  });

  it('a late link does nothing and says when it expired', async () => {
    clock = Date.now();
    const runId = await waitingRun();
    const issued = await links(runId);
    clock += 60_000;
    const late = await service.use(issued.approveToken, { via: 'link' });
    clock = Date.now();
    assert.deepEqual(late, {
      ok: false,
      code: 'link_expired',
      message: `this link expired at ${issued.expiresAt}; open the run in the console to decide`,
      runId,
    });
    assert.deepEqual(await decisions(runId), []);
  });

  it('a link for other arguments, or for a call asked again since, is refused as changed', async () => {
    clock = Date.now();
    const runId = await waitingRun({ symbol: 'EU-BASE', quantity: 50 });
    const stale = await service.use((await links(runId)).approveToken, { via: 'link' });
    assert.ok(!stale.ok);
    assert.equal(stale.code, 'conflict');
    assert.match(stale.message, /^the call changed since this link was sent \(it was edited or asked again\)/);

    const again = await waitingRun();
    clock = Date.now() - 1000;
    const early = await links(again);
    clock = Date.now();
    await submitInput(store, again, { type: 'approval', toolCallId: 'c1', decision: 'approve', userId: 'alice' });
    await askAgain(again, ARGS);
    const refused = await service.use(early.approveToken, { via: 'link' });
    assert.ok(!refused.ok);
    assert.match(refused.message, /^the call changed since this link was sent/);
    assert.equal((await decisions(again)).length, 1);
  });

  it('a call decided by someone else: the link says who decided, how and when', async () => {
    clock = Date.now();
    const runId = await waitingRun();
    const issued = await links(runId);
    await submitInput(store, runId, {
      type: 'approval',
      toolCallId: 'c1',
      decision: 'edit',
      arguments: { symbol: 'EU-BASE', quantity: 1 },
      userId: 'alice',
    });
    const refused = await service.use(issued.approveToken, { via: 'chat', actor: 'bot' });
    assert.ok(!refused.ok);
    assert.equal(refused.code, 'conflict');
    assert.match(refused.message, /^already decided: edit via api by alice at \d{4}-/);
    const shown = await service.inspect(issued.rejectToken);
    assert.ok(!shown.ok && shown.code === 'conflict');
  });

  it('two uses at once (one link, or approve and reject) decide once', async () => {
    clock = Date.now();
    const runId = await waitingRun();
    const issued = await links(runId);
    const results = await Promise.all([
      service.use(issued.approveToken, { via: 'link' }),
      service.use(issued.approveToken, { via: 'chat' }),
      service.use(issued.rejectToken, { via: 'chat', reason: 'no' }),
    ]);
    assert.equal(results.filter((r) => r.ok).length, 1, JSON.stringify(results));
    for (const refused of results.filter((r) => !r.ok)) assert.equal(refused.code, 'conflict');
    assert.equal((await decisions(runId)).length, 1);
  });

  it('a token that is not a link, or names a run that is gone, is not found', async () => {
    const bad = await service.use('abc.def.ghi', { via: 'link' });
    assert.ok(!bad.ok);
    assert.equal(bad.code, 'not_found');
    assert.match(bad.message, /^not a valid decision link/);
    clock = Date.now();
    const ghost = await createDecisionLinks({ secret: SECRET, baseUrl: () => '', ttlMs: 60_000 }).issue({
      runId: 'run_missing',
      toolCallId: 'c1',
      arguments: ARGS,
      target: 'desk',
    });
    const gone = await service.inspect(ghost.approve.slice(ghost.approve.lastIndexOf('/') + 1));
    assert.ok(!gone.ok);
    assert.equal(gone.code, 'not_found');
  });
});
