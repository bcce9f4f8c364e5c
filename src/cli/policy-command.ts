import { loadPolicySuite } from '../app/policy-test/load-policy-suite.ts';
import type { PolicySuite } from '../app/policy-test/policy-suite.ts';
import { renderPolicyTestReport, type PolicyTestReport } from '../app/policy-test/policy-test-report.ts';
import { runPolicyTest } from '../app/policy-test/run-policy-test.ts';
import type { LoadedRuns } from '../app/replay/index.ts';
import type { Toolgate } from '../app/toolgate.ts';
import { ToolgateError, describeError, didYouMean } from '../core/index.ts';
import { renderCommandHelp } from './command-spec.ts';
import { EXIT, optionalString, parseFlags, usageError, type CliIO } from './cli-io.ts';
import { prepareToolgate, type PreparedToolgate } from './open-toolgate.ts';
import { readPolicyFile } from './policy-file.ts';
import { EXIT_INTERRUPTED } from './runs-command.ts';
import { loadRunsFrom, type RunsPlace } from './runs-place.ts';
import { POLICY_SPEC } from './specs/policy-spec.ts';

const TEST_SPEC = POLICY_SPEC.subcommands[0];

/** `toolgate policy <command>`: only `test` for now. */
export async function policyCommand(args: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    io.stdout.write(renderCommandHelp(POLICY_SPEC));
    return EXIT.usage;
  }
  if (name !== 'test')
    throw usageError(`toolgate policy has no command "${name}"${didYouMean(name, ['test'])} (commands: test)`);
  return policyTest(rest, io);
}

/**
 * `toolgate policy test <suite.yaml>`: replays the suite's runs under the configuration and checks its
 * expectations. Exit 0 all passed, 1 one failed, 2 nothing could be checked (the message says why).
 */
async function policyTest(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseFlags(args, TEST_SPEC);
  const [file, extra] = positionals;
  if (file === undefined)
    throw usageError('toolgate policy test needs a suite file, e.g. toolgate policy test policy-tests/suite.yaml');
  if (extra !== undefined) throw usageError(`toolgate policy test takes one suite file; got "${file}" and "${extra}"`);
  const suite = loadPolicySuite(file, io.cwd);
  let place: RunsPlace | undefined;
  let toolgate: Toolgate | undefined;
  let report: PolicyTestReport;
  try {
    const prepared = await configUnderTest({ suite, values, io });
    const originals = await suiteRuns({ suite, values, io });
    place = originals.place;
    // On the runs' own store, where a thread's earlier messages are read from; a replay never writes to it.
    toolgate = prepared.open(place?.store);
    report = await runPolicyTest({
      suite,
      label: file,
      toolgate,
      originals: originals.runs,
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
  } catch (error) {
    if (io.signal?.aborted === true) return EXIT_INTERRUPTED;
    // Nothing was checked: a run, the store or the configuration could not be read. Said like a usage error.
    io.stderr.write(`toolgate: policy test ${file}: ${describeError(error)}\n`);
    return EXIT.usage;
  } finally {
    // The Toolgate closes the store it was opened on.
    await toolgate?.close();
    if (toolgate === undefined || place?.store === undefined) await place?.close();
  }
  const json = values['json'] === true;
  io.stdout.write(
    json ? `${JSON.stringify(report, null, 2)}\n` : renderPolicyTestReport(report, { color: colour(io) }),
  );
  return report.failed === 0 ? EXIT.ok : EXIT.failed;
}

/** The suite's runs: its exports, and the runs it names by id from --store / --url. A missing id is an error. */
async function suiteRuns(options: {
  suite: PolicySuite;
  values: Record<string, unknown>;
  io: CliIO;
}): Promise<LoadedRuns & { place: RunsPlace | undefined }> {
  const { suite } = options;
  const ids = suite.runs.flatMap((r) => ('id' in r ? [r.id] : []));
  const files = suite.runs.flatMap((r) => ('file' in r ? [r.file] : []));
  const loaded = await loadRunsFrom({ ids, files, values: options.values, io: options.io });
  if (loaded.missing.length > 0) {
    await loaded.place?.close();
    throw new ToolgateError(
      'not_found',
      `${loaded.missing.map((m) => m.message).join('; ')} (fix the id in the suite, or give --store / --url)`,
    );
  }
  return loaded;
}

/**
 * The configuration under test, read and checked (not opened yet): --config, else the suite's config:, else the one
 * found in the working directory; the suite's policy: file replaces its policy.
 */
async function configUnderTest(options: {
  suite: PolicySuite;
  values: Record<string, unknown>;
  io: CliIO;
}): Promise<PreparedToolgate> {
  const { suite, io } = options;
  const config = optionalString(options.values, 'config') ?? suite.config;
  const policy = suite.policy === undefined ? undefined : readPolicyFile(suite.policy, io.env);
  return prepareToolgate({
    values: { ...(config === undefined ? {} : { config }), verbose: options.values['verbose'] === true },
    flags: {},
    io,
    ...(policy === undefined ? {} : { policy }),
  });
}

/** Colours only for a person at a terminal: not under CI, not into a file or a pipe, not with NO_COLOR. */
function colour(io: CliIO): boolean {
  const ci = io.env['CI'];
  const underCi = ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
  return !underCi && io.stdout.isTTY === true && io.env['NO_COLOR'] === undefined;
}
