import type { CommandSpec } from '../command-spec.ts';
import { JSON_FLAG, STRICT_FLAG, TOOL_FLAGS } from './shared-flags.ts';

export const TOOLS_SPEC = {
  name: 'tools',
  summary:
    'list the tools of the configured MCP servers, with how the gate classifies each one; compare them with their pins',
  usage: [
    'tools [--mcp <server>]... [--config <file>] [--tenant <id>] [--json]',
    'tools --diff [--mcp <server>]... [--config <file>] [--store <store>] [--json]',
    'tools --accept <tool|all>... [--by <name>] [--mcp <server>]... [--config <file>] [--store <store>] [--json]',
  ],
  details:
    'Each tool is shown with its effect (read or write), where that classification came from (config,\n' +
    'MCP annotation or default) and whether it needs approval.\n' +
    '\n' +
    "Tool pinning: the gateway pins each MCP tool's name, title, description, schemas and annotations\n" +
    'the first time it lists it, and hides a tool whose definition changed since, until it is accepted.\n' +
    '--diff compares the tools with their pins: exit code 0 when none changed, 1 when one did (or a\n' +
    'server could not be reached). --accept pins tools as they are now. Pins live in the store\n' +
    '`toolgate gateway` and `toolgate serve` use: --store, else server.store of the config file, else\n' +
    'DATABASE_URL, else sqlite:./data/toolgate.db in the working directory.',
  flags: {
    ...TOOL_FLAGS,
    strict: STRICT_FLAG,
    tenant: {
      type: 'string',
      value: 'id',
      description: 'List only the tools this tenant may use (its allow/deny rules applied).',
      example: '--tenant acme',
    },
    diff: {
      type: 'boolean',
      description:
        'Compare every available MCP tool with its pin and print what changed (and the tools not pinned ' +
        'yet).\nExit code 1 when a tool changed: the gateway hides it until it is accepted. Creates no pin.',
    },
    accept: {
      type: 'string',
      multiple: true,
      value: 'tool | all',
      description:
        'Pin this tool as it is now (the name as listed, or server/tool): the gateway ' +
        'offers it again.\n`all` accepts every changed and new tool. Review --diff first.',
      example: '--accept crm_list_orders --accept crm/get_order',
    },
    by: {
      type: 'string',
      value: 'name',
      description: 'Who accepts, recorded with the pin (with --accept). Default: your OS user name, else "operator".',
      example: '--by alice',
    },
    store: {
      type: 'string',
      value: 'sqlite:<file> | postgres://… | memory:',
      description:
        'Where the pins are (with --diff or --accept): the store the gateway uses. Default: server.store ' +
        'of the\nconfig file, then DATABASE_URL, then sqlite:./data/toolgate.db (as for toolgate gateway and serve).',
      example: '--store sqlite:./data/toolgate.db',
    },
    json: {
      ...JSON_FLAG,
      description:
        'Print the tool specs (name, schema, effect, approval) as a ' +
        "JSON array; with --diff or --accept, each tool's pin status.",
    },
  },
  examples: [
    'tools --mcp "node examples/power-exchange/server.ts"',
    'tools --config toolgate.yaml --tenant acme --json',
    'tools --config toolgate.yaml --diff',
    'tools --config toolgate.yaml --accept crm_list_orders --by alice',
  ],
} as const satisfies CommandSpec;
