import type { CommandSpec } from '../command-spec.ts';

export const PRUNE_SPEC = {
  name: 'runs prune',
  summary: 'delete ended runs the retention policy (or --before) says are due, archiving them first',
  usage: [
    'runs prune [--before <ISO time | 30d | 12h>] [--archive <file[.gz]>] [--dry-run] [--vacuum-full] ' +
      '[--store <store>] [--config <file>] [--json]',
  ],
  details:
    'Without --before, the `retention` policy of the config applies (completedAfterDays, failedAfterDays,\n' +
    'cancelledAfterDays, keepApprovals). A run that has not ended (e.g. waiting for an approval) is never\n' +
    'deleted. The archive is the JSONL of `toolgate runs export`, unredacted, written and synced before anything\n' +
    'is deleted; `toolgate migrate --from archive:<file> --to <store>` brings it back. The store is compacted\n' +
    'afterwards (SQLite VACUUM; PostgreSQL VACUUM, or VACUUM FULL with --vacuum-full). See docs/observability.md.\n' +
    'The store: --store, else server.store of the config, else the default store of `toolgate runs`.\n' +
    'Exit codes: 0 done, 2 usage error (no policy and no --before, a server URL, an archive that exists).',
  flags: {
    store: {
      type: 'string',
      value: 'store',
      description: 'The store to prune: sqlite:<file> or postgres://… (not a server: prune works on the store).',
      example: '--store sqlite:./data/toolgate.db',
    },
    url: {
      type: 'string',
      value: 'URL',
      description: 'Refused: prune works on a store, not through a server.',
      example: '--url http://127.0.0.1:8787',
    },
    config: {
      type: 'string',
      value: 'file',
      description: 'The config whose `retention` policy (and server.store) applies. Default: ./toolgate.yaml.',
      example: '--config ./toolgate.yaml',
    },
    before: {
      type: 'string',
      value: 'time',
      description: 'Every ended run last changed before this: an ISO time, or an age such as 30d or 12h.',
      example: '--before 2025-01-01',
    },
    archive: {
      type: 'string',
      value: 'file',
      description: 'Write the pruned runs here first (a new file; .gz: gzipped).',
      example: '--archive runs-2025-01.jsonl.gz',
    },
    'dry-run': { type: 'boolean', description: 'Count what would be deleted; change nothing.' },
    'vacuum-full': {
      type: 'boolean',
      description: 'PostgreSQL: VACUUM FULL, which gives the space back but locks the tables while it runs.',
    },
    json: { type: 'boolean', description: 'Print the report as JSON.' },
  },
  examples: [
    'runs prune --dry-run',
    'runs prune --before 90d --archive old-runs.jsonl.gz --store sqlite:./data/toolgate.db',
    'runs prune --vacuum-full --json --store postgres://toolgate@db:5432/toolgate',
  ],
} as const satisfies CommandSpec;
