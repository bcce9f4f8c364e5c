import { createOpenAIAdapter } from '../../src/providers/openai/openai-adapter.ts';
import { httpHarness } from './model-adapter-harness.ts';
import { modelAdapterContract } from './model-adapter.contract.ts';

modelAdapterContract('openai', () =>
  httpHarness({
    name: 'openai',
    fixtures: 'openai',
    stream: 'sse',
    status5xx: 503,
    create: ({ url, maxRetries }) =>
      createOpenAIAdapter({
        model: 'gpt-4o-mini',
        baseUrl: `${url}/v1`,
        apiKey: 'sk-test',
        maxRetries,
        retryBaseDelayMs: 1,
      }),
    expected: {
      textUsage: { promptTokens: 20, completionTokens: 12, totalTokens: 32, cacheReadTokens: 5 },
      toolCallId: 'call_Qm4nB7vX2kLp9sWd3Rt6YhJe',
      parallelIds: ['call_Xq3PmWvB7nLk2sJd9Rt4YhUe', 'call_Ze5cV8bN1mQw4xTr7Yk2LpHs'],
      notFoundHint: /model "gpt-4o-mini" or its endpoint was not found.*--base-url ends at the API root/,
      streamErrorMessage: 'Provider disconnected unexpectedly',
      brokenIn: 'native',
    },
  }),
);
