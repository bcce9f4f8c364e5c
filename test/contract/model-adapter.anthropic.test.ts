import { createAnthropicAdapter } from '../../src/providers/anthropic/anthropic-adapter.ts';
import { httpHarness } from './model-adapter-harness.ts';
import { modelAdapterContract } from './model-adapter.contract.ts';

modelAdapterContract('anthropic', () =>
  httpHarness({
    name: 'anthropic',
    fixtures: 'anthropic',
    stream: 'sse',
    status5xx: 529,
    create: ({ url, maxRetries }) =>
      createAnthropicAdapter({
        model: 'claude-sonnet-4-5',
        baseUrl: url,
        apiKey: 'sk-ant-test',
        maxRetries,
        retryBaseDelayMs: 1,
      }),
    expected: {
      // input_tokens is the uncached part; toolgate counts every input token, and says how many were cache reads and
      // writes.
      textUsage: { promptTokens: 28, completionTokens: 12, totalTokens: 40, cacheReadTokens: 5, cacheWriteTokens: 3 },
      toolCallId: 'toolu_01A09q90qw90lq917835lq9',
      parallelIds: ['toolu_01T1x1fJ34qAmk2tNTrN7Up6', 'toolu_01MqJ9e1u9sHn7cTzXb1nB2w'],
      notFoundHint: /model "claude-sonnet-4-5" was not found.*without \/v1/,
      streamErrorMessage: 'Overloaded',
      brokenIn: 'native',
    },
  }),
);
