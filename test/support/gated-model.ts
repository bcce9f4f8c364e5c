// A model for tests of run scheduling: every answer waits until the test releases
// it (all waiting answers at once), and an abort ends the wait as it would a real
// adapter's request.
import type { ModelAdapter } from '../../src/core/index.ts';

export function gatedModel(text = 'answer'): ModelAdapter & { release: () => void; calls: number } {
  let open: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (open = resolve));
  const model = {
    id: 'gated:model',
    calls: 0,
    release: () => {
      open();
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    async generate(_request: unknown, options?: { signal?: AbortSignal }) {
      model.calls += 1;
      await new Promise<void>((resolve, reject) => {
        void gate.then(resolve);
        options?.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
      return { text, toolCalls: [], finishReason: 'stop' as const };
    },
  };
  return model;
}
