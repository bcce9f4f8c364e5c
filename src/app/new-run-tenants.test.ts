// Tenant settings and rollouts as a new run gets them: request over tenant over config, treated values applied.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolgateError } from '../core/index.ts';
import { parseConfig } from '../config/load-config.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { toolgateFrom } from './create-toolgate.ts';
import { toolgateOptionsFromSettings } from './toolgate-options.ts';
import type { Toolgate } from './toolgate.ts';

function toolgateWith(config: Record<string, unknown>): Toolgate {
  const parsed = parseConfig({ model: 'openai:gpt-4o-mini', ...config }, { source: 'test.yaml' });
  const settings = resolveSettings(parsed, {}, {});
  return toolgateFrom({ ...toolgateOptionsFromSettings(settings), tools: [] });
}

describe('tenant settings of a new run', () => {
  it("takes the tenant's strategy, router.live and todo over the config's, and the request's over both", async () => {
    const toolgate = toolgateWith({
      strategy: 'react',
      router: { live: false },
      todo: { enabled: false, remindAfter: 4 },
      tenants: {
        acme: { strategy: 'auto', router: { live: true }, todo: { enabled: true }, guard: { maxToolCalls: 2 } },
        '*': { strategy: 'plan' },
      },
    });
    try {
      const acme = await toolgate.newRun({ input: 'x', tenantId: 'acme' });
      assert.equal(acme.settings.strategy, 'auto');
      assert.deepEqual(acme.settings.router, { live: true });
      assert.deepEqual(acme.settings.todo, { enabled: true, remindAfter: 4 });
      assert.equal(acme.settings.guard?.maxToolCalls, 2);
      const named = await toolgate.newRun({ input: 'x', tenantId: 'acme', strategy: 'reflect', todo: false });
      assert.equal(named.settings.strategy, 'reflect');
      assert.deepEqual(named.settings.todo, { enabled: false, remindAfter: 4 });
      const other = await toolgate.newRun({ input: 'x', tenantId: 'globex' });
      assert.equal(other.settings.strategy, 'plan', 'the "*" tenant rule');
      assert.deepEqual(other.settings.router, { live: false });
      assert.equal(other.settings.rollouts, undefined);
    } finally {
      await toolgate.close();
    }
  });

  it('leaves router out of the settings when nothing configures it', async () => {
    const toolgate = toolgateWith({});
    try {
      assert.equal((await toolgate.newRun({ input: 'x' })).settings.router, undefined);
    } finally {
      await toolgate.close();
    }
  });
});

describe('rollouts of a new run', () => {
  it("treats the rollout's share of its tenants' threads, the same arm per thread, others untouched", async () => {
    const toolgate = toolgateWith({
      tenants: { acme: { guard: { maxToolCalls: 5 } } },
      rollout: { 'guard.maxToolCalls': { percent: 50, value: 1, tenants: ['acme'] }, 'router.live': { percent: 100 } },
    });
    try {
      let treated = 0;
      for (let i = 0; i < 400; i++) {
        const run = await toolgate.newRun({ input: 'x', tenantId: 'acme', threadId: `t${i}` });
        const again = await toolgate.newRun({ input: 'y', tenantId: 'acme', threadId: `t${i}` });
        assert.deepEqual(again.settings.rollouts, run.settings.rollouts);
        const arm = run.settings.rollouts?.find((r) => r.name === 'guard.maxToolCalls')?.arm;
        assert.equal(run.settings.guard?.maxToolCalls, arm === 'treated' ? 1 : 5);
        assert.deepEqual(run.settings.router, { live: true });
        if (arm === 'treated') treated += 1;
      }
      assert.ok(treated > 150 && treated < 250, `treated ${treated} of 400`);
      const globex = await toolgate.newRun({ input: 'x', tenantId: 'globex', threadId: 't1' });
      assert.deepEqual(globex.settings.rollouts, [{ name: 'router.live', arm: 'treated' }]);
      assert.equal(globex.settings.guard?.maxToolCalls, undefined);
    } finally {
      await toolgate.close();
    }
  });

  it('an explicit strategy takes no part in a strategy rollout', async () => {
    const toolgate = toolgateWith({ rollout: { strategy: { percent: 100, value: 'plan' } } });
    try {
      const auto = await toolgate.newRun({ input: 'x' });
      assert.equal(auto.settings.strategy, 'plan');
      const named = await toolgate.newRun({ input: 'x', strategy: 'react' });
      assert.equal(named.settings.strategy, 'react');
      assert.equal(named.settings.rollouts, undefined);
    } finally {
      await toolgate.close();
    }
  });

  it('a rollout value of the wrong type is a config error when toolgate is created', () => {
    assert.throws(
      () => toolgateWith({ rollout: { 'guard.maxToolCalls': { percent: 10, value: 'one' } } }),
      (error: unknown) =>
        error instanceof ToolgateError &&
        error.code === 'config_invalid' &&
        /rollout\.guard\.maxToolCalls\.value: expected a positive integer, got "one"/.test(error.message),
    );
  });
});
