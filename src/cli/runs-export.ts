import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { redactRunContext } from '../app/redact-run.ts';
import { exportLines, loadRuns } from '../app/replay/index.ts';
import { EXIT, optionalString, parseFlags, usageError, type CliIO } from './cli-io.ts';
import type { CommandSpec } from './command-spec.ts';
import { openRunsPlace } from './runs-place.ts';

/**
 * `toolgate runs export <run-id>… [--out file]`: each run as JSONL (a header line with the run, then its events as
 * stored), for `toolgate replay --from` and policy test suites. Context values under secret-looking keys are redacted,
 * as `runs show` shows them. An id that is not there is named (exit 1); the others are written.
 */
export async function exportRuns(args: readonly string[], io: CliIO, spec: CommandSpec): Promise<number> {
  const { values, positionals: ids } = parseFlags(args, spec);
  if (ids.length === 0)
    throw usageError('toolgate runs export needs run ids, e.g. toolgate runs export run_01J… --out runs.jsonl');
  const place = await openRunsPlace({ values, io });
  let text: string;
  let missing: { id: string; message: string }[];
  try {
    const loaded = await loadRuns({ ids, reader: place.reader });
    missing = loaded.missing;
    text = loaded.runs.map((r) => exportLines({ run: redactRunContext(r.run), events: r.events })).join('');
  } finally {
    await place.close();
  }
  for (const m of missing) io.stderr.write(`toolgate: ${m.message}\n`);
  const out = optionalString(values, 'out');
  if (out === undefined) io.stdout.write(text);
  else {
    await writeFile(resolve(io.cwd, out), text, 'utf8');
    io.stderr.write(`${ids.length - missing.length} run(s) written to ${out}\n`);
  }
  return missing.length > 0 ? EXIT.failed : EXIT.ok;
}
