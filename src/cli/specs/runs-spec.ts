import type { CommandSpec, FlagSpec } from '../command-spec.ts';
import { PRUNE_SPEC } from './runs-prune-spec.ts';
import { JSON_FLAG } from './shared-flags.ts';

/** Where the runs are: a local store, or a toolgate server. */
const WHERE_FLAGS = {
  store: {
    type: 'string',
    value: 'sqlite:<file>',
    description:
      'The store `toolgate run` recorded the run in. Default: runs.db in your data directory ' +
      '(TOOLGATE_HOME, else\n$XDG_DATA_HOME/toolgate, else ~/.local/share/toolgate). Not together with --url.',
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
      description:
        'Only runs in this status: queued, running, planning, executing, monitoring, ' +
        'reflecting, waiting_approval, escalated, completed, failed, cancelled.',
      example: '--status waiting_approval',
    },
    limit: { type: 'string', value: 'N', description: 'At most N runs, 1 to 200 (default 20).', example: '--limit 50' },
  },
  examples: ['runs list', 'runs list --status waiting_approval --url http://127.0.0.1:8787'],
} as const satisfies CommandSpec;

const SHOW_SPEC = {
  name: 'runs show',
  summary: 'a run: status, model, steps, usage, its answer and the approval it waits for',
  details: '--json prints the run as the runs API gives it (context values under secret-looking keys redacted).',
  usage: ['runs show <run-id> [--store <store> | --url <URL>] [--json]'],
  flags: WHERE_FLAGS,
  examples: ['runs show run_01J…'],
} as const satisfies CommandSpec;

const EVENTS_SPEC = {
  name: 'runs events',
  summary: "a run's events, in order; --follow keeps printing until the run ends or waits",
  details:
    'Printed as `toolgate run` prints them; with --json one stored event per line, exactly as stored.\nWith ' +
    "--follow the exit code is the run's: 0 completed, 1 failed or cancelled, 3 waiting for an approval.",
  usage: ['runs events <run-id> [--follow] [--after N] [--store <store> | --url <URL>] [--json]'],
  flags: {
    ...WHERE_FLAGS,
    follow: {
      type: 'boolean',
      short: 'f',
      description: 'Keep printing new events until the run ends or waits for an approval.',
    },
    after: { type: 'string', value: 'N', description: 'Only events after sequence number N.', example: '--after 12' },
  },
  examples: ['runs events run_01J… --json', 'runs events run_01J… --follow --url http://127.0.0.1:8787'],
} as const satisfies CommandSpec;

const REASON_FLAG = {
  type: 'string',
  value: 'text',
  description: 'Why, recorded with the decision; a rejection tells the model.',
  example: '--reason "limit is 5 MWh"',
} as const satisfies FlagSpec;

/**
 * Flags of the commands that decide and carry a run on. A local run is driven
 * in this process: its tools and model are opened again as `toolgate run`
 * recorded them (from your own store only), unless --config / --mcp say otherwise.
 */
const DECIDE_FLAGS = {
  ...WHERE_FLAGS,
  config: {
    type: 'string',
    value: 'file',
    description: 'Local runs: open the tools from this config file instead of what the run was started with.',
    example: '--config ./toolgate.yaml',
  },
  mcp: {
    type: 'string',
    multiple: true,
    value: 'command line | URL',
    description: 'Local runs: open these MCP servers instead of what the run was started with.',
    example: '--mcp "node examples/power-exchange/server.ts"',
  },
  'base-url': {
    type: 'string',
    value: 'URL',
    description: 'Local runs: the model API root to continue with, instead of the one the run was started with.',
    example: '--base-url http://localhost:11434/v1',
  },
  verbose: {
    type: 'boolean',
    description: "Local runs: print the MCP servers' stderr, each line prefixed with the server name.",
  },
} as const satisfies Record<string, FlagSpec>;

const DECIDE_DETAILS =
  "Prints the run's events from the decision on, as `toolgate run` does, until it ends or waits again.\n" +
  'Exit codes: 0 completed, 1 failed or cancelled, 2 usage error (also: unknown run, no pending approval, wrong\n' +
  'API key, tools or model that cannot be opened again; nothing is recorded then), 3 waits for an approval again.';

const APPROVE_SPEC = {
  name: 'runs approve',
  summary: 'approve the call a run waits for, and continue the run',
  usage: [
    'runs approve <run-id> [--reason <text>] [--store <store> | --url ' +
      '<URL>] [--config <file> | --mcp <server>...] [--base-url <URL>]',
  ],
  details:
    `${DECIDE_DETAILS}\nFor a call whose outcome is unknown, ` +
    `approve sends it again; see \`toolgate runs mark-done\`.`,
  flags: { ...DECIDE_FLAGS, reason: REASON_FLAG },
  examples: [
    'runs approve run_01J…',
    'runs approve run_01J… --url http://127.0.0.1:8787 --api-key "$TOOLGATE_API_KEY"',
  ],
} as const satisfies CommandSpec;

const REJECT_SPEC = {
  name: 'runs reject',
  summary: 'reject the call a run waits for (the model is told why), and continue the run',
  usage: [
    'runs reject <run-id> [--reason <text>] [--store <store> | --url ' +
      '<URL>] [--config <file> | --mcp <server>...] [--base-url <URL>]',
  ],
  details: DECIDE_DETAILS,
  flags: { ...DECIDE_FLAGS, reason: REASON_FLAG },
  examples: ['runs reject run_01J… --reason "limit is 5 MWh"'],
} as const satisfies CommandSpec;

const MARK_DONE_SPEC = {
  name: 'runs mark-done',
  summary: 'a call whose outcome is unknown did happen: record it as done (never sent again), and continue the run',
  usage: [
    'runs mark-done <run-id> [--result <text>] [--store <store> | --url ' +
      '<URL>] [--config <file> | --mcp <server>...] [--base-url <URL>]',
  ],
  details:
    `Only for a call that was sent and got no answer (the ` +
    `run waits with reason outcome_unknown).\n${DECIDE_DETAILS}`,
  flags: {
    ...DECIDE_FLAGS,
    result: {
      type: 'string',
      value: 'text',
      description: 'What you saw of the call (e.g. the order on the venue); the model is told.',
      example: '--result "order 42 is on the book"',
    },
  },
  examples: ['runs mark-done run_01J… --result "order 42 is on the book"'],
} as const satisfies CommandSpec;

const CANCEL_SPEC = {
  name: 'runs cancel',
  summary: 'cancel a run',
  usage: ['runs cancel <run-id> [--reason <text>] [--store <store> | --url <URL>]'],
  details: 'A run driven elsewhere is ended by the process that drives it. Exit code 0 once it is cancelled.',
  flags: {
    ...WHERE_FLAGS,
    reason: {
      ...REASON_FLAG,
      description: 'Why, recorded with the cancellation (on a local store or a server).',
      example: '--reason "wrong account"',
    },
  },
  examples: ['runs cancel run_01J…'],
} as const satisfies CommandSpec;

const MESSAGE_SPEC = {
  name: 'runs message',
  summary: 'answer a run that asks for help (escalated), or add a message to a running run, and continue it',
  usage: [
    'runs message <run-id> <text> [--store <store> | --url <URL>] ' +
      '[--config <file> | --mcp <server>...] [--base-url <URL>]',
  ],
  details:
    `A run of the reflect strategy (or one whose guard asked for a reflection) may escalate: it ` +
    (`waits for a person.\nThe message joins its conversation and the run goes on. ` +
      `${DECIDE_DETAILS.replace('3 waits for an approval again', '3 waits for a person again')}`),
  flags: DECIDE_FLAGS,
  examples: ['runs message run_01J… "use bob\'s account"'],
} as const satisfies CommandSpec;

const EXPORT_SPEC = {
  name: 'runs export',
  summary: 'write runs with their whole logs as JSONL, for toolgate replay --from and policy test suites',
  usage: ['runs export <run-id>... [--out <file>] [--store <store> | --url <URL>]'],
  details:
    'Per run, a line {"toolgateExport": 1, "run": {…}} and then one line per event, exactly as stored; several runs\n' +
    'one after the other. Context values under secret-looking keys are redacted. See docs/replay.md.\n' +
    'Exit codes: 0 every run written, 1 a run was not found (the others are written), 2 usage error.',
  flags: {
    store: WHERE_FLAGS.store,
    url: WHERE_FLAGS.url,
    'api-key': WHERE_FLAGS['api-key'],
    out: {
      type: 'string',
      value: 'file',
      description: 'Write to this file instead of standard output.',
      example: '--out policy-tests/runs.jsonl',
    },
  },
  examples: ['runs export run_01J… --out runs.jsonl', 'runs export run_01J… run_01K… --url http://127.0.0.1:8787'],
} as const satisfies CommandSpec;

export const RUNS_SPEC = {
  name: 'runs',
  summary: 'look at runs afterwards and decide their approvals: on the local store or on a server',
  usage: ['runs list|show|events|approve|reject|mark-done|message|cancel|export|prune [<run-id>] [flags]'],
  details:
    '`toolgate run` records every run in a local SQLite store; a run that exited with 3 (waiting for ' +
    ('an\napproval) is continued with `toolgate runs approve` or `reject`. With --url (or TOOLGATE_URL), ' +
      ('the same\ncommands talk to a toolgate server.\n\nExit codes: 0 done, 1 the run failed or was ' +
        ('cancelled (or the server could not be reached), 2 usage error,\nunknown ' +
          'run, nothing to decide or wrong API key, 3 the run waits for an approval.'))),
  flags: WHERE_FLAGS,
  examples: [
    'runs list --status waiting_approval',
    'runs approve run_01J…',
    'runs events run_01J… --follow --url http://127.0.0.1:8787',
  ],
  subcommands: [
    LIST_SPEC,
    SHOW_SPEC,
    EVENTS_SPEC,
    APPROVE_SPEC,
    REJECT_SPEC,
    MARK_DONE_SPEC,
    MESSAGE_SPEC,
    CANCEL_SPEC,
    EXPORT_SPEC,
    PRUNE_SPEC,
  ],
} as const satisfies CommandSpec;
