// The runs API's service for the SSE benchmarks: only reading a run is needed (the events route checks the run
// exists); everything else refuses, so a benchmark that reached it by mistake fails loudly.
import type { Caller, Run, RunService, RunStore } from '../../src/core/index.ts';

export function readOnlyService(store: Pick<RunStore, 'getRun'>): RunService {
  const unsupported = () => Promise.reject(new Error('not used by the benchmark'));
  return {
    startRun: unsupported,
    getRun: (_caller: Caller, id: string): Promise<Run | undefined> => store.getRun(id),
    listRuns: unsupported,
    submitInput: unsupported,
    cancelRun: unsupported,
    forkRun: unsupported,
    listTools: async () => ({ tools: [], servers: [] }),
    listModels: async () => ({ models: [] }),
    ready: async () => ({ ready: true }),
  };
}
