// A config file and flags resolve into the options library users pass to
// createToolgate: the same object, and back to the same settings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolgateError } from '../core/index.ts';
import { parseConfig } from '../config/load-config.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { checkToolgateOptions } from './check-toolgate-options.ts';
import { sortToolEntries } from './sort-tool-entries.ts';
import { toolgateFrom } from './create-toolgate.ts';
import { settingsFromOptions, toolgateOptionsFromSettings } from './toolgate-options.ts';

const CONFIG = parseConfig(
  {
    model: 'openai:gpt-4o-mini',
    models: ['openai:*'],
    providers: { openai: { baseUrl: 'http://127.0.0.1:11434/v1', apiKey: 'k', maxRetries: 1 } },
    servers: {
      crm: { command: 'node', args: ['crm.js'], env: { LOG: 'debug' }, cwd: '/srv', timeoutMs: 5000 },
      search: { url: 'http://127.0.0.1:3000/mcp', headers: { authorization: 'Bearer x' } },
    },
    maxSteps: 7,
    systemPrompt: 'Be brief.',
    toolTimeoutMs: 9000,
    stream: false,
    toolMode: 'auto',
    constrain: true,
    parseRetries: 2,
    textToolCalls: 'never',
    tools: { 'crm/delete*': { approval: 'required', inject: { userId: '{{user.id}}' } } },
    tenants: { acme: { deny: ['crm/*'], models: ['openai:gpt-4o-mini'], guard: { maxToolCalls: 3 } } },
    redact: ['ssn'],
    server: { leaseMs: 4000 },
    strategy: 'plan',
    guard: { maxToolCalls: 10, maxCostUsd: 0.5, onBreach: 'degrade' },
    prices: { 'openai:*': { inputPerMTok: 1, outputPerMTok: 2 } },
    plan: { approval: 'step', maxReplans: 1 },
    todo: { enabled: true, remindAfter: 4 },
    threads: { maxTokens: 4000 },
  },
  { env: {} },
);

describe('config file and flags → createToolgate options', () => {
  it('the options hold everything a Toolgate reads, and resolve back to the same settings', () => {
    const settings = resolveSettings(CONFIG, { maxSteps: 9 }, {});
    const options = toolgateOptionsFromSettings(settings);
    assert.deepEqual(
      options.tools?.map((t) => ('name' in t ? t.name : '?')),
      ['crm', 'search'],
    );
    assert.equal(options.maxSteps, 9, 'flags are in');
    const { servers } = sortToolEntries(options.tools ?? []);
    assert.deepEqual(settingsFromOptions(options, servers), settings);
  });

  it(
    'strategy, guard, prices, plan, todo and threads ' + 'are checked like the config file, with option paths',
    async () => {
      await assert.rejects(
        checkToolgateOptions({
          strategy: 'planner' as never,
          guard: { maxToolCall: 1 } as never,
          todo: { remindAfter: -1 },
          policy: { tenants: { acme: { guard: { onBreach: 'explode' as never } } } },
        }),
        (error: Error) => {
          assert.match(error.message, /strategy: .*"react"\|"plan"\|"reflect"\|"auto"|strategy: Invalid option/);
          assert.match(error.message, /guard\.maxToolCall: .*did you mean "maxToolCalls"/);
          assert.match(error.message, /todo\.remindAfter: /);
          assert.match(error.message, /policy\.tenants\.acme\.guard\.onBreach: /);
          return true;
        },
      );
    },
  );

  it("a run takes the tenant's guard over the defaults, and the price of its model", async () => {
    const settings = resolveSettings(CONFIG, {}, {});
    const toolgate = toolgateFrom({ ...toolgateOptionsFromSettings(settings), tools: [] });
    try {
      const acme = await toolgate.newRun({ input: 'x', tenantId: 'acme' });
      assert.deepEqual(acme.settings.guard, { maxToolCalls: 3, maxCostUsd: 0.5, onBreach: 'degrade' });
      assert.deepEqual(acme.settings.price, { inputPerMTok: 1, outputPerMTok: 2 });
      assert.equal(acme.settings.strategy, 'plan');
      assert.deepEqual(acme.settings.plan, { approval: 'step', maxReplans: 1 });
      assert.equal(acme.settings.historyMaxTokens, 4000);
      const other = await toolgate.newRun({ input: 'x', tenantId: 'globex', strategy: 'reflect', todo: false });
      assert.equal(other.settings.guard?.maxToolCalls, 10);
      assert.equal(other.settings.strategy, 'reflect');
      assert.equal(other.settings.todo?.enabled, false);
      await assert.rejects(
        toolgate.newRun({ input: 'x', strategy: 'nope' }),
        /unknown strategy "nope"; known strategies: react, plan, reflect, auto/,
      );
      // JavaScript callers: a bare string or a missing input is refused before any run exists.
      await assert.rejects(
        toolgate.run('Price for DE-LU?' as never),
        (error: ToolgateError) =>
          error.code === 'usage' &&
          /toolgate\.run\(\{ input: .*a string \(pass it as \{ input: … \}\)/.test(error.message),
      );
      await assert.rejects(toolgate.newRun({ prompt: 'x' } as never), /got an object without input/);
      await assert.rejects(toolgate.newRun({ input: ['x'] } as never), /got input of type array/);
      assert.deepEqual((await toolgate.store.listRuns()).runs, []);
    } finally {
      await toolgate.close();
    }
  });

  it('a Toolgate opened from a config file is the one the same options make', async () => {
    const settings = resolveSettings(CONFIG, {}, {});
    const fromConfig = toolgateFrom(toolgateOptionsFromSettings(settings));
    try {
      assert.deepEqual(fromConfig.settings, settings);
      assert.deepEqual(fromConfig.policy.tools, {
        'crm/delete*': { approval: 'required', inject: { userId: '{{user.id}}' } },
      });
      assert.deepEqual(
        fromConfig.toolHealth().map((h) => h.name),
        ['crm', 'search'],
      );
      assert.deepEqual(
        fromConfig.modelAccess('openai:gpt-4o', 'acme').allowed,
        false,
        'tenant model rules carried over',
      );
    } finally {
      await fromConfig.close();
    }
  });
});
