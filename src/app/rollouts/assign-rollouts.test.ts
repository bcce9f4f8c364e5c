import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError, type RunSettings } from '../../core/index.ts';
import { applyRollouts, assignRollouts, rolloutBucket, type RolloutContext } from './assign-rollouts.ts';
import { rolloutPlans, type RolloutPlan } from './rollout-plan.ts';

const plansOf = (rollout: NonNullable<Parameters<typeof rolloutPlans>[0]['rollout']>): RolloutPlan[] =>
  rolloutPlans({ rollout });
const context = (over: Partial<RolloutContext> = {}): RolloutContext => ({ named: new Set(), ...over });
const none = (): boolean => false;

describe('assignRollouts', () => {
  it('treats about `percent` of 10 000 threads, the same arm for every run of a thread', () => {
    const plans = plansOf({ 'router.live': { percent: 10 }, strategy: { percent: 50, value: 'plan' } });
    const treated = { 'router.live': 0, strategy: 0 };
    for (let i = 0; i < 10_000; i++) {
      const threadId = `thread-${i}`;
      const first = assignRollouts({ plans, context: context({ threadId }), isRolledBack: none });
      const again = assignRollouts({ plans, context: context({ threadId }), isRolledBack: none });
      assert.deepEqual(again, first, 'sticky per thread');
      for (const arm of first.arms) if (arm.arm === 'treated') treated[arm.name as keyof typeof treated] += 1;
    }
    // Binomial standard deviations: 30 for 10 %, 50 for 50 %; 4 of them either side.
    assert.ok(Math.abs(treated['router.live'] - 1000) < 120, `router.live treated ${treated['router.live']}`);
    assert.ok(Math.abs(treated.strategy - 5000) < 200, `strategy treated ${treated.strategy}`);
  });

  it('splits each rollout independently (by name and thread), and the bucket is 0 to under 100', () => {
    let both = 0;
    for (let i = 0; i < 2000; i++) {
      const a = rolloutBucket('router.live', `t${i}`);
      const b = rolloutBucket('strategy', `t${i}`);
      assert.ok(a >= 0 && a < 100 && b >= 0 && b < 100);
      if (a < 50 && b < 50) both += 1;
    }
    assert.ok(Math.abs(both - 500) < 90, `both treated ${both}`);
  });

  it('draws at random for runs without a thread; 0 % treats none and 100 % all', () => {
    const [plan] = plansOf({ 'router.live': { percent: 30 } });
    assert.ok(plan !== undefined);
    const arm = (random: number) =>
      assignRollouts({ plans: [plan], context: context(), isRolledBack: none, random: () => random }).arms[0]?.arm;
    assert.equal(arm(0.29), 'treated');
    assert.equal(arm(0.31), 'control');
    const all = plansOf({ 'router.live': { percent: 100 }, 'todo.enabled': { percent: 0 } });
    for (let i = 0; i < 200; i++) {
      const { arms } = assignRollouts({ plans: all, context: context({ threadId: `x${i}` }), isRolledBack: none });
      assert.deepEqual(arms, [
        { name: 'router.live', arm: 'treated' },
        { name: 'todo.enabled', arm: 'control' },
      ]);
    }
  });

  it("takes part only for the rollout's tenants, not when the request names the setting, not once rolled back", () => {
    const plans = plansOf({ strategy: { percent: 100, value: 'plan', tenants: ['acme'] } });
    const assign = (over: Partial<RolloutContext>, rolledBack = false) =>
      assignRollouts({ plans, context: context({ threadId: 't', ...over }), isRolledBack: () => rolledBack }).arms;
    assert.deepEqual(assign({ tenantId: 'acme' }), [{ name: 'strategy', arm: 'treated' }]);
    assert.deepEqual(assign({ tenantId: 'globex' }), []);
    assert.deepEqual(assign({}), []);
    assert.deepEqual(assign({ tenantId: 'acme', named: new Set(['strategy']) }), []);
    assert.deepEqual(assign({ tenantId: 'acme' }, true), []);
  });
});

describe('applyRollouts', () => {
  const base: RunSettings = {
    maxSteps: 8,
    strategy: 'react',
    toolMode: 'native',
    parseRetries: 1,
    textToolCalls: 'auto',
    constrain: false,
    stream: true,
    guard: { maxToolCalls: 10 },
  };

  it('applies each treated value to its setting and records every arm', () => {
    const plans = plansOf({
      'router.live': { percent: 100 },
      strategy: { percent: 100, value: 'plan' },
      'todo.enabled': { percent: 100, value: false },
      'guard.maxToolCalls': { percent: 100, value: 1 },
      'guard.onBreach': { percent: 0, value: 'degrade' },
    });
    const assignment = assignRollouts({ plans, context: context({ threadId: 't' }), isRolledBack: none });
    const settings = applyRollouts(base, assignment);
    assert.deepEqual(settings.router, { live: true });
    assert.equal(settings.strategy, 'plan');
    assert.deepEqual(settings.todo, { enabled: false, remindAfter: 3 });
    assert.deepEqual(settings.guard, { maxToolCalls: 1 });
    assert.deepEqual(settings.rollouts, [
      { name: 'router.live', arm: 'treated' },
      { name: 'strategy', arm: 'treated' },
      { name: 'todo.enabled', arm: 'treated' },
      { name: 'guard.maxToolCalls', arm: 'treated' },
      { name: 'guard.onBreach', arm: 'control' },
    ]);
    assert.equal(applyRollouts(base, { arms: [], treated: [] }), base, 'no rollout: the settings untouched');
  });
});

describe('rolloutPlans', () => {
  const invalid = (pattern: RegExp) => (error: unknown) =>
    error instanceof ToolgateError && error.code === 'config_invalid' && pattern.test(error.message);

  it('defaults booleans to true and minRuns to 20; the fingerprint follows the config', () => {
    const [plan] = plansOf({ 'router.live': { percent: 10, rollback: { maxFailureRate: 0.2, windowMinutes: 30 } } });
    assert.deepEqual(plan?.apply, { setting: 'router.live', value: true });
    assert.deepEqual(plan?.rollback, { maxFailureRate: 0.2, minRuns: 20, windowMs: 1_800_000 });
    const [same] = plansOf({ 'router.live': { rollback: { windowMinutes: 30, maxFailureRate: 0.2 }, percent: 10 } });
    const [other] = plansOf({ 'router.live': { percent: 20, rollback: { maxFailureRate: 0.2, windowMinutes: 30 } } });
    assert.equal(same?.fingerprint, plan?.fingerprint);
    assert.notEqual(other?.fingerprint, plan?.fingerprint);
  });

  it('refuses a missing or ill-typed value, naming the key with an example', () => {
    assert.throws(
      () => plansOf({ strategy: { percent: 10 } }),
      invalid(/rollout\.strategy\.value: .*no value.*value: plan/),
    );
    assert.throws(
      () => plansOf({ strategy: { percent: 10, value: 'fast' } }),
      invalid(/rollout\.strategy\.value: expected one of react, plan, reflect, auto, got "fast"/),
    );
    assert.throws(
      () => plansOf({ 'guard.maxToolCalls': { percent: 10, value: 0.5 } }),
      invalid(/rollout\.guard\.maxToolCalls\.value: expected a positive integer, got 0\.5; e\.g\. rollout: /),
    );
    assert.throws(() => plansOf({ 'router.live': { percent: 10, value: 'yes' } }), invalid(/true or false/));
    assert.throws(() => plansOf({ 'guard.onBreach': { percent: 10, value: 'stop' } }), invalid(/"fail" or "degrade"/));
  });

  it('refuses a rollback window longer than the live statistics hold', () => {
    const rollout = { 'router.live': { percent: 10, rollback: { maxFailureRate: 0.2, windowMinutes: 120 } } };
    assert.throws(
      () => rolloutPlans({ rollout }),
      invalid(/rollback\.windowMinutes: 120 is longer than the live statistics' window \(stats\.windowMinutes: 60\)/),
    );
    assert.equal(rolloutPlans({ rollout, stats: { windowMinutes: 120 } }).length, 1);
  });
});
