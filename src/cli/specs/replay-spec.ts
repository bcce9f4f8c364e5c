import type { CommandSpec } from '../command-spec.ts';
import { JSON_FLAG } from './shared-flags.ts';

export const REPLAY_SPEC = {
  name: 'replay',
  summary: 'replay stored runs under a new configuration, without side effects, and show what would have changed',
  usage: [
    'replay <run-id>... [--config <file>] [--policy <file>] [--store <store> | --url <URL> [--api-key <key>]] ' +
      '[--live-model] [--allow-reads] [--save] [--json]',
    'replay --from <runs.jsonl>... [--config <file>] [--policy <file>] [--json]',
  ],
  details:
    'Each run is driven again under the configuration: the recorded model turns are fed back and re-parsed with\n' +
    'the current parser settings; the gate decides every call under the current policy; a call gets its recorded\n' +
    'result (same tool, same normalised arguments), or — when the run has none, e.g. the policy now lets it\n' +
    'through — it is NOT executed and shown as "would run". Approvals are decided as the original decided them\n' +
    '(else rejected). Nothing is written to the original runs; no tool that changes anything is ever called.\n\n' +
    'Output: per run, each call whose decision, arguments, injected values or outcome changed, calls the replay\n' +
    'parsed that the original did not (added) or the reverse (missing), and whether the answer changed. See\n' +
    'docs/replay.md.\n\n' +
    'Exit codes: 0 every run was replayed (whatever changed), 1 a run could not be found or replayed (the others\n' +
    'are), 2 usage or configuration error.',
  flags: {
    config: {
      type: 'string',
      value: 'file',
      description:
        'The new configuration: policy, parsing, strategy, system prompt, tool servers (listed, never called).\n' +
        'Default: toolgate.yaml, toolgate.yml or toolgate.json in the working directory, if one exists.',
      example: '--config ./next/toolgate.yaml',
    },
    policy: {
      type: 'string',
      value: 'file',
      description:
        "A YAML or JSON file with tools: and tenants: that replaces the configuration's policy, so a policy\n" +
        'change can be tried alone.',
      example: '--policy ./stricter-policy.yaml',
    },
    from: {
      type: 'string',
      multiple: true,
      value: 'file',
      description: 'Replay the runs of a JSONL export (`toolgate runs export`) instead of, or beside, run ids.',
      example: '--from runs.jsonl',
    },
    store: {
      type: 'string',
      value: 'sqlite:<file>',
      description:
        'The store the runs are read from (and --save writes to). Default: runs.db in your data directory, as for\n' +
        '`toolgate runs`. Not together with --url.',
      example: '--store sqlite:./data/toolgate.db',
    },
    url: {
      type: 'string',
      value: 'URL',
      description: 'Read the runs from a toolgate server instead. Default: TOOLGATE_URL, if set.',
      example: '--url http://127.0.0.1:8787',
    },
    'api-key': {
      type: 'string',
      value: 'key',
      description: "The server's API key (sent as a Bearer token). Default: TOOLGATE_API_KEY.",
      example: '--api-key "$TOOLGATE_API_KEY"',
    },
    'live-model': {
      type: 'boolean',
      description:
        'From the first point where the replay differs from the original (another system prompt, strategy or tool\n' +
        'result), ask the configured model instead of ending the replay there. Tools still never run (see\n' +
        '--allow-reads).',
    },
    'allow-reads': {
      type: 'boolean',
      description: 'Run calls to read tools that have no recorded result for real. Writes never run.',
    },
    save: {
      type: 'boolean',
      description:
        'Store each replay in the local store as a new run (metadata replayOf: <run-id>) with a replay_compared\n' +
        'event, for the console. Not with --url or --from.',
    },
    json: { ...JSON_FLAG, description: 'Print an array of decision diffs (ReplayDiff) as JSON.' },
    verbose: {
      type: 'boolean',
      description: "Print the MCP servers' stderr (their tools are listed, never called), prefixed with the name.",
    },
  },
  examples: [
    'replay run_01J… --policy ./stricter-policy.yaml',
    'replay run_01J… run_01K… --config ./next/toolgate.yaml --json',
    'replay --from runs.jsonl --config ./next/toolgate.yaml',
    'replay run_01J… --config ./new-prompt.yaml --live-model --save',
  ],
} as const satisfies CommandSpec;
