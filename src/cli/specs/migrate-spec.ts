import type { CommandSpec } from '../command-spec.ts';

export const MIGRATE_SPEC = {
  name: 'migrate',
  summary: 'copy runs and their events from one store to another (e.g. SQLite to PostgreSQL)',
  usage: ['migrate --from <store> --to <store>', 'migrate --from archive:<file> --to <store>'],
  details:
    'Copies every run (all tenants) with its settings and its whole event log, numbered and stamped as ' +
    ('they were.\nRuns the target already holds are left alone, so a migration that stopped half-way can ' +
      ('be run again.\nStop the servers that use the source first: a run still being driven there would go ' +
        ('on without the copy.\nRuns that had not ended are taken up by the servers on the target (the ' +
          ('usual crash rules: a write whose outcome\nis unknown waits for a person). Idempotency keys ' +
            ('(kept 24 h) and conversation threads are not copied.\n\nExit codes: 0 everything ' +
              'was copied, 1 a run could not be copied (the others were), 2 usage error.\n\n' +
              '--from archive:<file> (or --from archive <file>) imports the runs of an archive that ' +
              '`toolgate runs prune --archive`\nwrote (or of `toolgate runs export`; .gz read as gzip): a ' +
              'bad line fails its run, naming the line; the others go on.'))))),
  flags: {
    from: {
      type: 'string',
      value: 'store',
      description: 'The store to read: sqlite:<file>, postgres://… or memory:; or archive:<file> (a prune archive).',
      example: '--from sqlite:./data/toolgate.db',
    },
    to: {
      type: 'string',
      value: 'store',
      description: 'The store to write: postgres://… or sqlite:<file>.',
      example: '--to postgres://toolgate@db:5432/toolgate',
    },
  },
  examples: [
    'migrate --from sqlite:./data/toolgate.db --to postgres://toolgate:secret@127.0.0.1:5432/toolgate',
    'migrate --from archive:runs-2025-01.jsonl.gz --to sqlite:./data/toolgate.db',
  ],
} as const satisfies CommandSpec;
