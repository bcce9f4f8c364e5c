// A config file and flags resolve into the options library users pass to
// createToolgate: the same object, and back to the same settings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../config/load-config.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
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
    tenants: { acme: { deny: ['crm/*'], models: ['openai:gpt-4o-mini'] } },
    redact: ['ssn'],
    server: { leaseMs: 4000 },
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

  it('a Toolgate opened from a config file is the one the same options make', async () => {
    const settings = resolveSettings(CONFIG, {}, {});
    const fromConfig = toolgateFrom(toolgateOptionsFromSettings(settings));
    try {
      assert.deepEqual(fromConfig.settings, settings);
      assert.deepEqual(fromConfig.policy.tools, { 'crm/delete*': { approval: 'required', inject: { userId: '{{user.id}}' } } });
      assert.deepEqual(fromConfig.toolHealth().map((h) => h.name), ['crm', 'search']);
      assert.deepEqual(fromConfig.modelAccess('openai:gpt-4o', 'acme').allowed, false, 'tenant model rules carried over');
    } finally {
      await fromConfig.close();
    }
  });
});
