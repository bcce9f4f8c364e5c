import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeStore, isPostgresSpec, openStore } from '../app/open-store.ts';
import { pruneRuns, type PruneReport } from '../app/retention/prune-runs.ts';
import { loadConfig } from '../config/load-config.ts';
import { EXIT, optionalString, parseFlags, usageError, type CliIO } from './cli-io.ts';
import type { CommandSpec } from './command-spec.ts';
import { whereFor } from './runs-where.ts';

const AGE = /^(\d+(?:\.\d+)?)([dh])$/;
const MS_PER = { d: 86_400_000, h: 3_600_000 } as const;

/**
 * `toolgate runs prune`: ended runs due under the config's `retention` policy (or --before) are archived, deleted with
 * their events, and the store compacted. Works on a store, never through a server.
 */
export async function pruneCommand(args: readonly string[], io: CliIO, spec: CommandSpec): Promise<number> {
  const { values, positionals } = parseFlags(args, spec);
  if (positionals.length > 0)
    throw usageError(`toolgate runs prune takes no run ids (got "${positionals.join(' ')}"); it picks runs by age`);
  const configFile = optionalString(values, 'config');
  const { config } = loadConfig({
    cwd: io.cwd,
    env: io.env,
    ...(configFile === undefined ? {} : { file: configFile }),
  });
  const now = new Date();
  const beforeFlag = optionalString(values, 'before');
  const before = beforeFlag === undefined ? undefined : parseBefore(beforeFlag, now);
  if (before === undefined && config.retention === undefined)
    throw usageError(
      'toolgate runs prune needs a cut-off: give --before <ISO time | 30d | 12h>, or set retention ' +
        '(completedAfterDays, failedAfterDays, cancelledAfterDays) in the config',
    );
  const storeSpec = pruneStore(values, { io, configured: config.server?.store });
  const archiveFlag = optionalString(values, 'archive');
  const archive = archiveFlag === undefined ? undefined : resolve(io.cwd, archiveFlag);
  const dryRun = values['dry-run'] === true;
  const store = await openStore(storeSpec, { cwd: io.cwd });
  let report: PruneReport;
  try {
    report = await pruneRuns({
      store,
      now,
      dryRun,
      full: values['vacuum-full'] === true,
      ...(config.retention === undefined ? {} : { policy: config.retention }),
      ...(before === undefined ? {} : { before }),
      ...(archive === undefined ? {} : { archive }),
    });
  } finally {
    await store.close();
  }
  if (values['json'] === true) io.stdout.write(`${JSON.stringify({ ...report, dryRun })}\n`);
  else io.stdout.write(summary(report, { dryRun, store: describeStore(storeSpec) }));
  return EXIT.ok;
}

/** --before: an ISO time, or an age back from now (30d, 12h). */
export function parseBefore(text: string, now: Date): Date {
  const age = AGE.exec(text.trim());
  if (age !== null) return new Date(now.getTime() - Number(age[1]) * MS_PER[age[2] === 'h' ? 'h' : 'd']);
  const time = new Date(text);
  if (Number.isNaN(time.getTime()))
    throw usageError(`--before ${text}: give an ISO time (2025-01-31 or 2025-01-31T12:00:00Z) or an age (30d, 12h)`);
  return time;
}

function pruneStore(values: Record<string, unknown>, options: { io: CliIO; configured: string | undefined }): string {
  const flag = optionalString(values, 'store');
  const url = optionalString(values, 'url');
  if (url !== undefined)
    throw usageError(
      `toolgate runs prune works on a store, not through a server (--url ${url}): run it where the store is, ` +
        'with --store sqlite:<file> or --store postgres://…',
    );
  if (flag !== undefined && isPostgresSpec(flag)) return flag;
  if (flag === undefined && options.configured !== undefined) return options.configured;
  const where = whereFor({ values, env: options.io.env, cwd: options.io.cwd });
  if (where.kind === 'remote')
    throw usageError(
      `toolgate runs prune works on a store, not through a server (TOOLGATE_URL is ${where.url}): ` +
        'give --store sqlite:<file> or --store postgres://…',
    );
  if (where.path !== undefined && !existsSync(where.path))
    throw usageError(
      `there is no store at ${where.path} (check --store; toolgate run --store sqlite:<file> records there)`,
    );
  return where.spec;
}

function summary(report: PruneReport, options: { dryRun: boolean; store: string }): string {
  const lines = [
    `${options.dryRun ? 'would prune' : 'pruned'} ${report.pruned} run(s) with ${report.events} event(s) ` +
      `from ${options.store}; ${report.examined} examined`,
    `kept: ${report.keptOpen} not ended, ${report.keptApprovals} with approvals (keepApprovals)` +
      (report.keptRollouts > 0 ? `, ${report.keptRollouts} rollout rollback record(s)` : ''),
  ];
  if (report.archive !== undefined) lines.push(`archive: ${report.archive.path} (${report.archive.runs} run(s))`);
  if (report.bytesBefore > 0 || report.bytesAfter > 0)
    lines.push(`size: ${megabytes(report.bytesBefore)} → ${megabytes(report.bytesAfter)}`);
  return `${lines.join('\n')}\n`;
}

function megabytes(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${(bytes / 1000).toFixed(1)} kB`;
}
