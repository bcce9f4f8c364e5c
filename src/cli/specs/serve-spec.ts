import type { CommandSpec } from '../command-spec.ts';
import { HOST_FLAG, MODEL_FLAGS, STRICT_FLAG, TOOL_FLAGS } from './shared-flags.ts';

export const SERVE_SPEC = {
  name: 'serve',
  summary: 'serve the runs API (HTTP + SSE) on a durable store; runs interrupted by a stop or crash resume',
  usage: ['serve [--config <file>] [--port 8787] [--host 127.0.0.1] [--store <store>] [flags]'],
  details:
    'Without API keys in the config (tenants.<id>.apiKeys) it listens on loopback only. SIGTERM or ' +
    'Ctrl-C stops\ntaking runs, lets running steps reach a safe point and closes. See docs/server.md.',
  flags: {
    ...TOOL_FLAGS,
    strict: STRICT_FLAG,
    ...MODEL_FLAGS,
    port: {
      type: 'string',
      value: 'N',
      description: 'The port to listen on; 0 picks a free one. Default: server.port in the config file, then 8787.',
      example: '--port 9000',
    },
    host: HOST_FLAG,
    store: {
      type: 'string',
      value: 'sqlite:<file> | postgres://… | memory:',
      description:
        'Where runs are stored: a SQLite file (created if missing), a PostgreSQL database shared by ' +
        ('several\ninstances (docs/deploy.md), or memory: (lost on exit). Default: ' +
          'server.store, then DATABASE_URL, then\nsqlite:./data/toolgate.db.'),
      example: '--store sqlite:/var/lib/toolgate/runs.db',
    },
    concurrency: {
      type: 'string',
      value: 'N',
      description: 'Runs driven at once by this process; more wait in the queue. Default: server.concurrency, then 8.',
      example: '--concurrency 16',
    },
    'log-level': {
      type: 'string',
      value: 'level',
      description:
        'fatal, error, warn, info (default), debug or trace; also TOOLGATE_LOG_LEVEL. Logs (run start and ' +
        ('end, approvals\nwith the curl line that approves them, one line ' +
          'per request) are JSON lines on stderr, readable text on a terminal.'),
      example: '--log-level debug',
    },
    demo: {
      type: 'boolean',
      description:
        'Serve the demo: the power-exchange example server and the scripted demo model, unless the config\nor ' +
        'flags name others. Its order waits for approval; the log prints the curl line that approves it.',
    },
  },
  examples: [
    'serve --demo',
    'serve --config toolgate.yaml --port 8787 --store sqlite:./data/toolgate.db',
    'serve --mcp "node server.js" --model openai:gpt-4o-mini --log-level debug',
  ],
} as const satisfies CommandSpec;
