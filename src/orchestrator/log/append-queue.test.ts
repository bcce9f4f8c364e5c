// AppendQueue (the run writer's appends): what a deferred append holds, what the next commit
// carries, and how a changed log ends the pass (the engine-level cases are in run-engine.test.ts,
// the writer's own in run-writer.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, draft, type RunEvent, type RunPatch } from '../../core/index.ts';
import { AppendQueue } from './append-queue.ts';

interface Commit {
  types: string[];
  patch: RunPatch | undefined;
  expect: number | undefined;
}

function harness(options: { allowDeferral?: boolean; conflict?: boolean; delayMs?: (types: string[]) => number } = {}) {
  const commits: Commit[] = [];
  const applied: RunEvent[] = [];
  let last = 3;
  const appender = new AppendQueue({
    runId: 'run_1',
    holdBack: options.allowDeferral ?? true,
    lastEventId: () => last,
    apply: (events) => {
      applied.push(...events);
      last = events.at(-1)?.id ?? last;
    },
    commit: async ({ drafts, patch, expectLastEventId: expect }) => {
      const types = drafts.map((d) => d.type);
      // A store that takes its time (a network round trip): what starts first may end last.
      const delay = options.delayMs?.(types) ?? 0;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      commits.push({ types, patch, expect });
      if (options.conflict === true && expect !== undefined)
        throw new ToolgateError('conflict', 'run run_1: expected last event 3, the log is at 4');
      const base = expect ?? last;
      const events = drafts.map(
        (d, i) => ({ id: base + i + 1, runId: 'run_1', type: d.type, time: 't', data: d.data }) as RunEvent,
      );
      last = Math.max(last, events.at(-1)?.id ?? last);
      return events;
    },
  });
  return { appender, commits, applied };
}

const answer = (text: string) =>
  draft('assistant_message', {
    step: 1,
    text,
    toolCalls: [],
    finishReason: 'stop',
    latencyMs: 0,
    toolMode: 'native',
    attempt: 1,
  });

describe('AppendQueue', () => {
  it(
    'holds deferred drafts, applied at once with the ids the log ' +
      'will give them, and commits them first with the next append',
    async () => {
      const { appender, commits, applied } = harness();
      const held = await appender.append([draft('assistant_delta', { step: 1, text: 'Hi' })], undefined, {
        defer: true,
      });
      await appender.append([answer('Hi')], { steps: 1 }, { defer: true });
      assert.deepEqual(commits, [], 'nothing reached the store yet');
      assert.deepEqual(
        held.map((e) => e.id),
        [4],
      );
      assert.deepEqual(
        applied.map((e) => [e.id, e.type]),
        [
          [4, 'assistant_delta'],
          [5, 'assistant_message'],
        ],
      );
      const own = await appender.append(
        [
          draft('run_completed', {
            output: 'Hi',
            usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
            steps: 1,
          }),
        ],
        { status: 'completed', output: 'Hi' },
      );
      assert.deepEqual(commits, [
        {
          types: ['assistant_delta', 'assistant_message', 'run_completed'],
          patch: { steps: 1, status: 'completed', output: 'Hi' },
          expect: 3,
        },
      ]);
      assert.deepEqual(
        own.map((e) => [e.id, e.type]),
        [[6, 'run_completed']],
        'the caller gets its own events back, not the deferred ones',
      );
    },
  );

  it('commits in the order of the appends: a result never overtakes the commit that carries its call', async () => {
    const { appender, commits } = harness({ delayMs: (types) => (types.includes('tool_call') ? 30 : 0) });
    const call = (id: string) => [
      draft('gate_decision', {
        step: 1,
        toolCallId: id,
        name: 'read',
        effect: 'read',
        decision: 'allowed',
        normalisations: [],
        injected: [],
      }),
      draft('tool_call', { step: 1, toolCallId: id, name: 'read', arguments: {} }),
    ];
    const result = (id: string) => [
      draft('tool_result', { step: 1, toolCallId: id, name: 'read', ok: true, content: [], latencyMs: 1 }),
    ];
    // Two reads run side by side: both calls held back, then both results appended at once.
    await appender.append(call('a'), undefined, { defer: true });
    await appender.append(call('b'), undefined, { defer: true });
    await Promise.all([appender.append(result('a')), appender.append(result('b'))]);
    assert.deepEqual(
      commits.map((c) => c.types),
      [['gate_decision', 'tool_call', 'gate_decision', 'tool_call', 'tool_result'], ['tool_result']],
    );
  });

  it('events held back while a commit is on its way get the ids after it, and their commit expects it', async () => {
    const { appender, commits } = harness({
      delayMs: (types) => (types.includes('tool_result') && types.length === 1 ? 30 : 0),
    });
    // One call's result is being committed (slowly) while another read is held back.
    const slow = appender.append([
      draft('tool_result', { step: 1, toolCallId: 'x', name: 'read', ok: true, content: [], latencyMs: 1 }),
    ]);
    const held = await appender.append(
      [draft('tool_call', { step: 1, toolCallId: 'y', name: 'read', arguments: {} })],
      undefined,
      { defer: true },
    );
    assert.deepEqual(
      held.map((e) => e.id),
      [5],
      'after the log (3) and the commit on its way (4)',
    );
    await slow;
    await appender.append([
      draft('tool_result', { step: 1, toolCallId: 'y', name: 'read', ok: true, content: [], latencyMs: 1 }),
    ]);
    assert.deepEqual(
      commits.map((c) => [c.types, c.expect]),
      [
        [['tool_result'], undefined],
        [['tool_call', 'tool_result'], 4],
      ],
    );
    assert.equal(appender.stale, false);
  });

  it('a held-back read is committed on its own after flushAfterMs when nothing else came', async () => {
    const { appender, commits } = harness();
    await appender.append([draft('tool_call', { step: 1, toolCallId: 'a', name: 'read', arguments: {} })], undefined, {
      defer: true,
      flushAfterMs: 10,
    });
    assert.equal(commits.length, 0);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.deepEqual(
      commits.map((c) => c.types),
      [['tool_call']],
    );
    appender.dispose();
  });

  it('append([]) commits what is held and nothing else; with nothing held it does not reach the store', async () => {
    const { appender, commits } = harness();
    assert.deepEqual(await appender.append([]), []);
    assert.equal(commits.length, 0);
    await appender.append([answer('x')], undefined, { defer: true });
    await appender.flush();
    assert.deepEqual(
      commits.map((c) => c.types),
      [['assistant_message']],
    );
    await appender.flush();
    assert.equal(commits.length, 1);
  });

  it('without deferral allowed, a deferred append is committed at once', async () => {
    const { appender, commits } = harness({ allowDeferral: false });
    await appender.append([answer('x')], undefined, { defer: true });
    assert.deepEqual(commits, [{ types: ['assistant_message'], patch: undefined, expect: undefined }]);
  });

  it(
    'a log that changed meanwhile makes the pass stale: the conflict ' +
      'is reported and every later append is refused before the store',
    async () => {
      const { appender, commits } = harness({ conflict: true });
      await appender.append([answer('x')], undefined, { defer: true });
      await assert.rejects(
        appender.append([
          draft('gate_decision', {
            step: 1,
            toolCallId: 'c',
            name: 'write',
            effect: 'write',
            decision: 'allowed',
            normalisations: [],
            injected: [],
          }),
        ]),
        (error: ToolgateError) => error.code === 'conflict' && /driven again from the log/.test(error.message),
      );
      assert.equal(appender.stale, true);
      await assert.rejects(
        appender.append([
          draft('run_failed', {
            error: { code: 'internal', message: 'x' },
            usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
            steps: 1,
          }),
        ]),
        /driven again from the log/,
      );
      assert.equal(commits.length, 1, 'the stale pass wrote nothing after the conflict');
    },
  );
  it(
    'with no commit on its way, an append commits within ' + 'the call; otherwise after the one before, in order',
    async () => {
      const { appender, commits } = harness({ delayMs: (types) => (types.includes('tool_call') ? 20 : 0) });
      const first = appender.append([draft('user_message', { text: 'hi' })]);
      assert.equal(commits.length, 1, 'committed within the call, not queued behind a microtask');
      await first;
      assert.deepEqual(
        commits.map((c) => c.types),
        [['user_message']],
      );
      const slow = appender.append([
        draft('tool_call', {
          step: 1,
          toolCallId: 'c1',
          name: 't',
          arguments: {},
          origin: { kind: 'local', server: 'local', tool: 't' },
        }),
      ]);
      const next = appender.append([draft('user_message', { text: 'after' })]);
      await Promise.all([slow, next]);
      assert.deepEqual(
        commits.map((c) => c.types),
        [['user_message'], ['tool_call'], ['user_message']],
        'the second waited for the slow one',
      );
    },
  );
});
