import { writeFileSync } from 'node:fs';
import { preparePrivateDbFile } from '../app/data-dir.ts';
import { buildReport, renderReport } from '../app/eval/eval-report.ts';
import { loadSuite } from '../app/eval/load-suite.ts';
import { runEval } from '../app/eval/run-eval.ts';
import { openStore } from '../app/open-store.ts';
import { EXIT, optionalString, parseFlags, positiveInt, usageError, type CliIO } from './cli-io.ts';
import { prepareToolgate } from './open-toolgate.ts';
import { localStoreFor } from './runs-where.ts';
import { EVAL_SPEC } from './specs/eval-spec.ts';

/** `toolgate eval <suite>`: every case over the matrix, checked, summarised; exit 1 under --min-pass. */
export async function evalCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, EVAL_SPEC);
  const [file, extra] = positionals;
  if (file === undefined)
    throw usageError('toolgate eval needs a suite file, e.g. toolgate eval examples/power-exchange/eval/suite.yaml');
  if (extra !== undefined) throw usageError(`toolgate eval takes one suite file; got "${file}" and "${extra}"`);
  const repeat = positiveInt(optionalString(values, 'repeat'), '--repeat');
  const minPass = parseRate(optionalString(values, 'min-pass'));
  const suite = loadSuite(file);
  const model = optionalString(values, 'model');
  const baseUrl = optionalString(values, 'base-url');
  const apiKey = optionalString(values, 'api-key');
  const prepared = await prepareToolgate({
    values: {
      ...values,
      ...(values['config'] === undefined && suite.config !== undefined ? { config: suite.config } : {}),
    },
    flags: {
      ...(model === undefined ? {} : { model }),
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(apiKey === undefined ? {} : { apiKey }),
    },
    io,
  });
  const where = localStoreFor({ flag: optionalString(values, 'store'), env: io.env, cwd: io.cwd });
  if (where.path !== undefined) preparePrivateDbFile(where.path);
  const toolgate = prepared.open(await openStore(where.spec));
  const json = values['json'] === true;
  try {
    const results = await runEval({
      suite,
      toolgate,
      ...(repeat === undefined ? {} : { repeat }),
      defaultModel: toolgate.settings.model,
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      onResult: (r) => {
        if (!json)
          io.stderr.write(
            `${r.passed ? '✓' : '✗'} ${r.case} [${r.strategy} × ${r.modelLabel} #${r.repeat}] ` +
              `${r.status} ${r.latencyMs} ms${r.runId === '' ? '' : ` ${r.runId}`}\n`,
          );
      },
    });
    const report = buildReport(suite.description ?? file, results);
    const out = optionalString(values, 'out');
    if (out !== undefined) writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    io.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    const below = report.summary.filter((g) => g.passRate < minPass);
    if (below.length > 0 && !json)
      io.stderr.write(
        `toolgate eval: below --min-pass ${minPass}: ` +
          `${below.map((g) => `${g.strategy} × ${g.model} (${Math.round(g.passRate * 100)}%)`).join(', ')}\n`,
      );
    return below.length === 0 ? EXIT.ok : EXIT.failed;
  } finally {
    await toolgate.close();
  }
}

/** 0..1, or a percentage ("80%", "80"). Default 1. */
function parseRate(raw: string | undefined): number {
  if (raw === undefined) return 1;
  const percent = raw.trim().endsWith('%');
  const n = Number(percent ? raw.trim().slice(0, -1) : raw);
  const rate = percent || n > 1 ? n / 100 : n;
  if (!Number.isFinite(rate) || rate < 0 || rate > 1)
    throw usageError(`--min-pass must be a rate between 0 and 1 (or a percentage), got "${raw}"`);
  return rate;
}
