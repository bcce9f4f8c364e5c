import type { CommandSpec } from '../command-spec.ts';
import { JSON_FLAG, TOOL_FLAGS } from './shared-flags.ts';

export const TOOLS_SPEC = {
  name: 'tools',
  summary: 'list the tools of the configured MCP servers, with how the gate classifies each one',
  usage: ['tools [--mcp <server>]... [--config <file>] [--tenant <id>] [--json]'],
  details: 'Each tool is shown with its effect (read or write), where that classification came from (config,\nMCP annotation or default) and whether it needs approval.',
  flags: {
    ...TOOL_FLAGS,
    tenant: {
      type: 'string',
      value: 'id',
      description: "List only the tools this tenant may use (its allow/deny rules applied).",
      example: '--tenant acme',
    },
    json: { ...JSON_FLAG, description: 'Print the tool specs (name, schema, effect, approval) as a JSON array.' },
  },
  examples: ['tools --mcp "node examples/power-exchange/server.ts"', 'tools --config toolgate.yaml --tenant acme --json'],
} as const satisfies CommandSpec;
