// Replay: stored runs driven again under a new configuration, without side effects, and what changed (docs/replay.md).
export { decisionDiff, type DecisionDiffInput } from './decision-diff.ts';
export {
  loadRuns,
  readAllEvents,
  storeReader,
  type LoadedRun,
  type LoadedRuns,
  type LoadRunsOptions,
  type RunReader,
} from './load-runs.ts';
export type { RecordedRun } from './recorded-run.ts';
export { NOT_DECIDED_REASON, REPLAY_USER } from './replay-approvals.ts';
export { callsOf, type PlacedCall } from './replay-calls.ts';
export { REPLAY_ENDED, ReplayModel, type Divergence, type ReplayModelOptions } from './replay-model.ts';
export { replayRun, type ReplayResult, type ReplayRunOptions } from './replay-run.ts';
export { ReplayToolSource, WOULD_RUN, type ReplayToolSourceOptions } from './replay-tool-source.ts';
export { EXPORT_VERSION, eventOf, exportLines, headerRun, parseLine, readExport } from './run-export.ts';
export { saveReplay } from './save-replay.ts';
