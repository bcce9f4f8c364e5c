// The model response limits in toolgate.yaml reach the adapter: a runaway endpoint
// fails its run with model_error naming the key, and the process carries on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseConfig } from '../config/load-config.ts';
import { resolveSettings } from '../config/resolve-settings.ts';
import { startMockOpenAI, type MockOpenAI } from '../../test/support/mock-openai-server.ts';
import { Toolgate } from './toolgate.ts';

describe('model response limits from the config', () => {
  let mock: MockOpenAI;
  before(async () => (mock = await startMockOpenAI()));
  after(() => mock.close());

  it(
    'providers.openai.maxStreamBytes ends an endless stream ' + 'with model_error naming the key; the next run works',
    async () => {
      const config = parseConfig(
        {
          model: 'openai:mock',
          providers: { openai: { baseUrl: mock.url, apiKey: 'k', maxStreamBytes: 65536, maxRetries: 0 } },
        },
        { source: 'toolgate.yaml', env: {} },
      );
      const toolgate = new Toolgate({ settings: resolveSettings(config, {}, {}) });
      try {
        mock.enqueue({ endlessStream: true }, { text: 'fine' });
        const failed = await toolgate.run({ input: 'go' });
        assert.equal(failed.status, 'failed');
        assert.equal(failed.error?.code, 'model_error');
        assert.match(failed.error?.message ?? '', /providers\.openai\.maxStreamBytes/);
        const ok = await toolgate.run({ input: 'again' });
        assert.equal(ok.output, 'fine');
      } finally {
        await toolgate.close();
      }
    },
  );
});
