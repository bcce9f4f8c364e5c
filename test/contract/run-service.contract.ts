// The RunService contract (src/core/ports/run-service.ts): one behaviour suite for
// every implementation — the in-process RunManager, and the same port spoken over the
// runs API of a real server. The harness serves runs with a scripted model that plays
// CONTRACT_SCRIPT: every run calls the write tool `record` (which waits for a person),
// then answers. A caller names its tenant; another tenant's run does not exist for it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  TERMINAL_RUN_STATUSES,
  ToolgateError,
  canonicalJson,
  type Caller,
  type ErrorCode,
  type Run,
  type RunEvent,
  type RunService,
  type RunStatus,
  type StartRunRequest,
} from '../../src/core/index.ts';
import type { ScriptedScript } from '../../src/providers/scripted/script-schema.ts';

/** The write tool every run calls: classified `write`, so a person approves each call. */
export const RECORD_TOOL = 'record';
export const FINAL_TEXT = 'Recorded, and done.';

/** One call, one answer; repeated so a run in a thread (whose history counts) plays it too. */
export const CONTRACT_SCRIPT: ScriptedScript = {
  description: 'RunService contract: a write that waits for a person, then an answer',
  turns: Array.from({ length: 3 }, () => [
    { toolCalls: [{ name: RECORD_TOOL, arguments: '{"text":"a note"}' }] },
    { text: FINAL_TEXT },
  ]).flat(),
};

export interface RunServiceHarness {
  service: RunService;
  /** Two callers of two tenants, each with a user. */
  callers: { acme: Caller; globex: Caller };
  /** The run's stored events after `after`, in order, as a client reads them; another tenant's run → `not_found`. */
  events(caller: Caller, runId: string, after: number): Promise<RunEvent[]>;
  /** Follows the run live from after `after` until `until` is true of an event (included). */
  follow(
    caller: Caller,
    runId: string,
    options: { after: number; until: (event: RunEvent) => boolean },
  ): Promise<RunEvent[]>;
  cleanup(): Promise<void>;
}

const WAIT_MS = 30_000;

/** Defines `describe(name)` with the RunService contract, on one harness for all its tests. */
export function runServiceContract(name: string, open: () => Promise<RunServiceHarness>): void {
  describe(name, () => {
    let h: RunServiceHarness;
    let acme: Caller;
    let globex: Caller;
    before(async () => {
      h = await open();
      ({ acme, globex } = h.callers);
    });
    after(() => h.cleanup());

    /** Polls getRun until the run is in one of `statuses`. */
    async function waitFor(caller: Caller, runId: string, statuses: readonly RunStatus[]): Promise<Run> {
      const deadline = Date.now() + WAIT_MS;
      for (;;) {
        const run = await h.service.getRun(caller, runId);
        assert.ok(run !== undefined, `run ${runId} vanished`);
        if (statuses.includes(run.status)) return run;
        if (Date.now() > deadline)
          assert.fail(`run ${runId} is ${run.status}, not ${statuses.join(' or ')}, after ${WAIT_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    /** A run of `caller` that waits for the decision on its call. */
    async function waitingRun(caller: Caller, request: StartRunRequest): Promise<Run> {
      const { run } = await h.service.startRun(caller, request);
      return waitFor(caller, run.id, ['waiting_approval']);
    }

    function pendingCall(run: Run): string {
      assert.ok(run.pendingApproval !== undefined, `run ${run.id} waits for a decision`);
      return run.pendingApproval.toolCallId;
    }

    it('startRun creates a run of the caller with its settings; it runs to the decision it waits for', async () => {
      const input = `contract: start ${randomUUID()}`;
      const { run, created } = await h.service.startRun(acme, { input, metadata: { ticket: 'T-1' } });
      assert.equal(created, true);
      assert.equal(typeof run.id, 'string');
      assert.equal(run.input, input);
      assert.equal(run.tenantId, acme.tenantId);
      assert.equal(run.userId, acme.userId);
      assert.deepEqual(run.metadata, { ticket: 'T-1' });
      assert.ok(!TERMINAL_RUN_STATUSES.has(run.status), `a new run has not ended: ${run.status}`);
      const waiting = await waitFor(acme, run.id, ['waiting_approval']);
      assert.equal(waiting.pendingApproval?.name, RECORD_TOOL);
      assert.equal(waiting.model, (await h.service.listModels(acme)).default, 'a run without a model gets the default');
    });

    it('getRun: a run that does not exist is undefined', async () => {
      assert.equal(await h.service.getRun(acme, `run_${randomUUID()}`), undefined);
    });

    it(
      'events come in order from the first; a reader ' + 'resumes after any id; a follower sees the rest live',
      async () => {
        const run = await waitingRun(acme, { input: `contract: events ${randomUUID()}` });
        const stored = await h.events(acme, run.id, 0);
        assert.deepEqual(
          stored.map((e) => e.id),
          stored.map((_, i) => i + 1),
          'ids 1..n, no gap',
        );
        assert.equal(stored.at(-1)?.id, run.lastEventId);
        assert.ok(stored.every((e) => e.runId === run.id));
        for (const resume of [1, 2, stored.length])
          assert.deepEqual(await h.events(acme, run.id, resume), stored.slice(resume), `after ${resume}`);
        const following = h.follow(acme, run.id, { after: run.lastEventId, until: (e) => e.type === 'run_completed' });
        await h.service.submitInput(acme, run.id, {
          type: 'approval',
          toolCallId: pendingCall(run),
          decision: 'approve',
        });
        const live = await following;
        assert.deepEqual(
          live.map((e) => e.id),
          live.map((_, i) => run.lastEventId + i + 1),
          'the live events continue the log without a gap',
        );
        assert.equal(live.at(-1)?.type, 'run_completed');
        assert.deepEqual(await h.events(acme, run.id, 0), [...stored, ...live], 'what was followed is what is stored');
      },
    );

    it('submitInput: an approval moves the run back to running, its call runs and the run completes', async () => {
      const run = await waitingRun(acme, { input: `contract: approve ${randomUUID()}` });
      const decided = await h.service.submitInput(acme, run.id, {
        type: 'approval',
        toolCallId: pendingCall(run),
        decision: 'approve',
      });
      assert.equal(decided.status, 'running', 'the decision is recorded and the run goes on');
      assert.equal(decided.pendingApproval, undefined);
      const done = await waitFor(acme, run.id, ['completed', 'failed', 'cancelled']);
      assert.equal(done.status, 'completed', JSON.stringify(done.error));
      assert.equal(done.output, FINAL_TEXT);
      const results = (await h.events(acme, run.id, 0)).flatMap((e) => (e.type === 'tool_result' ? [e.data] : []));
      assert.equal(results.length, 1);
      assert.equal(results[0]?.ok, true, 'the approved call ran');
    });

    it(
      'submitInput: a decision for a call that is not pending ' +
        'is a conflict; a run that does not exist is not_found',
      async () => {
        const run = await waitingRun(acme, { input: `contract: conflict ${randomUUID()}` });
        await assert.rejects(
          h.service.submitInput(acme, run.id, {
            type: 'approval',
            toolCallId: 'call_nobody_made',
            decision: 'approve',
          }),
          coded('conflict'),
        );
        await assert.rejects(
          h.service.submitInput(acme, `run_${randomUUID()}`, {
            type: 'approval',
            toolCallId: 'x',
            decision: 'approve',
          }),
          coded('not_found'),
        );
        assert.equal(
          (await h.service.getRun(acme, run.id))?.status,
          'waiting_approval',
          'a refused input changes nothing',
        );
        await h.service.cancelRun(acme, run.id);
      },
    );

    it('cancelRun: the run ends cancelled with the reason; cancelling a finished run is a conflict', async () => {
      const run = await waitingRun(acme, { input: `contract: cancel ${randomUUID()}` });
      await h.service.cancelRun(acme, run.id, 'changed my mind');
      const ended = await waitFor(acme, run.id, ['cancelled', 'completed', 'failed']);
      assert.equal(ended.status, 'cancelled');
      const last = (await h.events(acme, run.id, 0)).at(-1);
      assert.ok(last?.type === 'run_cancelled', `the log ends with run_cancelled, not ${last?.type}`);
      assert.match(last.data.reason ?? '', /changed my mind/);
      await assert.rejects(h.service.cancelRun(acme, run.id), coded('conflict'));
      await assert.rejects(h.service.cancelRun(acme, `run_${randomUUID()}`), coded('not_found'));
    });

    it(
      'listRuns: newest first, filtered by status, ' + 'thread, strategy and text; pages cover every run once',
      async () => {
        const marker = randomUUID();
        const a = await waitingRun(acme, { input: `contract: list ${marker} a` });
        const b = await waitingRun(acme, { input: `contract: list ${marker} b`, threadId: `thread-${marker}` });
        const c = await waitingRun(acme, { input: `contract: list ${marker} c` });
        await h.service.submitInput(acme, a.id, { type: 'approval', toolCallId: pendingCall(a), decision: 'approve' });
        await waitFor(acme, a.id, ['completed']);
        const ids = async (query: Parameters<RunService['listRuns']>[1]): Promise<string[]> =>
          (await h.service.listRuns(acme, query)).runs.map((r) => r.id);
        assert.deepEqual(await ids({ q: marker }), [c.id, b.id, a.id]);
        assert.deepEqual(await ids({ q: marker.toUpperCase() }), [c.id, b.id, a.id], 'the text filter ignores case');
        assert.deepEqual(await ids({ q: marker, status: 'completed' }), [a.id]);
        assert.deepEqual(await ids({ q: marker, status: 'waiting_approval' }), [c.id, b.id]);
        assert.deepEqual(await ids({ threadId: `thread-${marker}` }), [b.id]);
        assert.deepEqual(await ids({ q: marker, strategy: 'react' }), [c.id, b.id, a.id]);
        assert.deepEqual(await ids({ q: marker, strategy: 'plan' }), []);
        const paged: string[] = [];
        let cursor: string | undefined;
        for (let pages = 0; pages < 20; pages++) {
          const page = await h.service.listRuns(acme, {
            q: marker,
            limit: 1,
            ...(cursor === undefined ? {} : { cursor }),
          });
          assert.ok(page.runs.length <= 1);
          paged.push(...page.runs.map((r) => r.id));
          cursor = page.nextCursor;
          if (cursor === undefined) break;
        }
        assert.deepEqual(paged, [c.id, b.id, a.id]);
        for (const run of [b, c]) await h.service.cancelRun(acme, run.id);
      },
    );

    it(
      "tenants: another tenant's run does not exist for a caller " +
        '(not_found, never forbidden) and is in none of its lists',
      async () => {
        const marker = randomUUID();
        const run = await waitingRun(acme, { input: `contract: tenants ${marker}` });
        assert.equal(await h.service.getRun(globex, run.id), undefined);
        await assert.rejects(
          h.service.submitInput(globex, run.id, {
            type: 'approval',
            toolCallId: pendingCall(run),
            decision: 'approve',
          }),
          coded('not_found'),
        );
        await assert.rejects(h.service.cancelRun(globex, run.id), coded('not_found'));
        await assert.rejects(h.events(globex, run.id, 0), coded('not_found'));
        assert.deepEqual((await h.service.listRuns(globex, { q: marker })).runs, []);
        const theirs = await h.service.startRun(globex, { input: `contract: tenants ${marker} globex` });
        assert.deepEqual(
          (await h.service.listRuns(acme, { q: marker })).runs.map((r) => r.id),
          [run.id],
        );
        assert.deepEqual(
          (await h.service.listRuns(globex, { q: marker })).runs.map((r) => r.id),
          [theirs.run.id],
        );
        assert.equal(
          (await h.service.getRun(acme, run.id))?.status,
          'waiting_approval',
          "the other tenant's attempts changed nothing",
        );
        await h.service.cancelRun(acme, run.id);
        await h.service.cancelRun(globex, theirs.run.id);
      },
    );

    it(
      'idempotency: the same key and request give the same run; the ' +
        'same key with another request is refused; keys are per tenant',
      async () => {
        const key = `contract-${randomUUID()}`;
        const request = { input: `contract: idempotent ${key}` };
        const once = { key, requestHash: canonicalJson(request) };
        const first = await h.service.startRun(acme, request, once);
        const again = await h.service.startRun(acme, request, once);
        assert.deepEqual([first.created, again.created, again.run.id], [true, false, first.run.id]);
        const other = { input: `${request.input}, but another` };
        await assert.rejects(
          h.service.startRun(acme, other, { key, requestHash: canonicalJson(other) }),
          coded('idempotency_mismatch'),
        );
        const theirs = await h.service.startRun(globex, request, once);
        assert.equal(theirs.created, true);
        assert.notEqual(theirs.run.id, first.run.id);
        await waitFor(acme, first.run.id, ['waiting_approval']);
        await waitFor(globex, theirs.run.id, ['waiting_approval']);
        await h.service.cancelRun(acme, first.run.id);
        await h.service.cancelRun(globex, theirs.run.id);
      },
    );

    it(
      'startRun: a strategy that does not exist, or a model the ' +
        'tenant may not use, is refused with its code and creates nothing',
      async () => {
        const marker = randomUUID();
        await assert.rejects(
          h.service.startRun(acme, { input: `contract: refused ${marker}`, strategy: 'telepathy' }),
          coded('usage'),
        );
        await assert.rejects(
          h.service.startRun(acme, { input: `contract: refused ${marker}`, model: 'openai:not-configured' }),
          coded('model_not_allowed'),
        );
        assert.deepEqual((await h.service.listRuns(acme, { q: marker })).runs, []);
      },
    );

    /** A completed run: its call approved, run and answered. */
    async function completedRun(caller: Caller, input: string): Promise<Run> {
      const run = await waitingRun(caller, { input });
      await h.service.submitInput(caller, run.id, {
        type: 'approval',
        toolCallId: pendingCall(run),
        decision: 'approve',
      });
      return waitFor(caller, run.id, ['completed', 'failed', 'cancelled']);
    }

    it(
      'forkRun: a fork after a result copies the conversation up to there and goes on live under ' +
        'its settings to the end; the original is not touched',
      async () => {
        const original = await completedRun(acme, `contract: fork ${randomUUID()}`);
        assert.equal(original.status, 'completed', JSON.stringify(original.error));
        const before = await h.events(acme, original.id, 0);
        const cut = before.find((e) => e.type === 'tool_result')?.id ?? 0;
        const { run: fork } = await h.service.forkRun(acme, original.id, {
          afterEventId: cut,
          settings: { maxSteps: 5 },
        });
        assert.notEqual(fork.id, original.id);
        assert.equal(fork.input, original.input);
        assert.equal(fork.tenantId, acme.tenantId);
        assert.equal(fork.userId, original.userId);
        assert.equal(fork.threadId, undefined, 'a fork does not continue a thread');
        assert.deepEqual(fork.metadata?.['forkOf'], { runId: original.id, afterEventId: cut });
        assert.equal(fork.settings?.maxSteps, 5);
        const done = await waitFor(acme, fork.id, ['completed', 'failed', 'cancelled']);
        assert.equal(done.status, 'completed', JSON.stringify(done.error));
        assert.equal(done.output, FINAL_TEXT);
        const log = await h.events(acme, fork.id, 0);
        const copied = before.filter((e) => e.id <= cut && e.type !== 'run_status');
        assert.deepEqual(
          log.slice(0, copied.length).map((e) => [e.type, e.data]),
          copied.map((e) => [e.type, e.data]),
          'the fork starts with copies of the conversation',
        );
        assert.deepEqual(log[copied.length]?.type, 'run_forked');
        assert.deepEqual(log[copied.length]?.data, { from: original.id, afterEventId: cut, settings: { maxSteps: 5 } });
        assert.equal(
          log.filter((e) => e.type === 'tool_call').length,
          1,
          'the recorded call is not made again: its result was copied',
        );
        assert.deepEqual(await h.events(acme, original.id, 0), before, "the original's log is as it was");
        assert.deepEqual(await h.service.getRun(acme, original.id), original, 'and so is its row');
      },
    );

    it('forkRun: a fork at an approval that was pending there waits for a person again', async () => {
      const original = await waitingRun(acme, { input: `contract: fork pending ${randomUUID()}` });
      const cut = original.pendingApproval?.eventId ?? 0;
      const { run: fork } = await h.service.forkRun(acme, original.id, { afterEventId: cut });
      const waiting = await waitFor(acme, fork.id, ['waiting_approval', 'completed', 'failed', 'cancelled']);
      assert.equal(waiting.status, 'waiting_approval');
      assert.equal(waiting.pendingApproval?.toolCallId, pendingCall(original), 'the same call, asked again');
      const log = await h.events(acme, fork.id, 0);
      const forked = log.find((e) => e.type === 'run_forked')?.id ?? Infinity;
      assert.deepEqual(
        log.filter((e) => e.type === 'approval_required').map((e) => e.id),
        [waiting.pendingApproval?.eventId],
        'asked by the fork itself, once, after run_forked',
      );
      assert.ok((waiting.pendingApproval?.eventId ?? 0) > forked);
      for (const run of [original, fork]) await h.service.cancelRun(acme, run.id);
    });

    it(
      'forkRun: a point outside the conversation, an unknown strategy or a model the tenant may not use is ' +
        "refused and creates nothing; another tenant's run does not exist",
      async () => {
        const marker = randomUUID();
        const original = await completedRun(acme, `contract: fork refused ${marker}`);
        const last = original.lastEventId;
        await assert.rejects(
          h.service.forkRun(acme, original.id, { afterEventId: last }),
          coded('usage', /ends the run/),
        );
        await assert.rejects(
          h.service.forkRun(acme, original.id, { afterEventId: last + 5 }),
          coded('usage', new RegExp(`last event is ${last}`)),
        );
        await assert.rejects(h.service.forkRun(acme, original.id, { afterEventId: 1 }), coded('usage', /from \d+/));
        const cut = last - 2;
        await assert.rejects(
          h.service.forkRun(acme, original.id, { afterEventId: cut, settings: { strategy: 'telepathy' } }),
          coded('usage', /unknown strategy/),
        );
        await assert.rejects(
          h.service.forkRun(acme, original.id, { afterEventId: cut, settings: { model: 'openai:not-configured' } }),
          coded('model_not_allowed'),
        );
        await assert.rejects(h.service.forkRun(globex, original.id, { afterEventId: cut }), coded('not_found'));
        await assert.rejects(h.service.forkRun(acme, `run_${randomUUID()}`, { afterEventId: 3 }), coded('not_found'));
        assert.deepEqual(
          (await h.service.listRuns(acme, { q: marker })).runs.map((r) => r.id),
          [original.id],
        );
      },
    );

    it('listTools: the caller’s tools with their classification, and each server’s state', async () => {
      const { tools, servers } = await h.service.listTools(acme);
      const record = tools.find((t) => t.name === RECORD_TOOL);
      assert.ok(record !== undefined, `${RECORD_TOOL} is among ${tools.map((t) => t.name).join(', ')}`);
      assert.equal(record.effect, 'write');
      assert.equal(record.approval, 'required');
      assert.equal(record.available, true);
      assert.ok(Array.isArray(record.injected));
      assert.ok(Array.isArray(servers));
      for (const server of servers)
        assert.ok(typeof server.name === 'string' && ['connecting', 'up', 'down'].includes(server.state));
    });

    it('listModels names the default; ready() says the service takes runs', async () => {
      const models = await h.service.listModels(acme);
      assert.equal(typeof models.default, 'string');
      assert.ok(Array.isArray(models.models));
      const readiness = await h.service.ready();
      assert.equal(readiness.ready, true, readiness.reason);
    });
  });
}

/** A validator for assert.rejects: a ToolgateError with this code. */
function coded(code: ErrorCode, message?: RegExp): (error: unknown) => true {
  return (error: unknown) => {
    assert.ok(error instanceof ToolgateError, `expected a ToolgateError(${code}), got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  };
}
