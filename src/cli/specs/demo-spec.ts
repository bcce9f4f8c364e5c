import type { CommandSpec } from '../command-spec.ts';
import { JSON_FLAG } from './shared-flags.ts';

export const DEMO_SPEC = {
  name: 'demo',
  summary: 'a scripted run against the power-exchange example: normalised arguments, a dry-run preview, an approval',
  usage: ['demo [--json]'],
  details:
    'The model is SCRIPTED (no LLM is called); the MCP server ' +
    'and every tool call are real. The same request runs twice:\n' +
    ('as a dry run (arguments normalised, userId injected, the ' +
      'bid previewed), then for real (the bid waits for approval).\n') +
    'On a terminal you approve it; without one the demo approves it for you and says so (toolgate run would exit 3).',
  flags: {
    json: { ...JSON_FLAG, description: 'Print every event of both runs as one JSON line, exactly as stored.' },
  },
  examples: ['demo', 'demo --json | head -5'],
} as const satisfies CommandSpec;
