import { createOllamaAdapter } from '../../src/providers/ollama/ollama-adapter.ts';
import { httpHarness } from './model-adapter-harness.ts';
import { modelAdapterContract } from './model-adapter.contract.ts';

modelAdapterContract('ollama', () =>
  httpHarness({
    name: 'ollama',
    fixtures: 'ollama',
    stream: 'ndjson',
    status5xx: 500,
    create: ({ url, maxRetries }) =>
      createOllamaAdapter({ model: 'qwen2.5:7b', host: url, maxRetries, retryBaseDelayMs: 1 }),
    expected: {
      textUsage: { promptTokens: 20, completionTokens: 12, totalTokens: 32 },
      toolCallId: 'call_w2k9d7qa',
      parallelIds: ['call_k3b1x8zq', 'call_p0m2v7rd'],
      notFoundHint: /ollama pull qwen2\.5:7b/,
      streamErrorMessage: 'unexpected EOF',
      // Ollama parses calls on the server: one it cannot read is left in the text.
      brokenIn: 'text',
    },
  }),
);
