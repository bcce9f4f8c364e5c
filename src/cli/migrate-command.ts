import { describeStore, openStore } from '../app/open-store.ts';
import { copyRuns } from '../app/copy-runs.ts';
import { resolve } from 'node:path';
import { EXIT, parseFlags, type CliIO } from './cli-io.ts';
import { MIGRATE_SPEC } from './specs/migrate-spec.ts';

export async function migrateCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, MIGRATE_SPEC);
  const from = typeof values['from'] === 'string' ? values['from'] : undefined;
  const to = typeof values['to'] === 'string' ? values['to'] : undefined;
  // `--from archive:<file>`, or `--from archive <file>`.
  const archive =
    from === 'archive' ? positionals[0] : from?.startsWith('archive:') === true ? from.slice(8) : undefined;
  if (from === 'archive' || from?.startsWith('archive:') === true) {
    if (
      archive === undefined ||
      archive === '' ||
      positionals.length > (from === 'archive' ? 1 : 0) ||
      to === undefined
    ) {
      io.stderr.write(
        'toolgate migrate: name the archive and the store: --from archive:<file> --to <store>, ' +
          'e.g. toolgate migrate --from archive:runs.jsonl.gz --to sqlite:./data/toolgate.db\n',
      );
      return EXIT.usage;
    }
    return importArchiveCommand({ path: resolve(io.cwd, archive), to, io });
  }
  if (positionals.length > 0 || from === undefined || to === undefined) {
    io.stderr.write(
      `toolgate migrate: name both stores: --from <store> --to <store>, e.g. ${MIGRATE_SPEC.examples[0]}\n`,
    );
    return EXIT.usage;
  }
  if (from === to) {
    io.stderr.write('toolgate migrate: --from and --to name the same store; nothing to do\n');
    return EXIT.usage;
  }
  const source = await openStore(from, { cwd: io.cwd });
  try {
    const target = await openStore(to, { cwd: io.cwd });
    try {
      io.stderr.write(`copying runs from ${describeStore(from)} to ${describeStore(to)}\n`);
      const report = await copyRuns({
        source,
        target,
        onRun: (outcome) => {
          if (outcome.kind === 'failed') io.stderr.write(`  ${outcome.runId}: not copied: ${outcome.message}\n`);
        },
      });
      io.stdout.write(
        `copied ${report.copied} run(s) with ${report.events} event(s); ` +
          `${report.skipped} already there; ${report.failed} failed\n`,
      );
      if (report.active > 0)
        io.stdout.write(
          `${report.active} copied run(s) had not ended: the servers on the target take them up (docs/deploy.md)\n`,
        );
      return report.failed > 0 ? EXIT.failed : EXIT.ok;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** `toolgate migrate --from archive:<file> --to <store>`: the runs of a prune archive (or any runs export) back in. */
async function importArchiveCommand(options: { path: string; to: string; io: CliIO }): Promise<number> {
  const { io, to, path } = options;
  const { importArchive } = await import('../app/retention/import-archive.ts');
  const target = await openStore(to, { cwd: io.cwd });
  try {
    io.stderr.write(`importing runs from the archive ${path} into ${describeStore(to)}\n`);
    const report = await importArchive({
      store: target,
      path,
      onRun: (outcome) => {
        if (outcome.kind === 'failed') io.stderr.write(`  ${outcome.runId}: not imported: ${outcome.message}\n`);
      },
    });
    io.stdout.write(
      `imported ${report.copied} run(s) with ${report.events} event(s); ` +
        `${report.skipped} already there; ${report.failed} failed\n`,
    );
    return report.failed > 0 ? EXIT.failed : EXIT.ok;
  } finally {
    await target.close();
  }
}
