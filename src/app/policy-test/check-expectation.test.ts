import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReplayCall, ReplayCallChange, ReplayDiff, Run, RunEvent } from '../../core/index.ts';
import { compileCallCondition } from './call-condition.ts';
import { checkExpectation, factsOf, type ReplayedRun, type ToolRefs } from './check-expectation.ts';
import type { Expectation } from './policy-suite.ts';

const refs: ToolRefs = (name) => {
  const [server, tool] = name.includes('/') ? name.split('/') : ['power-exchange', name];
  return { server: server ?? '', tool: tool ?? name, exposedName: name };
};

function run(id: string, extra: Partial<Run> = {}): Run {
  return {
    id,
    status: 'completed',
    input: 'buy',
    model: 'openai:m',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    steps: 1,
    lastEventId: 0,
    ...extra,
  };
}

function call(id: string, extra: Partial<ReplayCall> = {}): ReplayCall {
  return { toolCallId: id, name: 'placeOrder', step: 1, decision: 'allowed', outcome: 'executed', ...extra };
}

function pair(before: ReplayCall | undefined, after: ReplayCall | undefined): ReplayCallChange {
  const kind = before === undefined ? 'added' : after === undefined ? 'missing' : 'changed';
  return { kind, changes: [], ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) };
}

function replayed(options: {
  id?: string;
  calls: ReplayCallChange[];
  run?: Partial<Run>;
  answer?: ReplayDiff['answer'];
  events?: RunEvent[];
}): ReplayedRun {
  const id = options.id ?? 'run_1';
  const diff: ReplayDiff = {
    of: id,
    calls: options.calls,
    answer: options.answer ?? { before: 'done', after: 'done', changed: false },
    status: { before: 'completed', after: 'completed' },
    changed: true,
    model: 'recorded',
  };
  return { run: run(id, options.run), diff, events: options.events ?? [] };
}

function check(expectation: Expectation, runs: ReplayedRun[]) {
  return checkExpectation({ expectation, runs, refs });
}

const ORDER = { userId: 'bob', side: 'BUY', symbol: 'DE-BASE-D+1' };

describe('checkExpectation', () => {
  it('noNewDenials: a call allowed (or executed) before and denied now fails, naming the run and the call', () => {
    const expectation: Expectation = { kind: 'noNewDenials', name: 'no new denials' };
    const allowedThenDenied = pair(
      call('c1', { arguments: { qty: 5 } }),
      call('c1', { decision: 'denied', outcome: 'not_run', reason: 'no orders today', arguments: { qty: 5 } }),
    );
    const approvedThenGone = pair(
      call('c2', { decision: 'approval_required', outcome: 'executed', step: 2 }),
      call('c2', { decision: 'not_found', outcome: 'not_run', step: 2 }),
    );
    const result = check(expectation, [replayed({ calls: [allowedThenDenied, approvedThenGone] })]);
    assert.equal(result.passed, false);
    assert.equal(result.checked, 2);
    assert.deepEqual(result.failures, [
      {
        runId: 'run_1',
        reason: 'allowed before, denied now (no orders today)',
        call: { toolCallId: 'c1', name: 'placeOrder', step: 1, arguments: { qty: 5 } },
      },
      {
        runId: 'run_1',
        reason: 'approval_required before, not_found now',
        call: { toolCallId: 'c2', name: 'placeOrder', step: 2 },
      },
    ]);
  });

  it('noNewDenials passes when what was refused before stays refused, and on added or missing calls', () => {
    const expectation: Expectation = { kind: 'noNewDenials', name: 'n' };
    const calls = [
      pair(
        call('a', { decision: 'denied', outcome: 'not_run' }),
        call('a', { decision: 'denied', outcome: 'not_run' }),
      ),
      pair(call('b'), call('b', { decision: 'approval_required', outcome: 'not_run' })),
      pair(undefined, call('c', { decision: 'denied', outcome: 'not_run' })),
      pair(call('d'), undefined),
    ];
    const result = check(expectation, [replayed({ calls })]);
    assert.equal(result.passed, true);
    assert.equal(result.checked, 1, 'only b was allowed before and replayed');
  });

  it('noNewApprovals: a call that ran freely and waits for a person now fails; one that waited before passes', () => {
    const expectation: Expectation = { kind: 'noNewApprovals', name: 'no new approvals' };
    const calls = [
      pair(call('a'), call('a', { decision: 'approval_required', outcome: 'not_run', policyRule: 'placeOrder' })),
      pair(
        call('b', { decision: 'approval_required' }),
        call('b', { decision: 'approval_required', outcome: 'recorded_result' }),
      ),
    ];
    const result = check(expectation, [replayed({ calls })]);
    assert.equal(result.passed, false);
    assert.deepEqual(
      result.failures.map((f) => [f.call?.toolCallId, f.reason]),
      [['a', 'allowed before, approval_required now']],
    );
  });

  it('a decision expectation with when: applies only to the calls the condition holds for', () => {
    const expectation: Expectation = {
      kind: 'decision',
      name: 'large orders wait',
      tool: 'power-exchange/placeOrder',
      when: compileCallCondition('args.qty * args.price > 10000'),
      decisions: ['approval_required'],
    };
    const small = call('small', { arguments: { ...ORDER, qty: 10, price: 50 }, outcome: 'recorded_result' });
    const large = call('large', { arguments: { ...ORDER, qty: 300, price: 50 }, outcome: 'recorded_result' });
    const largeHeld = call('held', {
      arguments: { ...ORDER, qty: 300, price: 50 },
      decision: 'approval_required',
      outcome: 'not_run',
    });
    const other = call('other', { name: 'getOrderBook', arguments: {} });
    const failing = check(expectation, [replayed({ calls: [small, large, other].map((c) => pair(c, c)) })]);
    assert.equal(failing.passed, false);
    assert.equal(failing.checked, 1);
    assert.deepEqual(failing.failures, [
      {
        runId: 'run_1',
        reason: 'allowed, expected approval_required',
        call: { toolCallId: 'large', name: 'placeOrder', step: 1, arguments: { ...ORDER, qty: 300, price: 50 } },
      },
    ]);
    const passing = check(expectation, [replayed({ calls: [small, largeHeld].map((c) => pair(c, c)) })]);
    assert.deepEqual([passing.passed, passing.checked], [true, 1]);
  });

  it('a when: condition that cannot be evaluated on a matching call is a failure that says how to guard it', () => {
    const expectation: Expectation = {
      kind: 'decision',
      name: 'n',
      tool: 'power-exchange/*',
      when: compileCallCondition('args.qty > 100'),
      decisions: ['denied'],
    };
    const result = check(expectation, [replayed({ calls: [pair(undefined, call('s', { name: 'getServerStats' }))] })]);
    assert.equal(result.passed, false);
    assert.match(result.failures[0]?.reason ?? '', /could not be evaluated on this call \(.*qty.*\); guard it, e\.g\./);
  });

  it("when: reads the run's tenant, user and context", () => {
    const expectation: Expectation = {
      kind: 'decision',
      name: 'n',
      tool: 'placeOrder',
      when: compileCallCondition('tenant == "globex" && user.id == "bob" && context.desk == "power"'),
      decisions: ['denied'],
    };
    const calls = [pair(undefined, call('a'))];
    const who = { tenantId: 'globex', userId: 'bob', context: { desk: 'power' } };
    assert.equal(check(expectation, [replayed({ calls, run: who })]).passed, false);
    assert.equal(check(expectation, [replayed({ calls, run: { ...who, tenantId: 'acme' } })]).checked, 0);
  });

  it('a list of decisions accepts any of them; a call of the replay only (added) is checked too', () => {
    const expectation: Expectation = {
      kind: 'decision',
      name: 'n',
      tool: 'placeOrder',
      decisions: ['denied', 'approval_required'],
    };
    const calls = [
      pair(undefined, call('a', { decision: 'approval_required', outcome: 'not_run' })),
      pair(call('b'), call('b', { decision: 'denied', outcome: 'not_run' })),
      pair(call('c'), undefined),
    ];
    assert.deepEqual((({ passed, checked }) => ({ passed, checked }))(check(expectation, [replayed({ calls })])), {
      passed: true,
      checked: 2,
    });
  });

  it('never: a call of the tenant to a matching tool that got through fails; other tenants are not checked', () => {
    const expectation: Expectation = {
      kind: 'never',
      name: 'globex never trades',
      tenant: 'globex',
      never: 'power-exchange/place*',
    };
    const calls = [
      pair(undefined, call('ran', { outcome: 'recorded_result' })),
      pair(undefined, call('would', { decision: 'approval_required', outcome: 'would_run' })),
      pair(undefined, call('held', { decision: 'approval_required', outcome: 'not_run' })),
      pair(undefined, call('read', { name: 'getOrderBook', outcome: 'recorded_result' })),
    ];
    const globex = check(expectation, [replayed({ calls, run: { tenantId: 'globex' } })]);
    assert.equal(globex.passed, false);
    assert.equal(globex.checked, 3);
    assert.deepEqual(
      globex.failures.map((f) => [f.call?.toolCallId, f.reason]),
      [
        ['ran', 'allowed, recorded_result'],
        ['would', 'approval_required, would_run'],
      ],
    );
    const acme = check(expectation, [replayed({ calls, run: { tenantId: 'acme' } })]);
    assert.deepEqual([acme.passed, acme.checked], [true, 0]);
  });

  it('never without a tenant checks every run, and a tool_call in the replay log the diff missed counts', () => {
    const expectation: Expectation = { kind: 'never', name: 'n', never: 'fs/*' };
    const sent: RunEvent = {
      id: 4,
      runId: 'replay_1',
      time: '2025-01-01T00:00:00.000Z',
      type: 'tool_call',
      data: {
        step: 2,
        toolCallId: 'w',
        name: 'write_file',
        arguments: { path: '/etc/x' },
        origin: { kind: 'mcp', server: 'fs', tool: 'write_file' },
      },
    };
    const result = check(expectation, [replayed({ calls: [], events: [sent] })]);
    assert.equal(result.passed, false);
    assert.deepEqual(result.failures, [
      {
        runId: 'run_1',
        reason: 'called in the replay',
        call: { toolCallId: 'w', name: 'write_file', step: 2, arguments: { path: '/etc/x' } },
      },
    ]);
  });

  it('answerUnchanged: fails on a run whose answer changed, quoting both', () => {
    const expectation: Expectation = { kind: 'answerUnchanged', name: 'answer unchanged' };
    const same = replayed({ id: 'run_same', calls: [] });
    const changed = replayed({
      id: 'run_changed',
      calls: [],
      answer: { before: 'bought 5 MWh', changed: true },
    });
    const result = check(expectation, [same, changed]);
    assert.equal(result.checked, 2);
    assert.deepEqual(result.failures, [
      { runId: 'run_changed', reason: 'the answer changed: "bought 5 MWh" → no answer' },
    ]);
  });

  it('every run is checked: a failure in a second run is reported with that run', () => {
    const expectation: Expectation = { kind: 'noNewDenials', name: 'n' };
    const ok = replayed({ id: 'run_ok', calls: [pair(call('a'), call('a'))] });
    const bad = replayed({
      id: 'run_bad',
      calls: [pair(call('b'), call('b', { decision: 'denied', outcome: 'not_run' }))],
    });
    const result = check(expectation, [ok, bad]);
    assert.deepEqual(
      result.failures.map((f) => f.runId),
      ['run_bad'],
    );
    assert.equal(result.checked, 2);
  });
});

describe('factsOf', () => {
  it("gives a `when:` the run's user and roles as the gate's conditions see them", () => {
    const settings = { ...baseSettings(), roles: ['trader'] };
    assert.deepEqual(factsOf(call('c1'), run('r1', { userId: 'alice', settings })).user, {
      id: 'alice',
      roles: ['trader'],
    });
    assert.deepEqual(factsOf(call('c1'), run('r2', { userId: 'bob' })).user, { id: 'bob', roles: [] });
    assert.equal(factsOf(call('c1'), run('r3')).user, null);
  });
});

function baseSettings(): NonNullable<Run['settings']> {
  return {
    maxSteps: 5,
    strategy: 'react',
    toolMode: 'native',
    parseRetries: 1,
    textToolCalls: 'auto',
    constrain: false,
    stream: false,
  };
}
