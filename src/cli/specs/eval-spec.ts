import type { CommandSpec } from '../command-spec.ts';
import { JSON_FLAG, MODEL_FLAGS, TOOL_FLAGS } from './shared-flags.ts';

export const EVAL_SPEC = {
  name: 'eval',
  summary: 'run a suite of cases over strategies × models and report pass rates, cost and latency',
  usage: [
    'eval <suite.yaml> [--repeat N] [--min-pass 0.8] [--out results.json] ' +
      '[--json] [--config <file>] [--mcp <server>]... [--model <provider:model>]',
    'eval --live [--window 24h] [--rollout <name>] [--json] [--store <store>] [--config <file>]',
  ],
  details:
    "Each case runs once per strategy and model of the suite's matrix (--repeat times), is stored like " +
    ('any run\n(`toolgate runs show <run-id>` opens a failing one), and is checked: tools that must or must ' +
      ("not run, the\ngate's decisions, the output, steps and cost. The report is a table (or JSON with " +
        ('--json), and --out writes\nthe JSON that `router: {evalResults: …}` reads. See docs/eval.md.\n\nExit ' +
          ('codes: 0 every strategy × model passed at least --min-pass of its ' +
            'runs, 1 one did not, 2 usage or\nconfiguration error (nothing was run).\n\n' +
            ('With --live, no suite is run: the runs of each rollout (config `rollout`) that ended in the window ' +
              'are read\nfrom the store and its treated share is compared with its control share.'))))),
  flags: {
    ...TOOL_FLAGS,
    ...MODEL_FLAGS,
    repeat: {
      type: 'string',
      value: 'N',
      description: "Run each case N times (default: the suite's repeat, then 1).",
      example: '--repeat 5',
    },
    'min-pass': {
      type: 'string',
      value: 'rate',
      description: 'The pass rate each strategy × model needs, as 0..1 or a percentage (default 1: every run passes).',
      example: '--min-pass 0.8',
    },
    out: {
      type: 'string',
      value: 'file',
      description: 'Write the report as JSON to this file (results per run, summary, pass rates per intent).',
      example: '--out results.json',
    },
    store: {
      type: 'string',
      value: 'sqlite:<file> | postgres://… | memory:',
      description: 'Where the runs are recorded (default: runs.db in your data directory, as for `toolgate run`).',
      example: '--store sqlite:./eval.db',
    },
    json: { ...JSON_FLAG, description: 'Print the report as JSON instead of the table.' },
    live: {
      type: 'boolean',
      description:
        'Compare the treated and control runs of each rollout from the store (the store `toolgate serve` uses:\n' +
        '--store, server.store, DATABASE_URL): runs ended, completion and failure rates, average cost, p95 tool\n' +
        'latency, the differences, and the p-value of a two-proportion z-test of the failure rates.',
    },
    window: {
      type: 'string',
      value: 'duration',
      description: 'With --live: how far back runs count, as 30m, 24h or 7d (default 24h).',
      example: '--window 6h',
    },
    rollout: {
      type: 'string',
      value: 'name',
      description: 'With --live: only this rollout (its setting path, e.g. router.live).',
      example: '--rollout router.live',
    },
  },
  examples: [
    'eval examples/power-exchange/eval/suite.yaml',
    'eval suite.yaml --repeat 5 --min-pass 0.8 --out results.json',
    'eval --live --window 24h --rollout router.live',
  ],
} as const satisfies CommandSpec;
