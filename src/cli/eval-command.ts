import { writeFileSync } from 'node:fs';
import { preparePrivateDbFile } from '../app/data-dir.ts';
import { buildReport, renderReport } from '../app/eval/eval-report.ts';
import { loadSuite } from '../app/eval/load-suite.ts';
import { runEval } from '../app/eval/run-eval.ts';
import { openStore } from '../app/open-store.ts';
import { LiveStats } from '../app/live-stats/live-stats.ts';
import { liveReport, renderLiveReport } from '../app/rollouts/live-report.ts';
import { Rollouts } from '../app/rollouts/rollouts.ts';
import { pinStoreFor } from './pin-store.ts';
import { EXIT, optionalString, parseFlags, positiveInt, usageError, type CliIO } from './cli-io.ts';
import { prepareToolgate } from './open-toolgate.ts';
import { localStoreFor } from './runs-where.ts';
import { EVAL_SPEC } from './specs/eval-spec.ts';

/** `toolgate eval <suite>`: every case over the matrix, checked, summarised; exit 1 under --min-pass. */
export async function evalCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, EVAL_SPEC);
  if (values['live'] === true) return evalLive({ values, positionals, io });
  for (const flag of ['window', 'rollout'])
    if (values[flag] !== undefined)
      throw usageError(`--${flag} goes with --live, e.g. toolgate eval --live --${flag} …`);
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

/** Default `--window` of `eval --live`. */
const DEFAULT_LIVE_WINDOW_MS = 24 * 60 * 60_000;

/**
 * `toolgate eval --live`: each rollout's treated vs control runs that ended in the window, read from the store serve
 * uses (live statistics over that store), with the rollbacks recorded there.
 */
async function evalLive(options: {
  values: Record<string, unknown>;
  positionals: string[];
  io: CliIO;
}): Promise<number> {
  const { values, positionals, io } = options;
  if (positionals.length > 0)
    throw usageError(`toolgate eval --live reads the store and takes no suite file; got "${positionals.join(' ')}"`);
  const windowMs = parseWindow(optionalString(values, 'window'));
  const only = optionalString(values, 'rollout');
  const { settings } = await prepareToolgate({ values, flags: {}, io });
  const where = pinStoreFor({
    flag: optionalString(values, 'store'),
    configured: settings.server.store,
    env: io.env,
    cwd: io.cwd,
  });
  const store = await openStore(where.spec);
  try {
    // The window the report covers is the statistics' window: refresh() reads every run changed in it.
    const stats = new LiveStats({ store, windowMs });
    await stats.refresh();
    await stats.idle();
    // Rollbacks recorded for the rollouts as configured now (a changed rollout started again).
    const rollouts = new Rollouts({ settings, store });
    rollouts.watch(stats);
    await rollouts.refresh({ force: true });
    const report = liveReport(stats.snapshot(), only);
    io.stdout.write(values['json'] === true ? `${JSON.stringify(report, null, 2)}\n` : renderLiveReport(report));
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** `30m`, `24h`, `7d` (or bare minutes) → milliseconds. */
function parseWindow(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIVE_WINDOW_MS;
  const match = /^(\d+(?:\.\d+)?)\s*(m|h|d)?$/.exec(raw.trim());
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[match?.[2] ?? 'm'] ?? 60_000;
  const ms = Number(match?.[1]) * unit;
  if (match === null || !Number.isFinite(ms) || ms < 60_000 || ms > 30 * 86_400_000)
    throw usageError(`--window must be a duration from 1m to 30d such as 30m, 24h or 7d; got "${raw}"`);
  return ms;
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
