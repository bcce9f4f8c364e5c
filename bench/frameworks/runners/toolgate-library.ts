// toolgate as a library: createToolgate and toolgate.run, the store chosen by
// `store` (memory: or a SQLite file); the answer text is observed as the
// run's assistant_delta events.
import type { Toolgate } from '../../../src/index.ts';
import type { Runner, RunnerOptions } from '../runner.ts';
import { PROMPT } from '../workload.ts';

export function libraryRunner(
  toolgate: Toolgate,
  options: RunnerOptions,
  cleanup: () => void = () => undefined,
): Runner {
  return {
    async run(onText) {
      const run = await toolgate.run({
        input: PROMPT,
        ...(options.stream
          ? {
              onEvent: (event) => {
                if (event.type === 'assistant_delta') onText();
              },
            }
          : {}),
      });
      if (run.status !== 'completed')
        throw new Error(`run ${run.id} ended ${run.status}: ${JSON.stringify(run.error)}`);
      return run.output ?? '';
    },
    async close() {
      await toolgate.close();
      cleanup();
    },
  };
}
