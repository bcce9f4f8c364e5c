import type { CommandSpec } from '../command-spec.ts';
import { HOST_FLAG, MODEL_FLAGS, STRICT_FLAG, TOOL_FLAGS } from './shared-flags.ts';

export const GATEWAY_SPEC = {
  name: 'gateway',
  summary: 'serve the configured MCP servers as one MCP server, every tools/call through the gate (gateway mode)',
  usage: [
    'gateway [--config <file>] [--port 8787] [--host 127.0.0.1] [--store <store>] [flags]',
    'gateway --stdio [--config <file>] [--tenant <id>] [--user <id>] [--port N] [flags]',
  ],
  details:
    'Over HTTP it serves MCP (Streamable HTTP) at /mcp beside the runs API and the console, with the same ' +
    ('API keys\nand tenants. With --stdio it speaks MCP on stdin/stdout for clients that spawn their servers ' +
      ('(Claude Desktop,\nCursor); logs go to stderr, and the runs API is served too when --port is given. ' +
        ('One client session is one\nrun: `toolgate runs`, the ' +
          'console and /metrics show its calls. See docs/gateway.md.'))),
  flags: {
    ...TOOL_FLAGS,
    strict: STRICT_FLAG,
    ...MODEL_FLAGS,
    stdio: {
      type: 'boolean',
      description: 'Speak MCP on stdin/stdout (one session, acting for gateway.identity or --tenant/--user).',
    },
    port: {
      type: 'string',
      value: 'N',
      description:
        'The HTTP port (/mcp, the runs API, the console); 0 picks a free one. Default: ' +
        'server.port, then 8787;\nwith --stdio, no HTTP server unless --port is given.',
      example: '--port 9000',
    },
    host: HOST_FLAG,
    store: {
      type: 'string',
      value: 'sqlite:<file> | postgres://… | memory:',
      description:
        'Where sessions (runs) and tool pins are stored. Default: ' +
        'server.store, then DATABASE_URL, then\nsqlite:./data/toolgate.db.',
      example: '--store sqlite:./data/toolgate.db',
    },
    tenant: {
      type: 'string',
      value: 'id',
      description: 'With --stdio: the tenant the session acts for (over gateway.identity.tenant).',
      example: '--tenant acme',
    },
    user: {
      type: 'string',
      value: 'id',
      description: 'With --stdio: the user the session acts for, filling {{user.id}} (over gateway.identity.user).',
      example: '--user alice',
    },
    endpoint: {
      type: 'string',
      value: 'path',
      description:
        'With --stdio: the virtual server (a key of gateway.endpoints) served (over gateway.identity.endpoint).',
      example: '--endpoint /mcp/trading',
    },
    'dry-run': {
      type: 'boolean',
      description: 'Every session’s writes are validated and recorded, not executed.',
    },
    'log-level': {
      type: 'string',
      value: 'level',
      description: 'fatal, error, warn, info (default), debug or trace; also TOOLGATE_LOG_LEVEL. Logs go to stderr.',
      example: '--log-level debug',
    },
  },
  examples: [
    'gateway --config toolgate.yaml --port 8787',
    'gateway --stdio --config toolgate.yaml --tenant acme --user alice',
    'gateway --mcp "node server.js" --dry-run',
  ],
} as const satisfies CommandSpec;
