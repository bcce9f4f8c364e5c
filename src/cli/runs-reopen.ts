import { existsSync } from 'node:fs';
import type { Toolgate } from '../app/toolgate.ts';
import { apiKeyVariable, providerOf } from '../config/providers.ts';
import { ToolgateError, isJsonObject, type Run, type RunInput, type RunStore, describeError } from '../core/index.ts';
import type { CliIO } from './cli-io.ts';
import { prepareToolgate } from './open-toolgate.ts';
import { describeOrigin, readOrigin, type CliOrigin } from './runs-origin.ts';
import { storeTrustProblem } from './runs-trust.ts';
import type { LocalWhere } from './runs-where.ts';

export interface ReopenOptions {
  run: Run;
  input: RunInput;
  store: RunStore;
  where: LocalWhere;
  /** Parsed flags: `config`, `mcp` and `verbose` are read. */
  values: Record<string, unknown>;
  io: CliIO;
}

/**
 * A Toolgate that can carry a stored run on in this process: its tools opened
 * as `toolgate run` recorded them (or from --config / --mcp), its model at the
 * same API (or --base-url). Everything is checked before the decision is
 * recorded: a decision whose run cannot continue here would leave it half-done.
 */
export async function reopenToolgate(options: ReopenOptions): Promise<Toolgate> {
  const { run, io, values } = options;
  const origin = readOrigin(run.metadata);
  const trustProblem = options.where.path === undefined ? undefined : storeTrustProblem({ path: options.where.path });
  const explicit = typeof values['config'] === 'string' || (Array.isArray(values['mcp']) && values['mcp'].length > 0);
  const recorded = explicit ? undefined : recordedOrigin({ run, origin, trustProblem });
  const baseUrl = modelApiRoot({
    run,
    origin,
    trustProblem,
    flag: typeof values['base-url'] === 'string' ? values['base-url'] : undefined,
  });
  // The run's model decides which provider --base-url (or the recorded endpoint) speaks for.
  const flags = baseUrl === undefined ? {} : { baseUrl, model: run.model };
  let toolgate: Toolgate;
  if (recorded === undefined) {
    toolgate = (await prepareToolgate({ values, flags, io })).open(options.store);
  } else {
    io.stderr.write(`reopening the tools run ${run.id} was started with: ${describeOrigin(recorded)}\n`);
    toolgate = (
      await prepareToolgate({
        values: {
          ...(recorded.config === undefined ? {} : { config: recorded.config }),
          mcp: recorded.mcp,
          verbose: values['verbose'] === true,
        },
        flags,
        io,
        cwd: recorded.cwd,
        noConfig: recorded.config === undefined,
      })
    ).open(options.store);
  }
  try {
    await checkModel(toolgate, run, origin);
    await checkTools(toolgate, run, options.input);
  } catch (error) {
    // The store is the caller's; only what was opened here is closed.
    await toolgate.tools.close();
    throw error;
  }
  return toolgate;
}

/**
 * The model API a run continues with: --base-url, else the one it was started
 * with. A recorded one is only used from a trusted store: the conversation,
 * and the API key of whoever continues the run, are sent there.
 */
function modelApiRoot(options: {
  run: Run;
  origin: CliOrigin | undefined;
  trustProblem: string | undefined;
  flag: string | undefined;
}): string | undefined {
  const recorded = options.origin?.baseUrl;
  if (options.flag !== undefined || recorded === undefined) return options.flag;
  if (options.trustProblem !== undefined) {
    throw reopenError(
      `run ${options.run.id} was started with the model API at ${recorded}, which this store ` +
        `cannot be trusted to say: ${options.trustProblem}. Pass --base-url to say where the model is`,
    );
  }
  return recorded;
}

function recordedOrigin(options: {
  run: Run;
  origin: CliOrigin | undefined;
  trustProblem: string | undefined;
}): CliOrigin {
  const { run, origin, trustProblem } = options;
  if (origin === undefined) {
    throw reopenError(
      `run ${run.id} has no record of the tools it was started with (it was not started by toolgate run); ` +
        'pass --config or --mcp to open them, or decide through the server that drives it with --url',
    );
  }
  if (trustProblem !== undefined) {
    throw reopenError(
      `toolgate does not start the tool servers recorded in this store: ` +
        `${trustProblem}. Pass --config or --mcp to choose them yourself`,
    );
  }
  if (origin.config !== undefined && !existsSync(origin.config)) {
    throw reopenError(
      `run ${run.id} was started with the config file ${origin.config}, ` +
        `which no longer exists; pass --config or --mcp to open its tools`,
    );
  }
  return origin;
}

async function checkModel(toolgate: Toolgate, run: Run, origin: CliOrigin | undefined): Promise<void> {
  try {
    await toolgate.model(run.model);
  } catch (error) {
    throw reopenError(`cannot open the model of run ${run.id} (${run.model}) again: ${describeError(error)}`);
  }
  const name = providerOf(run.model);
  const provider = toolgate.settings.providers[name];
  const key = provider?.apiKey;
  if (origin?.modelApiKey === true && provider !== undefined && (key === undefined || key === '')) {
    const variable = apiKeyVariable(name);
    throw reopenError(
      `run ${run.id} was started with an API key for its model (${run.model}), ` +
        `and none is set here; keys are never recorded with a run. ` +
        (`Set ${variable === undefined ? '' : `${variable} (or `}providers.${name}.apiKey ` +
          `in the config file${variable === undefined ? '' : ')'} and try again`),
    );
  }
}

async function checkTools(toolgate: Toolgate, run: Run, input: RunInput): Promise<void> {
  const pending = run.pendingApproval;
  // A whole plan needs the tools of its steps; a call, its own.
  const steps = pending?.kind === 'plan' && Array.isArray(pending.arguments['steps']) ? pending.arguments['steps'] : [];
  const names =
    pending?.kind === 'plan'
      ? steps.flatMap((s) => (isJsonObject(s) && typeof s['tool'] === 'string' ? [s['tool']] : []))
      : [pending?.name ?? ''];
  const missing: string[] = [];
  try {
    for (const name of new Set(names)) if ((await toolgate.tools.getTool(name)) === undefined) missing.push(name);
  } catch (error) {
    throw reopenError(`cannot start the tool servers of run ${run.id} again: ${describeError(error)}`);
  }
  // Only a call that is executed needs its tool; after any decision (or a message) the model may still call the others.
  if (missing.length > 0 && input.type === 'approval' && (input.decision === 'approve' || input.decision === 'edit')) {
    throw reopenError(
      `the tool servers opened for run ${run.id} offer no tool named ` +
        `${missing.join(', ')}; pass --config or --mcp with the server that has it`,
    );
  }
}

function reopenError(message: string): ToolgateError {
  return new ToolgateError('config_invalid', `${message}. Nothing was recorded.`);
}
