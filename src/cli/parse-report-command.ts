import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultRunsDb } from '../app/data-dir.ts';
import { describeStore, isPostgresSpec, openStore } from '../app/open-store.ts';
import { parseReport, type ParseReport } from '../app/parse-report.ts';
import { EXIT, optionalString, parseFlags, usageError, type CliIO } from './cli-io.ts';
import { PARSE_REPORT_SPEC } from './specs/parse-spec.ts';

/** `toolgate parse report`: the replies a store recorded that were repaired or had diagnostics, by model and kind. */
export async function parseReportCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, PARSE_REPORT_SPEC);
  if (positionals.length > 0)
    throw usageError(
      `toolgate parse report takes no FILE (got "${positionals[0] ?? ''}"); name the store with --store`,
    );
  const model = optionalString(values, 'model');
  const where = storeOf(optionalString(values, 'store'), io);
  if (where.path !== undefined && !existsSync(where.path)) {
    if (!where.isDefault)
      throw usageError(
        `there is no store at ${where.path} (check --store: sqlite:<file>, a SQLite file, or postgres://…)`,
      );
    // Nothing recorded yet: an empty report, not an error.
    io.stderr.write(`no runs recorded yet (${where.path})\n`);
    print({ runs: 0, replies: 0, flagged: 0, groups: [] }, { io, json: values['json'] === true, label: where.label });
    return EXIT.ok;
  }
  const store = await openStore(where.spec, { cwd: io.cwd });
  try {
    const report = await parseReport({ store, ...(model === undefined ? {} : { model }) });
    print(report, { io, json: values['json'] === true, label: where.label });
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

interface ReportStore {
  spec: string;
  label: string;
  /** The SQLite file, when there is one. */
  path?: string;
  isDefault: boolean;
}

/** `--store`: `sqlite:<file>`, a bare file path, or `postgres://…`; default the runs.db of the data directory. */
function storeOf(flag: string | undefined, io: CliIO): ReportStore {
  if (flag === undefined) {
    const path = defaultRunsDb({ env: io.env, cwd: io.cwd });
    return { spec: `sqlite:${path}`, label: `sqlite:${path}`, path, isDefault: true };
  }
  if (isPostgresSpec(flag)) return { spec: flag, label: describeStore(flag), isDefault: false };
  if (flag === 'memory:' || flag === 'memory')
    throw usageError(
      '--store memory: keeps nothing, so there are no replies to report; use sqlite:<file> or postgres://…',
    );
  const raw = flag.startsWith('sqlite:') ? flag.slice('sqlite:'.length) : flag;
  if (raw === '' || raw === ':memory:')
    throw usageError('--store needs a SQLite file (sqlite:./runs.db) or postgres://…');
  const path = resolve(io.cwd, raw);
  return { spec: `sqlite:${path}`, label: `sqlite:${path}`, path, isDefault: false };
}

function print(report: ParseReport, options: { io: CliIO; json: boolean; label: string }): void {
  const { io } = options;
  if (options.json) {
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const lines = [
    `${report.flagged} of ${report.replies} replies in ${report.runs} ` +
      `runs were repaired or had diagnostics (${options.label})`,
  ];
  let model: string | undefined;
  for (const group of [...report.groups].sort(
    (a, b) => a.model.localeCompare(b.model) || b.replies - a.replies || a.kind.localeCompare(b.kind),
  )) {
    if (group.model !== model) {
      model = group.model;
      lines.push('', model);
    }
    const { example } = group;
    lines.push(
      `  ${String(group.replies).padStart(5)}  ${group.type} ${group.kind}`,
      `         e.g. ${example.runId} #${example.seq} (step ${example.step}): ${JSON.stringify(example.excerpt)}`,
      `         ${example.message}`,
    );
  }
  io.stdout.write(`${lines.join('\n')}\n`);
}
