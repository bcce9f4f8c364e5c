import type { CommandSpec } from '../command-spec.ts';
import { JSON_FLAG } from './shared-flags.ts';

export const DEMO_SPEC = {
  name: 'demo',
  summary: 'a scripted run against the power-exchange example: normalised arguments, a dry-run preview, an approval',
  usage: ['demo [--json]'],
  details: 'The model is SCRIPTED (no LLM is called); the MCP server and every tool call are real.',
  flags: {
    json: { ...JSON_FLAG, description: 'Print every event as one JSON line, exactly as stored.' },
  },
  examples: ['demo', 'demo --json | head -5'],
} as const satisfies CommandSpec;
