import { describeStore, openStore } from '../app/open-store.ts';
import { copyRuns } from '../app/copy-runs.ts';
import { EXIT, parseFlags, type CliIO } from './cli-io.ts';
import { MIGRATE_SPEC } from './specs/migrate-spec.ts';

export async function migrateCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, MIGRATE_SPEC);
  const from = typeof values['from'] === 'string' ? values['from'] : undefined;
  const to = typeof values['to'] === 'string' ? values['to'] : undefined;
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
