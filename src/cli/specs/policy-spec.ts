import type { CommandSpec } from '../command-spec.ts';
import { JSON_FLAG } from './shared-flags.ts';

const TEST_SPEC = {
  name: 'policy test',
  summary: 'replay recorded runs under a configuration and check what its policy decides (for CI)',
  usage: [
    'policy test <suite.yaml> [--config <file>] [--store <store> | --url <URL> [--api-key <key>]] [--json] [--verbose]',
  ],
  details:
    'The suite names recorded runs (JSONL files written by `toolgate runs export`, or run ids) and\n' +
    'expectations: noNewDenials, noNewApprovals, a tool pattern with the decision its calls must get (optionally\n' +
    'only when a CEL condition holds), a tenant that must never reach a tool pattern, answerUnchanged. Each run is\n' +
    'replayed under the configuration — the recorded model turns and tool results are fed back: no model is\n' +
    'asked, no tool is called — and every expectation is checked on every replay. See docs/policy-test.md.\n\n' +
    'Output: one line per expectation (✓ or ✗), each failing run and call under it, and last ' +
    '`policy test: N passed, M failed`;\nno colours when CI is set or stdout is not a terminal.\n\n' +
    'Exit codes: 0 every expectation passed, 1 one failed, 2 the suite, the configuration or a run could not\n' +
    'be read (the message says what to fix; nothing was checked).',
  flags: {
    config: {
      type: 'string',
      value: 'file',
      description:
        "The configuration under test, instead of the suite's config: (default: toolgate.yaml, toolgate.yml or\n" +
        "toolgate.json in the working directory, if one exists). The suite's policy: file still replaces its policy.",
      example: '--config ./toolgate.yaml',
    },
    store: {
      type: 'string',
      value: 'sqlite:<file>',
      description:
        'Where runs named by id: in the suite are read. Default: runs.db in your data directory (as for ' +
        '`toolgate runs`).\nNothing is written to it. Not together with --url.',
      example: '--store sqlite:./data/toolgate.db',
    },
    url: {
      type: 'string',
      value: 'URL',
      description: 'Read runs named by id: from a toolgate server instead. Default: TOOLGATE_URL, if set.',
      example: '--url http://127.0.0.1:8787',
    },
    'api-key': {
      type: 'string',
      value: 'key',
      description: "The server's API key (sent as a Bearer token). Default: TOOLGATE_API_KEY.",
      example: '--api-key "$TOOLGATE_API_KEY"',
    },
    json: { ...JSON_FLAG, description: 'Print the results as JSON: {suite, runs, results, passed, failed}.' },
    verbose: {
      type: 'boolean',
      description: "Print the MCP servers' stderr (their tools are listed, never called), prefixed with the name.",
    },
  },
  examples: ['policy test policy-tests/suite.yaml', 'policy test suite.yaml --config ./next/toolgate.yaml --json'],
} as const satisfies CommandSpec;

export const POLICY_SPEC = {
  name: 'policy',
  summary: 'test a policy change against recorded runs before it ships',
  usage: ['policy test <suite.yaml> [flags]'],
  details:
    'A change to tools:, tenants:, conditions, the parser or the prompt is replayed over runs you already had; ' +
    'the suite\nsays what must hold (docs/policy-test.md).',
  flags: {},
  examples: ['policy test policy-tests/suite.yaml'],
  subcommands: [TEST_SPEC],
} as const satisfies CommandSpec;
