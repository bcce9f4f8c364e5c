import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { replayRun, type LoadedRun, type ReplayResult } from '../app/replay/index.ts';
import type { Toolgate } from '../app/toolgate.ts';
import { describeError, type ReplayDiff } from '../core/index.ts';
import { findConfigFile } from '../config/find-config-file.ts';
import { loadConfig } from '../config/load-config.ts';
import { EXIT, optionalString, parseFlags, stringList, usageError, type CliIO } from './cli-io.ts';
import { prepareToolgate } from './open-toolgate.ts';
import { readPolicyFile } from './policy-file.ts';
import { formatReplayDiff } from './replay-format.ts';
import { readOrigin } from './runs-origin.ts';
import { loadRunsFrom } from './runs-place.ts';
import { whereFor } from './runs-where.ts';
import { REPLAY_SPEC } from './specs/replay-spec.ts';

/**
 * `toolgate replay <run-id>… | --from <file>`: every run replayed under the configuration, its decision diff printed.
 * Exit 0 when every run was replayed, 1 when one could not be found or replayed (the others are), 2 usage errors.
 */
export async function replayCommand(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals: ids } = parseFlags(args, REPLAY_SPEC);
  const files = stringList(values, 'from');
  if (ids.length === 0 && files.length === 0)
    throw usageError(
      'toolgate replay needs run ids or --from <export.jsonl>, e.g. toolgate replay run_01J… --policy ./policy.yaml',
    );
  const save = values['save'] === true;
  if (save && files.length > 0)
    throw usageError('--save stores a replay beside its original run: it takes run ids of a local store, not --from');
  if (save && whereFor({ values, env: io.env, cwd: io.cwd }).kind === 'remote')
    throw usageError('--save stores the replay in a local store: it cannot write to a server (--url or TOOLGATE_URL)');
  const policyFile = optionalString(values, 'policy');
  const policy = policyFile === undefined ? undefined : readPolicyFile(resolve(io.cwd, policyFile), io.env);
  const prepared = await prepareToolgate({
    values: { ...(values['config'] === undefined ? {} : { config: values['config'] }), verbose: values['verbose'] },
    flags: {},
    io,
    ...(policy === undefined ? {} : { policy }),
  });
  const loaded = await loadRunsFrom({ ids, files, values, io });
  const place = loaded.place;
  // On the runs' own store: a saved replay goes beside its original, and a thread's history is read from there.
  const toolgate = prepared.open(place?.store);
  let failed = loaded.missing.length > 0;
  const results: { diff: ReplayDiff; text: string }[] = [];
  try {
    for (const missing of loaded.missing) io.stderr.write(`toolgate: ${missing.message}\n`);
    for (const original of loaded.runs) {
      if (io.signal?.aborted === true) break;
      const result = await replayOne({ original, toolgate, values, io });
      if (result === undefined) failed = true;
      else results.push({ diff: result.diff, text: formatReplayDiff(result.diff, result.replay.run) });
      if (result?.saved !== undefined) io.stderr.write(`replay of ${result.diff.of} saved as ${result.saved.run.id}\n`);
    }
  } finally {
    // The Toolgate closes the store it was opened on.
    await toolgate.close();
    if (place?.store === undefined) await place?.close();
  }
  const diffs = results.map((r) => r.diff);
  if (values['json'] === true) io.stdout.write(`${JSON.stringify(diffs, null, 2)}\n`);
  else io.stdout.write(results.map((r) => r.text).join('\n'));
  return failed ? EXIT.failed : EXIT.ok;
}

async function replayOne(options: {
  original: LoadedRun;
  toolgate: Toolgate;
  values: Record<string, unknown>;
  io: CliIO;
}): Promise<ReplayResult | undefined> {
  const { original, toolgate, values, io } = options;
  const live = values['live-model'] === true;
  const prompt = live ? baselinePrompt(original, io) : undefined;
  try {
    return await replayRun({
      original,
      toolgate,
      liveModel: live,
      allowReads: values['allow-reads'] === true,
      save: values['save'] === true,
      ...(prompt === undefined ? {} : { originalSystemPrompt: prompt }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
  } catch (error) {
    io.stderr.write(`toolgate: ${original.source} could not be replayed: ${describeError(error)}\n`);
    return undefined;
  }
}

/**
 * The system prompt the run was most likely sent (a run's log does not keep it): the one of the config file `toolgate
 * run` recorded it with, else of the config file found here. Undefined when neither can be read: then a new system
 * prompt is not noticed as a divergence.
 */
function baselinePrompt(original: LoadedRun, io: CliIO): string | undefined {
  const origin = readOrigin(original.run.metadata);
  try {
    const file = origin?.config ?? findConfigFile({ cwd: io.cwd });
    if (file === undefined || !existsSync(file)) return origin === undefined ? undefined : '';
    return readSystemPrompt(file, io);
  } catch {
    return undefined;
  }
}

function readSystemPrompt(file: string, io: CliIO): string {
  return loadConfig({ file, cwd: io.cwd, env: io.env }).config.systemPrompt ?? '';
}
