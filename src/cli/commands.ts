import type { CommandSpec } from './command-spec.ts';
import type { CliIO } from './cli-io.ts';
import { RUN_SPEC } from './specs/run-spec.ts';
import { RUNS_SPEC } from './specs/runs-spec.ts';
import { SERVE_SPEC } from './specs/serve-spec.ts';
import { TOOLS_SPEC } from './specs/tools-spec.ts';
import { PARSE_SPEC } from './specs/parse-spec.ts';
import { DEMO_SPEC } from './specs/demo-spec.ts';
import { EVAL_SPEC } from './specs/eval-spec.ts';
import { MIGRATE_SPEC } from './specs/migrate-spec.ts';
import { GATEWAY_SPEC } from './specs/gateway-spec.ts';
import { POLICY_SPEC } from './specs/policy-spec.ts';
import { REPLAY_SPEC } from './specs/replay-spec.ts';

export type CommandMain = (args: readonly string[], io: CliIO) => Promise<number>;

export interface Command {
  spec: CommandSpec;
  /** Loaded only when the command runs: `--help`, `--version` and typos stay fast. */
  load: () => Promise<CommandMain>;
}

export const COMMANDS: readonly Command[] = [
  { spec: RUN_SPEC, load: async () => (await import('./run-command.ts')).runCommand },
  { spec: RUNS_SPEC, load: async () => (await import('./runs-command.ts')).runsCommand },
  { spec: SERVE_SPEC, load: async () => (await import('./serve-command.ts')).serveCommand },
  { spec: GATEWAY_SPEC, load: async () => (await import('./gateway-command.ts')).gatewayCommand },
  { spec: TOOLS_SPEC, load: async () => (await import('./tools-command.ts')).toolsCommand },
  { spec: PARSE_SPEC, load: async () => (await import('./parse-command.ts')).parseCommand },
  { spec: DEMO_SPEC, load: async () => (await import('./demo-command.ts')).demoCommand },
  { spec: EVAL_SPEC, load: async () => (await import('./eval-command.ts')).evalCommand },
  { spec: REPLAY_SPEC, load: async () => (await import('./replay-command.ts')).replayCommand },
  { spec: POLICY_SPEC, load: async () => (await import('./policy-command.ts')).policyCommand },
  { spec: MIGRATE_SPEC, load: async () => (await import('./migrate-command.ts')).migrateCommand },
];
