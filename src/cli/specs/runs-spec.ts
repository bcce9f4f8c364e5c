import type { CommandSpec, FlagSpec } from '../command-spec.ts';
import { JSON_FLAG } from './shared-flags.ts';

/** Where the runs are: a local store, or a toolgate server. */
const WHERE_FLAGS = {
  store: {
    type: 'string',
    value: 'sqlite:<file>',
    description: 'The store to read: the one `toolgate run` records into unless told otherwise (default: the SQLite\nfile in your data directory; see docs/cli.md). Ignored with --url.',
    example: '--store sqlite:./data/toolgate.db',
  },
  url: {
    type: 'string',
    value: 'URL',
    description: 'Talk to a toolgate server instead of a local store. Default: TOOLGATE_URL, if set.',
    example: '--url http://127.0.0.1:8787',
  },
  'api-key': {
    type: 'string',
    value: 'key',
    description: "The server's API key (sent as a Bearer token). Default: TOOLGATE_API_KEY.",
    example: '--api-key "$TOOLGATE_API_KEY"',
  },
  json: JSON_FLAG,
} as const satisfies Record<string, FlagSpec>;

const LIST_SPEC = {
  name: 'runs list',
  summary: 'list runs, newest first',
  usage: ['runs list [--status <status>]... [--limit N] [--store <store> | --url <URL>] [--json]'],
  flags: {
    ...WHERE_FLAGS,
    status: {
      type: 'string',
      multiple: true,
      value: 'status',
      description: 'Only runs in this status: queued, running, waiting_approval, waiting_input, completed, failed, cancelled.',
      example: '--status waiting_approval',
    },
    limit: { type: 'string', value: 'N', description: 'At most N runs (default 20).', example: '--limit 50' },
  },
  examples: ['runs list', 'runs list --status waiting_approval --url http://127.0.0.1:8787'],
} as const satisfies CommandSpec;

const SHOW_SPEC = {
  name: 'runs show',
  summary: 'a run: status, model, steps, usage, its answer and the approval it waits for',
  usage: ['runs show <run-id> [--store <store> | --url <URL>] [--json]'],
  flags: WHERE_FLAGS,
  examples: ['runs show run_01J…'],
} as const satisfies CommandSpec;

const EVENTS_SPEC = {
  name: 'runs events',
  summary: "a run's events, in order; --follow keeps printing until the run ends",
  usage: ['runs events <run-id> [--follow] [--after N] [--store <store> | --url <URL>] [--json]'],
  flags: {
    ...WHERE_FLAGS,
    follow: { type: 'boolean', short: 'f', description: 'Keep printing new events until the run ends or waits.' },
    after: { type: 'string', value: 'N', description: 'Only events after sequence number N.', example: '--after 12' },
  },
  examples: ['runs events run_01J… --json', 'runs events run_01J… --follow --url http://127.0.0.1:8787'],
} as const satisfies CommandSpec;

/** Flags of the commands that resume a run locally (its tools must be reachable again). */
const DECIDE_FLAGS = {
  ...WHERE_FLAGS,
  reason: { type: 'string', value: 'text', description: 'Why, recorded with the decision and told to the model on a rejection.', example: '--reason "limit is 5 MWh"' },
  config: { type: 'string', value: 'file', description: 'Local runs: the config file to reopen the tools with (default: what the run was started with).' },
  mcp: { type: 'string', multiple: true, value: 'command line | URL', description: 'Local runs: MCP servers to reopen the tools with (default: what the run was started with).' },
} as const satisfies Record<string, FlagSpec>;

const APPROVE_SPEC = {
  name: 'runs approve',
  summary: 'approve the call a run waits for, and continue the run',
  usage: ['runs approve <run-id> [--reason <text>] [--store <store> | --url <URL>]'],
  flags: DECIDE_FLAGS,
  examples: ['runs approve run_01J…', 'runs approve run_01J… --url http://127.0.0.1:8787 --api-key "$TOOLGATE_API_KEY"'],
} as const satisfies CommandSpec;

const REJECT_SPEC = {
  name: 'runs reject',
  summary: 'reject the call a run waits for (the model is told why), and continue the run',
  usage: ['runs reject <run-id> [--reason <text>] [--store <store> | --url <URL>]'],
  flags: DECIDE_FLAGS,
  examples: ['runs reject run_01J… --reason "limit is 5 MWh"'],
} as const satisfies CommandSpec;

const CANCEL_SPEC = {
  name: 'runs cancel',
  summary: 'cancel a run',
  usage: ['runs cancel <run-id> [--reason <text>] [--store <store> | --url <URL>]'],
  flags: { ...WHERE_FLAGS, reason: DECIDE_FLAGS.reason },
  examples: ['runs cancel run_01J…'],
} as const satisfies CommandSpec;

export const RUNS_SPEC = {
  name: 'runs',
  summary: 'look at runs afterwards and decide their approvals: on the local store or on a server',
  usage: ['runs list|show|events|approve|reject|cancel [<run-id>] [flags]'],
  details: '`toolgate run` records every run in a local SQLite store; a run that exited with 3 (waiting for an\napproval) is continued with `toolgate runs approve` or `reject`. With --url, the same commands talk to a\ntoolgate server.',
  flags: WHERE_FLAGS,
  examples: ['runs list --status waiting_approval', 'runs approve run_01J…', 'runs events run_01J… --follow --url http://127.0.0.1:8787'],
  subcommands: [LIST_SPEC, SHOW_SPEC, EVENTS_SPEC, APPROVE_SPEC, REJECT_SPEC, CANCEL_SPEC],
} as const satisfies CommandSpec;
