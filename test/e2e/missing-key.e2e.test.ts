// A model key that is not set is named, for every provider that reads one from the
// environment: real `toolgate run` processes, the providers' hosted APIs (which are
// never reached: the run stops before sending) and mock servers that answer 401.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROVIDER_ENV } from '../../src/config/providers.ts';
import { startMockAnthropic } from '../support/mock-anthropic-server.ts';
import { startMockOpenAI } from '../support/mock-openai-server.ts';
import { runCli } from '../support/processes.ts';

const WITH_KEYS = Object.entries(PROVIDER_ENV).flatMap(([provider, vars]) =>
  vars.apiKey === undefined ? [] : [{ provider, variable: vars.apiKey }],
);
const MOCKS: Record<
  string,
  () => Promise<{ url: string; close: () => Promise<void>; requests: { headers: Record<string, unknown> }[] }>
> = {
  openai: () =>
    startMockOpenAI({ responses: [{ status: 401, body: { error: { message: 'You did not provide an API key.' } } }] }),
  anthropic: () =>
    startMockAnthropic({
      responses: [
        {
          status: 401,
          body: { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } },
        },
      ],
    }),
};

describe('a missing model key is named', () => {
  it('every built-in provider with a key variable is covered here', () => {
    assert.deepEqual(WITH_KEYS.map((p) => p.provider).sort(), Object.keys(MOCKS).sort());
  });

  for (const { provider, variable } of WITH_KEYS) {
    it(`${provider}: the hosted API without ${variable} fails at once, naming it`, async () => {
      const { code, stderr } = await runCli(['run', 'hi', '--model', `${provider}:some-model`, '--store', 'memory:']);
      assert.equal(code, 1, stderr);
      assert.match(
        stderr,
        new RegExp(
          `run failed \\(model_auth\\): ${provider}:some-model needs an API key .* ${variable} ` +
            `is not set\\. Set ${variable}, --api-key or providers\\.${provider}\\.apiKey`,
        ),
      );
      assert.doesNotMatch(stderr, /connection|ENOTFOUND|gave up/);
    });

    it(`${provider}: a server that answers 401 to a request without a key says ${variable} is not set`, async () => {
      const mock = await (MOCKS[provider] ?? assert.fail(`no mock for ${provider}`))();
      try {
        const { code, stderr } = await runCli([
          'run',
          'hi',
          '--model',
          `${provider}:some-model`,
          '--base-url',
          mock.url,
          '--store',
          'memory:',
        ]);
        assert.equal(code, 1, stderr);
        assert.match(
          stderr,
          new RegExp(
            `run failed \\(model_auth\\): .*rejected the credentials \\(HTTP 401: .*\\); no API key was ` +
              `sent: ${variable} is not set; set ${variable}, --api-key or providers\\.${provider}\\.apiKey`,
          ),
        );
        assert.equal(mock.requests.length, 1, 'a 401 is not retried');
      } finally {
        await mock.close();
      }
    });
  }
});
